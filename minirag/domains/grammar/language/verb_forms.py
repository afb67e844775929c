"""A verb's forms, mined from a corpus's conjugation tables: form -> lemma, and lemma -> tense -> person -> forms.

`extract_forms` reads conjugation tables (a verb a column, named in the header or the heading above;
a verb a row: "Infinitive | yo | tú", "Base form | Past simple") and "tener → tuve", "cerrar (cierro)".
`extract_paradigms` places the tables' forms in their slots: the tense a column's or row's label
names ("Past participle", "Imperativo (tú)"), else the innermost heading above the table that names
one ("Pretérito indefinido irregular › Paradigmas"), and the person a label names ("yo", "él / ella /
usted"); the words that name them are data/tenses.txt and data/persons.txt (slots.py).

What it leaves out: the term lexicon (lexicon.py), forms written in prose only (an arrow has no
tense here), compound forms ("he comido": one word a form) and tenses no header names: such a
form keeps its lemma in `extract_forms` and no slot in `extract_paradigms`.
"""

from __future__ import annotations

import re
from collections import defaultdict

from minirag.text.words import LETTERS_RE, TERM_RE

from .lexicon import PAREN_RE, LanguageGuess, clean, segments, tables
from .slots import person_list, tenses_in

INFINITIVE_RE = re.compile(r"[a-záéíóúüñ]+(?:ar|er|ir|ír)(?:se)?")
ARROW_RE = re.compile(r"(?<![\w-])([^\W\d_]+)\s*→\s*([^\W\d_]+(?:\s*/\s*[^\W\d_]+)*)(?![\w-])")
HINT_RE = re.compile(r"(?<![\w-])([^\W\d_]+)\s*\(([^\W\d_]+(?:,\s*[^\W\d_]+)*)\)")
# Header words of a column holding verb forms (persons, tenses), and of one holding something else.
FORM_WORDS = set("""yo tú él ella usted nosotros nosotras vosotros vosotras ellos ellas ustedes i you he she it
    we they present presente past simple preterite pretérito indefinido imperfect imperfecto future futuro
    conditional condicional subjunctive subjuntivo indicative indicativo imperative imperativo participle
    participio gerund gerundio form forma ing""".split())
OTHER_WORDS = set("""meaning significado example ejemplo ejemplos english translation rule regla raíz root stem
    terminación ending change cambio uso use note notes""".split())
ROW_LEMMA_HEADS = {"infinitive", "infinitivo", "verb", "verbo", "base form"}  # one verb a row
COLUMN_LEMMA_HEADS = {"person", "persona", "tense", "tiempo"}                # one verb a column
REFLEXIVE = {"me", "te", "se", "nos", "os"}
Slot = tuple[str, str, tuple[str, ...], tuple[str, ...]]  # (form, lemma, tenses, persons) of a table cell


def header_verbs(cell: str) -> list[str]:
    """The verbs a header names in lowercase ("hablar", "ser / ir", "Ejemplo (tener)", "Regular verb (work)");
    none for labels ("Terminación", "present", "-ar")."""
    cell = cell.replace("*", "").strip()
    for part in (PAREN_RE.sub("", cell), *PAREN_RE.findall(cell)):
        names = [n.strip() for n in part.split("/")]
        if all(re.fullmatch(r"[a-záéíóúüñ]+", n) and n not in FORM_WORDS for n in names):
            return names
    return []


def cell_forms(cell: str, lemma: str) -> list[str]:
    """One-word forms of a cell: "tuve", "was / were", "tuve, tuviste", "no hables", "me levanto" (reflexive)."""
    out = []
    for ws in (item.split() for item in re.split(r"[/,;]", clean(cell))):
        ws = ws[1:] if ws[:1] == ["no"] else ws  # negative commands
        ws = ws[1:] if lemma.endswith("se") and len(ws) == 2 and ws[0] in REFLEXIVE else ws
        out += ws if len(ws) == 1 and LETTERS_RE.fullmatch(ws[0]) else []
    return out


def column_kind(header: str) -> str:
    hw = set(TERM_RE.findall(clean(header)))
    return "forms" if hw & FORM_WORDS else "other" if hw & OTHER_WORDS else "lists"


def context_tenses(path: list[str]) -> tuple[str, ...]:
    """The tenses of the innermost heading of `path` (outermost first) that names any: a table under
    "Pretérito indefinido irregular › Paradigmas" is in the past."""
    return next((tuple(t) for t in map(tenses_in, reversed(path)) if t), ())


def cell_slots(cell: str, lemma: str, labels: list[str], context: tuple[str, ...]) -> list[Slot]:
    """The forms of a cell with the tenses and persons its labels name (the row's label, then the column's
    header: the first that names any), the tenses of the headings above where no label names one. A label
    naming as many persons as the cell has forms pairs them in order: "ser (yo / él)" over "fui / fue"."""
    forms = cell_forms(cell, lemma)
    persons = next((list(dict.fromkeys(p)) for p in map(person_list, labels) if p), [])
    tenses = next((tuple(t) for t in map(tenses_in, labels) if t), context)
    if len(persons) == len(forms) > 1:
        return [(f, lemma, tenses, (p,)) for f, p in zip(forms, persons)]
    return [(f, lemma, tenses, tuple(sorted(persons))) for f in forms]


