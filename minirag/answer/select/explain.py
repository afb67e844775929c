"""Questions that ask for a rule or a reason answered with the sentence that states it.

    explanation("When do I use ser vs estar?", lines)     # the longest sentence naming both
    -> Verdict(text="As a first approximation, ser tells you what something is ..., while estar tells you ...")

"When do I use X (vs Y)?", "What is the difference between X and Y?", "How does X work?" and their Spanish
forms (¿cuándo se usa …?, diferencia entre …) ask for a rule, not a value: a span cut out of a sentence
answers them badly, and a selector trained on value questions often abstains. Such a question is answered
with the prose sentence of the top chunks (table rows aside) that holds every content word of the question
(three in four of a question of four or more), the longest of them (a rule states its conditions), the
better-ranked chunk's first on a tie. A question no sentence covers is left to the selector, which answers or abstains as for any
question.

A domain that reads questions more closely can say that a question asks for a rule in other words too ("is
'I have seen him yesterday' correct?", "less people or fewer people", "does embarazada mean embarrassed?"):
`rule_sentence` then answers it with the sentence of the top chunks that holds most of the question's weight,
each word weighed by its IDF over the corpus (`WordWeights`), the words of a quoted stretch that the sentence
repeats in order adding to it; a sentence holding less than half the question's weight decides nothing.

"Why …?" is the selector's, answered with the sentence holding its best span. When that sentence gives no
reason (no "because", "so that", "so", "to avoid", ... nor an explaining colon) or the selector is less sure
of it than of none, `reason_sentence` answers with the sentence of the kept lines that does give one and
holds at least half the question's weight (its content words by IDF): "Why is the speed limited to
25 km/h?" → "Because EU law limits pedal-assisted bikes to 25 km/h; ...".

What it leaves out: answers spread over two sentences (a reason in the sentence after the one the question
names), a reason given with no cue word, and "how do I …?" (steps are items: the selector's).
"""

from __future__ import annotations

import re

from ...text.words import crude_stem, fold
from .generic import content_stems, stem_idf
from .polar import PUNCT, Verdict, covering, tokens
from .spans import FUNCTION

EXPLAIN_RE = re.compile(
    r"^\W*(when (do|should|can|would|must) (i|you|we|one) use\b|when is \S+ used\b|"
    r"what('s| is) the difference\b|(what is the )?difference between\b|how does .+ work\b|"
    r"cu[aá]ndo (se usa|se utiliza|uso|usamos|debo usar)\b|(cu[aá]l es la )?diferencia entre\b)",
    re.IGNORECASE)
CUES = frozenset({"when", "use", "used", "difference", "between", "work", "works", "vs", "versus", "cuando", "usa",
                  "utiliza", "uso", "usamos", "debo", "usar", "diferencia", "entre"})
CONTRAST = frozenset({"vs", "vs.", "versus", "or", "and", "o", "y"})
COVER, MAX_WORDS = 0.75, 60
RULE_WEIGHT = 0.5  # rule_sentence: the least share of the question's weight a sentence must hold (dev)
QUOTE_WEIGHT = 0.6  # and what a quoted stretch repeated in order adds, times its share repeated (dev)
LOOKBACK = 8  # rule_sentence: lines back to the rule an example stands under
REASON_WEIGHT = 0.5  # reason_sentence: the least share of the question's weight the sentence must hold (dev)
REASON_RE = re.compile(r"\b(because|so that|so|otherwise|since|in order to|"
                       r"to (prevent|avoid|keep|stop|protect|make sure)|this is (why|because)|the reason|"
                       r"porque|para que|ya que|evitar)\b", re.IGNORECASE)
# "Dry the chickpeas well: water on their surface turns to steam": a clause after the colon, not a value
EXPLAINING_COLON_RE = re.compile(r"[^\W\d_]: +[a-záéíóúñ][^\W\d_]*(\s+\S+){3}")
WHY_RE = re.compile(r"\b(why|how come|explain|wrong|mistake|incorrect|por que|mal|error)\b")  # asks for the reason
RULE_CUES = frozenset(crude_stem(w) for w in (
    "why how come explain difference diferencia vs versus instead rule regla correct correcto wrong mal mistake "
    "error say ok bien puede dice mean significa when cuando english ingles spanish espanol").split())


def contrasted(words: list[str]) -> set[int]:
    """Positions of function words a question sets against each other ("por vs para", "a or an"): what it
    asks about, though a function word is otherwise no content word. Both sides must be function words:
    "the subjunctive and the indicative" contrasts the content words, not "the"."""
    out = set()
    for i in range(1, len(words) - 1):
        left, right = fold(words[i - 1]), fold(words[i + 1])
        if fold(words[i]) in CONTRAST and left in FUNCTION and right in FUNCTION:
            out |= {i - 1, i + 1}
    return out


def asked_stems(query: str) -> list[str]:
    """The content words an explanatory question asks about, stemmed, in order; [] for any other question."""
    if not EXPLAIN_RE.match(query):
        return []
    words = [t.strip(PUNCT + "¿¡") for t in tokens(query)]
    kept = contrasted(words)
    return list(dict.fromkeys(crude_stem(w) for i, w in enumerate(words) if w and (
        i in kept or (fold(w) not in FUNCTION and fold(w) not in CUES and len(w) > 1))))


