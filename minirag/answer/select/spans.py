"""Short answer spans inside a sentence of prose: what a reader of any corpus would underline.

    spans_of("Rollo was the first Duke of Normandy in 911.")
    -> [("name", "Rollo"), ("name", "Duke of Normandy"), ("date", "911"), ("phrase", "first Duke"), ...]

Kinds, each a pattern over the sentence's words (offsets kept, so a span is a piece of its sentence):

- `name`: a run of capitalised words, joined by of / de / the / and / y / del / la inside it ("Duke of
  Normandy", "Sky Sports News"); a sentence's first word counts only when the next is capitalised too;
- `date`: a year (1000-2099), a month with its day and year, a decade, a century ("10th century"), a time
  of day or a span of them ("06:00", "08:00–19:00");
- `number`: a number with what it counts ("300 people", "£1.3 billion", "25%"), its unit a word further
  on ("10 working days"), in two units ("2 hours and 30 minutes"), and with a qualifier before it that bounds
  it ("at least 2 months", "up to 12");
- `quote`: what quotes enclose;
- `phrase`: a noun phrase, the words between function words and punctuation (at most six), with a
  following "of X" joined, and the last one or two words of a longer one (its head).

Function words are English and Spanish (evaluation/answers.py's list and a few more).

What it leaves out: parsing (a phrase is a run of words, not a constituent) and spans across sentences.
"""

from __future__ import annotations

import re

from .attributes import with_unit

TOKEN_RE = re.compile(r"\d{1,2}:\d{2}\b|[£$€¥]?\d[\d,.]*%?|\w+(?:['’.-]\w+)*|[^\w\s]")  # a time is one word
FUNCTION = frozenset("""
a an the of to in on at for and or but nor is are was were be been being it its this that these those with
as by from into onto over under after before during since until than then there their they them he she his
her him we our you your i my me not no so if when where which who whom whose what why how also only very
can could would should will shall may might must do does did has have had about between through against
among such both either each other any some many much more most all while though although because within
without upon per via out up down off
el la los las un una unos unas de del en y o u es son se que lo al con por para fue era como su sus más
""".split())
JOINERS = frozenset("of de the and y del la for".split())
MONTHS = frozenset("""january february march april may june july august september october november december
enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre""".split())
SCALE = frozenset("hundred thousand million billion trillion mil millón millones".split())
WORD_NUMBERS = frozenset("""one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty
fifty sixty hundred uno una dos tres cuatro cinco seis siete ocho nueve diez doce quince veinte treinta""".split())
SYMBOL_UNITS = frozenset("% € £ $ ¥ ° ×".split())
RANGE = frozenset("– - — to a y and or".split())
EVERY = frozenset("every each cada".split())
# words before a number that bound or round it: part of the value ("at least 2 months" is not "2 months")
QUALIFIERS = tuple(q.split() for q in (
    "at least", "at most", "up to", "more than", "less than", "fewer than", "no more than", "not more than",
    "about", "around", "approximately", "roughly", "nearly", "almost", "over", "under", "maximum", "minimum",
    "al menos", "como mínimo", "como máximo", "hasta", "más de", "menos de", "casi", "aproximadamente"))
YEAR_RE = re.compile(r"^(1[0-9]{3}|20[0-9]{2})s?$")
NUM_RE = re.compile(r"^[£$€¥]?\d[\d,.]*%?$")
TIME_RE = re.compile(r"^\d{1,2}:\d{2}$")  # 06:00, a time of day: a date's kind
ORDINAL_RE = re.compile(r"^\d+(st|nd|rd|th)$", re.I)
QUOTE_RE = re.compile(r"[\"“«]([^\"”»\n]{1,60})[\"”»]")
MAX_PHRASE = 6


def tokens(sentence: str) -> list[tuple[str, int, int]]:
    """(word, start, end) of every word and punctuation mark."""
    return [(m.group(), m.start(), m.end()) for m in TOKEN_RE.finditer(sentence)]


def is_word(t: str) -> bool:
    return t[0].isalnum() or t[0] in "£$€¥"


def capitalised(t: str) -> bool:
    return t[0].isupper()


def numeric(t: str) -> bool:
    return bool(NUM_RE.match(t) or ORDINAL_RE.match(t) or TIME_RE.match(t))