def table_forms(header: list[str], rows: list[list[str]], path: list[str], guess) -> list[Slot]:
    """(form, lemma, tenses, persons) of a conjugation table: a verb a row (Infinitive | yo | tú: person and
    tense columns, and lists of forms elsewhere) or a verb a column (Persona | hablar | comer). `path`: the
    headings above the table, outermost first; tenses and persons are () where nothing names them."""
    head, out, context = clean(header[0]), [], context_tenses(path)
    if head in ROW_LEMMA_HEADS:
        kinds = [column_kind(h) for h in header]
        for row in rows:
            lemmas = [n.strip() for n in clean(row[0]).split("/") if LETTERS_RE.fullmatch(n.strip())]
            for cell, kind, label in list(zip(row, kinds, header))[1:]:
                slots = {lemma: cell_slots(cell, lemma, [label], context) for lemma in lemmas}
                if kind == "forms" or (kind == "lists" and all(len(f) > 1 for f in slots.values())):
                    out += [slot for fs in slots.values() for slot in fs]
    elif head.split(" ")[0] in COLUMN_LEMMA_HEADS:
        # a column of forms naming no verb ("present") takes the one infinitive of the heading above
        heading = path[-1] if path else ""
        named = sorted({w for w in TERM_RE.findall(heading.lower()) if INFINITIVE_RE.fullmatch(w) and guess(w) != "en"})
        for j, h in enumerate(header[1:], 1):
            lemmas = header_verbs(h) or (named if column_kind(h) == "forms" and len(named) == 1 else [])
            # "Tense | ser (yo / él)": the row names the tense, the column the persons
            out += [slot for row in rows if j < len(row) for lemma in lemmas
                    for slot in cell_slots(row[j], lemma, [row[0], h], context)]
    return out


def prose_forms(seg: str, guess) -> list[tuple[str, str]]:
    """(form, lemma) pairs written "tener → tuve" or "cerrar (cierro)": the left side a Spanish
    infinitive, the forms sharing its first letter (so "ser (pasiva)", "bailar → a" give none)."""
    seg, out = seg.replace("*", "").lower(), []
    for m in (*ARROW_RE.finditer(seg), *HINT_RE.finditer(seg)):
        lemma, forms = m.group(1), [f.strip() for f in re.split(r"[/,]", m.group(2))]
        if INFINITIVE_RE.fullmatch(lemma) and guess(lemma) == "es" and \
                all(len(f) > 1 and f[0] == lemma[0] and guess(f) != "en" for f in forms):
            out += [(f, lemma) for f in forms]
    return out


def extract_verb_forms(docs: list[dict]) -> tuple[dict[str, list[str]], dict[str, dict[str, dict[str, list[str]]]]]:
    """(form -> sorted lemmas, lemma -> tense -> person -> sorted forms) in one pass over the corpus's tables
    and prose: `extract_forms` and `extract_paradigms`, which the lexicon stage writes side by side."""
    guess, forms = LanguageGuess(docs), defaultdict(set)
    slots = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))
    for doc in docs:
        pairs = []
        for header, rows, path in tables(doc["text"]):
            for form, lemma, tenses, persons in table_forms(header, rows, path, guess):
                pairs.append((form, lemma))
                for tense in tenses:
                    for person in persons or ("",):
                        slots[lemma][tense][person].add(form)
        pairs += [p for seg in segments(doc["text"]) for p in prose_forms(seg, guess)]
        for form, lemma in pairs:
            forms[form].add(lemma)
            forms[lemma].add(lemma)
    paradigms = {lemma: {tense: {person: sorted(fs) for person, fs in sorted(by_person.items())}
                         for tense, by_person in sorted(by_tense.items())} for lemma, by_tense in sorted(slots.items())}
    return {k: sorted(v) for k, v in sorted(forms.items())}, paradigms


def extract_forms(docs: list[dict]) -> dict[str, list[str]]:
    """Form -> sorted lemmas from the KB's conjugation tables, accents as written; a lemma maps to itself."""
    return extract_verb_forms(docs)[0]


def extract_paradigms(docs: list[dict]) -> dict[str, dict[str, dict[str, list[str]]]]:
    """Lemma -> tense -> person -> sorted forms, from the conjugation tables whose headers or headings name
    a tense (slots.py); person "" where none is named ("Past participle"). A form of no named tense is
    left out here and kept in `extract_forms`: "tener": {"past": {"1sg": ["tuve"], ...}, "present": ...}."""
    return extract_verb_forms(docs)[1]


def lemma_forms(forms: dict[str, list[str]]) -> dict[str, list[str]]:
    """The inverse map: lemma -> all its forms, sorted."""
    out = defaultdict(set)
    for form, lemma in ((form, lemma) for form, lemmas in forms.items() for lemma in lemmas):
        out[lemma].add(form)
    return {k: sorted(v) for k, v in sorted(out.items())}