def explanation(query: str, lines: list[str]) -> Verdict | None:
    """The longest sentence of `lines` (best chunk first, the first of equals) that covers the question's
    content words, or None (module docstring)."""
    asked = asked_stems(query)
    if not asked:
        return None
    best = None
    for line, sentence, ws, _, cover in covering(lines, asked):
        if len(ws) < 4 or len(ws) > MAX_WORDS or (cover < 1.0 and not (cover >= COVER and len(asked) >= 4)):
            continue
        if best is None or (cover, len(ws)) > best[0]:  # a rule states its conditions: the longer sentence
            best = ((cover, len(ws)), Verdict(sentence.strip(), line))
    return best[1] if best is not None else None


class WordWeights:
    """IDF of every word's crude stem over a corpus's texts (generic.py `stem_idf`), function words included
    (a quoted "can to" weighs what its words weigh), a word the corpus never writes weighing most."""

    def __init__(self, idf: dict[str, float], unseen: float):
        self.idf, self.unseen = idf, unseen

    @classmethod
    def from_texts(cls, texts: list[str]) -> "WordWeights":
        return cls(*stem_idf([stems_of(t) for t in texts]))

    def __call__(self, stem: str) -> float:
        return self.idf.get(stem, self.unseen)


def stems_of(text: str) -> list[str]:
    return [crude_stem(t.strip(PUNCT + "*¿¡«»")) for t in tokens(text)]


def repeated(quote: list[str], words: list[str]) -> float:
    """The share of a quoted stretch's words the sentence repeats in one run (two words at least), else 0."""
    best = 0
    for i in range(len(quote)):
        for j in range(len(words)):
            k = 0
            while i + k < len(quote) and j + k < len(words) and quote[i + k] == words[j + k]:
                k += 1
            best = max(best, k)
    return best / len(quote) if best >= 2 else 0.0


def rule_sentence(query: str, quoted: list[str], lines: list[str], weights: WordWeights,
                  chunk_of: dict[str, str] | None = None) -> Verdict | None:
    """The sentence of `lines` (best chunk first) holding the largest share of the question's weight, a
    quoted stretch it repeats adding QUOTE_WEIGHT times its repeated share; None below RULE_WEIGHT
    (module docstring). Ties go to the better chunk's sentence. A question asking why (or what is wrong)
    whose sentence repeats the quoted mistake, an example, gets the rule it stands under too: the line of
    its chunk (`chunk_of`: each line's chunk) that introduces it with a colon, cited in its place."""
    words = [t.strip(PUNCT + "¿¡«»") for t in tokens(query)]
    asked = [crude_stem(w) for w in words if w and fold(w) not in FUNCTION and len(w) > 1]
    asked += [s for q in quoted for s in stems_of(q)]
    asked = [s for s in dict.fromkeys(asked) if s not in RULE_CUES]
    if not asked:
        return None
    total = sum(weights(s) for s in asked)
    quotes = [fold(q).split() for q in quoted if len(q.split()) > 1]
    best = None
    for line, sentence, ws, stems, _ in covering(lines, asked):
        if len(ws) < 4 or len(ws) > MAX_WORDS:
            continue
        held = set(stems)
        score = sum(weights(s) for s in asked if s in held) / total
        folded = [fold(w.strip(PUNCT + "*¿¡«»")) for w in ws]
        run = max([repeated(q, folded) for q in quotes] or [0.0])
        score += QUOTE_WEIGHT * run
        if score >= RULE_WEIGHT and (best is None or score > best[0]):
            best = (score, Verdict(sentence.strip(), line), run > 0)
    if best is None:
        return None
    if best[2] and WHY_RE.search(fold(query)) and (intro := introducing(lines, best[1].line, chunk_of or {})):
        return Verdict(f"{intro.rstrip().rstrip(':')}: {best[1].text}", intro)  # the rule over the example
    return best[1]


def introducing(lines: list[str], line: str, chunk_of: dict[str, str]) -> str | None:
    """The nearest of the LOOKBACK lines before `line` in its chunk that ends with a colon: the rule a list
    of examples stands under ("... se convierte en se:" over "Le di el libro → Se lo di (no le lo di)")."""
    at = lines.index(line)
    for j in range(at - 1, max(-1, at - 1 - LOOKBACK), -1):
        if chunk_of.get(lines[j]) != chunk_of.get(line):
            return None
        if lines[j].rstrip().endswith(":"):
            return lines[j]
    return None


def gives_reason(sentence: str) -> bool:
    return bool(REASON_RE.search(sentence) or EXPLAINING_COLON_RE.search(sentence))


def reason_sentence(asked: dict[str, float], lines: list[str], said: str) -> Verdict | None:
    """The sentence of `lines` (best chunk first) with a reason cue that holds the largest share of the
    question's weight (`asked`: its content stems with their IDF), at least REASON_WEIGHT; None when `said`,
    the selector's sentence, already gives a reason, or no sentence qualifies (module docstring)."""
    total = sum(asked.values())
    if not total or gives_reason(said):
        return None
    best = None
    for line, sentence, ws, _, _ in covering(lines, list(asked)):
        if not 4 <= len(ws) <= MAX_WORDS or not REASON_RE.search(sentence):
            continue
        held = set(content_stems(sentence))
        share = sum(w for s, w in asked.items() if s in held) / total
        if share >= REASON_WEIGHT and (best is None or share > best[0]):
            best = (share, Verdict(sentence.strip(), line))
    return best[1] if best is not None else None