def name_runs(toks: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    out, i, n = [], 0, len(toks)
    while i < n:
        if not (is_word(toks[i][0]) and capitalised(toks[i][0])):
            i += 1
            continue
        j = i + 1
        while j < n:
            t = toks[j][0]
            if is_word(t) and capitalised(t):
                j += 1
            elif t.lower() in JOINERS and j + 1 < n and is_word(toks[j + 1][0]) and capitalised(toks[j + 1][0]):
                j += 2
            else:
                break
        start = i
        if i == 0 and toks[0][0].lower() in FUNCTION:
            start = 1  # "The" or "In" opening a sentence is no part of the name
        if start < j and not (i == 0 and j == 1):
            out.append((start, j))
        i = j
    return out


def unit_after(toks: list[tuple[str, int, int]], j: int) -> bool:
    """Whether token j is a unit of the number before it ("1200 ml"; not the "s" of a decade, "1990s")."""
    return (j < len(toks) and toks[j][0].lower() not in FUNCTION | {"s"}
            and bool(with_unit(f"{toks[j - 1][0]} {toks[j][0]}")))


def unit_between(toks: list[tuple[str, int, int]], j: int) -> bool:
    """Whether the word after token j is the unit of the number before j, one word between ("10 working days")."""
    if j + 1 >= len(toks) or not is_word(toks[j + 1][0]) or toks[j + 1][0].lower() in FUNCTION:
        return False
    number, between, unit = toks[j - 1][0], toks[j][0], toks[j + 1][0]
    return not with_unit(f"{number} {between}") and bool(with_unit(f"{number} {between} {unit}"))


def number_runs(toks: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """(kind, i, j): dates and numbers with their unit."""
    out, i, n = [], 0, len(toks)
    while i < n:
        t = toks[i][0]
        low = t.lower()
        counted = low in WORD_NUMBERS and i + 1 < n and is_word(toks[i + 1][0]) and toks[i + 1][0].lower() not in FUNCTION
        if not (numeric(t) or counted or (low in MONTHS and i + 1 < n and numeric(toks[i + 1][0]))):
            i += 1
            continue
        j = i + 1
        while j < n and (numeric(toks[j][0]) or toks[j][0].lower() in SCALE or toks[j][0].lower() in MONTHS
                         or (toks[j][0] == "," and j + 1 < n and YEAR_RE.match(toks[j + 1][0]))
                         or (toks[j][0].lower() in RANGE and j + 1 < n and numeric(toks[j + 1][0]) and numeric(t))):
            j += 1
        while j < n and toks[j][0] in SYMBOL_UNITS and numeric(t):  # 250 °C, 35 %, 14 × 22 × 38
            j += 2 if toks[j][0] in "°×" and j + 1 < n else 1
        words = [w for w, *_ in toks[i:j]]
        dated = (any(w.lower() in MONTHS or TIME_RE.match(w) for w in words)
                 or (len(words) == 1 and YEAR_RE.match(words[0]) and not unit_after(toks, j)))  # "1200 ml": no year
        if j < n and toks[j][0].lower() in ("century", "centuries", "siglo", "siglos"):
            out.append(("date", i, j + 1))
        elif dated:
            out.append(("date", i, j))
            if i > 0 and toks[i - 1][0].lower() in MONTHS:
                out.append(("date", i - 1, j))
        else:
            if not counted:
                out.append(("number", i, j))
            if j < n and is_word(toks[j][0]) and toks[j][0].lower() not in FUNCTION:
                # with what it counts, and its unit when a word stands between ("10 working days")
                wide = j + 2 if unit_between(toks, j) else j + 1
                wide = compound_end(toks, wide)
                out.append(("number", i, wide))
                if i > 0 and toks[i - 1][0].lower() in EVERY:
                    out.append(("number", i - 1, wide))  # how often: every two weeks
            if (q := qualifier_before(toks, i)) is not None:
                out.append(("number", q, out[-1][2]))
        i = j
    return out


def compound_end(toks: list[tuple[str, int, int]], j: int) -> int:
    """The end of a quantity in two units of one attribute that continues at token j ("2 hours and 30 minutes",
    "1 m 20 cm"), else j."""
    k = j + 1 if j < len(toks) and toks[j][0].lower() in ("and", "y", ",") else j
    # another unit of the same attribute ("2.4 GHz and 5 GHz" are two values, not one)
    if k + 1 < len(toks) and NUM_RE.match(toks[k][0]) and is_word(toks[k + 1][0]) \
            and toks[k + 1][0].lower() != toks[j - 1][0].lower():
        first = with_unit(" ".join(t for t, *_ in toks[j - 2:j]))
        if first and first == with_unit(f"{toks[k][0]} {toks[k + 1][0]}"):
            return k + 2
    return j


def qualifier_before(toks: list[tuple[str, int, int]], i: int) -> int | None:
    """Where a qualifier ending just before token i begins ("at least" 2 months), None when there is none."""
    words = [t.lower() for t, *_ in toks[max(0, i - 3):i]]
    return next((i - len(q) for q in QUALIFIERS if words[-len(q):] == q), None)


def phrase_runs(toks: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    out, runs, i, n = [], [], 0, len(toks)
    while i < n:
        if not is_word(toks[i][0]) or toks[i][0].lower() in FUNCTION:
            i += 1
            continue
        j = i
        while j < n and is_word(toks[j][0]) and toks[j][0].lower() not in FUNCTION:
            j += 1
        runs.append((i, j))
        i = j
    # a run that starts on a qualifier's last word ("at least 2 months", "al menos"): past it, since the number
    # span holds the qualifier whole and "least 2 months" is a fragment
    runs = [(i + 1, j) if j - i > 1 and (q := qualifier_before(toks, i + 1)) is not None and q < i else (i, j)
            for i, j in runs]
    for k, (i, j) in enumerate(runs):
        if j - i <= MAX_PHRASE:
            out.append((i, j))
        if j - i >= 3:
            out += [(j - 1, j), (j - 2, j)]
        if k + 1 < len(runs) and runs[k + 1][0] == j + 1 and toks[j][0].lower() in ("of", "de", "del") \
                and runs[k + 1][1] - i <= MAX_PHRASE + 2:
            out.append((i, runs[k + 1][1]))  # "the Duke of Normandy", "la casa de Bernarda"
    return out


def spans_of(sentence: str) -> list[tuple[str, str]]:
    """(kind, text) of every span of the sentence (module docstring), each text once, in kind order."""
    toks = tokens(sentence)
    found: list[tuple[str, int, int]] = [("name", i, j) for i, j in name_runs(toks)]
    found += number_runs(toks)
    found += [("phrase", i, j) for i, j in phrase_runs(toks)]
    out, seen = [], set()
    for kind, i, j in found:
        text = sentence[toks[i][1]:toks[j - 1][2]].strip(" ,.;:")
        if text and text not in seen and any(ch.isalnum() for ch in text):
            seen.add(text)
            out.append((kind, text))
    for m in QUOTE_RE.finditer(sentence):
        text = m.group(1).strip()
        if text and text not in seen:
            seen.add(text)
            out.append(("quote", text))
    return out
