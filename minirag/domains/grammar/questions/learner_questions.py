"""Learner-phrased questions synthesized from the corpus's tables and prose, to train answer selection on.

Every table row names a lemma and an attribute (a row per verb, a column per person: "| venir | vine |
viniste | ..."; or the reverse, "| yo | tengo | vengo |" under "| Persona | tener | venir |"), and the
heading above names the rest ("Pretérito indefinido"). `synthesize(docs, terms, n, seed)` asks for a cell
the way learners ask, in English, Spanish and across the two:

    plain         "pretérito de venir, yo"              "past participle of write"
    paraphrase    "I forgot how 'bring' looks in the past tense"
    blank         "___ (venir, yo, pretérito)"          "I've ___ her since we were kids (know)" style
    alternatives  "sank or sunk?"                       "¿vine o vino? (venir, yo)"
    confirmation  "is it vino?"  -> the right form
    cross         "Spanish informal command for decir"  "¿pasado simple del verbo inglés think?"
    misspelled    "past participle of wirte"

plus English phrases to say in Spanish ("how do you say 'I had' in Spanish?", learner_translations.py),
arrows ("stop → stopped": "past of stop"), glosses and definitions ("what does 'ayer' mean?"),
rules (a heading and the rarest words of one of its items: "when do I use the subjunctive after ojalá?"
answered by that item), and unanswerable ones (an invented lemma, a third language) answered None.

    LearnerQuestion(qid, query, answer, family, lang, source)

What it leaves out: questions needing two lines (comparing rows), and any check that a question has
one answer only (two rows may share a lemma and a column; both cells are then right).
"""

from __future__ import annotations

import hashlib
from typing import Callable

import numpy as np

from minirag.answer.reading.facts import Fact, doc_sections, sentence_facts, table_rows
from minirag.answer.reading.synthesized import LearnerQuestion
from minirag.text.words import LETTERS_RE, fold, fold_accents

from ..select.terms import GrammarTerms
from .learner_translations import translation_questions

LANG_NAME = {"en": {"en": "English", "es": "Spanish"}, "es": {"en": "inglés", "es": "español"}}
OTHER_LANGS = {"en": ("French", "German", "Italian", "Portuguese"), "es": ("francés", "alemán", "italiano", "portugués")}
TEMPLATES = {  # {L} lemma, {A} attribute, {V} value, {W} a wrong form, {N} the lemma's language name
    ("plain", "en"): ("{A} of {L}", "What is the {A} of {L}?", "what's the {A} for {L}", "{L} {A}?", "{L}, {A}",
                      "{A} of the verb {L}", "Tell me the {A} of '{L}'"),
    ("plain", "es"): ("{A} de {L}", "¿Cuál es {art} {A} de {L}?", "{L}, {A}", "¿{A} de {L}?", "{A} del verbo {L}",
                      "cual es {art} {A} de {L}"),
    ("paraphrase", "en"): ("I forgot how '{L}' looks in the {A}", "can you remind me of the {A} of {L}?",
                           "how do I write {L} in the {A}?", "what does {L} become in the {A}?",
                           "I need {L} in the {A}, what is it?", "how would you put {L} into the {A}"),
    ("paraphrase", "es"): ("no me acuerdo de {art} {A} de {L}", "¿cómo queda {L} en {A}?", "¿cómo se escribe {L} en {A}?",
                           "necesito {L} en {A}", "¿en qué se convierte {L} en {A}?", "ayúdame con {art} {A} de {L}"),
    ("blank", "en"): ("___ ({L}, {A})", "fill in the gap: ___ ({L}, {A})", "which form goes in the blank? ___ ({L}, {A})"),
    ("blank", "es"): ("___ ({L}, {A})", "completa: ___ ({L}, {A})", "¿qué forma va en el hueco? ___ ({L}, {A})"),
    ("alternatives", "en"): ("{X} or {Y}?", "{L}: {X} or {Y}?", "is it {X} or {Y}? ({A} of {L})", "{A} of {L}, {X} or {Y}?"),
    ("alternatives", "es"): ("¿{X} o {Y}?", "{L}: ¿{X} o {Y}?", "¿se dice {X} o {Y}? ({A} de {L})", "{A} de {L}, ¿{X} o {Y}?"),
    ("confirmation", "en"): ("is it {X}? ({A} of {L})", "{A} of {L} is {X}, right?", "{L} in the {A}: is it '{X}'?"),
    ("confirmation", "es"): ("¿es {X}? ({A} de {L})", "{A} de {L} es {X}, ¿verdad?", "{L} en {A}: ¿es «{X}»?"),
    ("cross", "en"): ("{N} {A} of {L}", "what's the {A} of {L} in {N}?", "{A} of the {N} verb {L}", "how do you say {L} in the {A} in {N}?"),
    ("cross", "es"): ("¿{A} del verbo {N} {L}?", "¿cuál es {art} {A} de '{L}' en {N}?", "{A} de {L} en {N}"),
    ("meaning", "en"): ("What does '{L}' mean?", "meaning of {L}?", "what is '{L}' in {M}?", "{L} means what?"),
    ("meaning", "es"): ("¿Qué significa '{L}'?", "¿qué quiere decir {L}?", "¿cómo se dice '{L}' en {M}?"),
    ("rule", "en"): ("{H}: when do I use {K}?", "why {K}? ({H})", "when is it {K}?", "how does {K} work in {H}?"),
    ("rule", "es"): ("{H}: ¿cuándo se usa {K}?", "¿por qué {K}? ({H})", "¿cuándo va {K}?", "¿cómo funciona {K}?"),
}
FAMILIES = ("plain", "paraphrase", "blank", "cross", "alternatives", "confirmation")  # the last two: short values
LANGUAGE_COLUMNS = {k: {"en": v[0], "es": v[1]} for k, v in (
    ("english", ("English", "inglés")), ("ingles", ("English", "inglés")), ("spanish", ("Spanish", "español")),
    ("espanol", ("Spanish", "español")), ("spanish word", ("Spanish", "español")))}
CONSONANTS, VOWELS = list("bcdfglmnprstv"), list("aeiou")
FEMININE = ("a", "ión", "dad", "tad", "tud", "umbre")


def misspell(word: str, rng: np.random.Generator) -> str:
    """One learner's slip: accents dropped, a letter doubled, dropped, or two swapped."""
    if len(word) < 4:
        return word
    if fold_accents(word) != word and rng.random() < 0.5:
        return fold_accents(word)
    i = int(rng.integers(1, len(word) - 1))
    roll = rng.random()
    if roll < 0.33:
        return word[:i] + word[i] + word[i:]
    if roll < 0.66:
        return word[:i] + word[i + 1:]
    return word[:i - 1] + word[i] + word[i - 1] + word[i + 1:]


def article(phrase: str) -> str:
    last = phrase.split()[-1] if phrase.split() else phrase
    return "la" if last.endswith(FEMININE) else "el"


class Synthesizer:
    def __init__(self, docs: list[dict], terms: GrammarTerms, rng: np.random.Generator):
        self.terms, self.rng = terms, rng
        self.rows = [(doc, heading, header, row) for doc in docs for _, _, heading, header, row in table_rows(doc)]
        self.prose = [f for f in sentence_facts(docs) if f.kind in ("arrow", "gloss", "definition")]
        self.titles = {d["doc_id"]: d.get("title", "") for d in docs}
        self.lines = [(d, heading, ln.text) for d in docs for heading, lines in doc_sections(d) for ln in lines
                      if ln.kind != "row" and 6 <= len(ln.text.split()) <= 30]
        counts: dict[str, int] = {}
        for _, _, text in self.lines:
            for w in set(LETTERS_RE.findall(fold(text))):
                counts[w] = counts.get(w, 0) + 1
        self.df = counts
        self.known = {fold(c) for _, _, _, row in self.rows for c in row} | set(counts)

    def pick(self, items):
        return items[int(self.rng.integers(len(items)))]

    def phrase(self, concepts: list[str], lang: str) -> str:
        """The concepts in `lang`, the plainest phrase most of the time."""
        out = []
        for c in sorted(concepts, key=lambda c: c.startswith("person")):
            options = self.terms.by_lang.get(c, {}).get(lang) or [c.split(":")[1].replace("_", " ")]
            out.append(options[0] if self.rng.random() < 0.6 else self.pick(options[:3]))
        return ", ".join(out) if lang == "es" and len(out) > 1 else " ".join(out)

    def render(self, family: str, lang: str, **slots) -> str:
        template = self.pick(TEMPLATES[(family, lang)])
        return template.format(art=article(slots.get("A", "")), **{k: v for k, v in slots.items()})

    def row_question(self, invented: str = "") -> tuple[str, str | None, str, str, str]:
        """(query, answer, family, lang, source) of a random table cell (about `invented` instead of
        its lemma, when given: a question the corpus cannot answer)."""
        doc, heading, header, row = self.pick(self.rows)
        j = int(self.rng.integers(1, len(row)))
        others = [c for c in row[1:] if c and c != row[j] and fold(c) != fold(row[j])]
        return self.cell_question(row[0], header[j], row[j], f"{self.titles[doc['doc_id']]} {heading}", doc["lang"],
                                  others, f"{doc['doc_id']} row {row[0]} · {header[j]}", invented)

    def cell_question(self, key: str, column: str, value: str, caption: str, doc_lang: str, others: list[str],
                      source: str, invented: str = "") -> tuple[str, str | None, str, str, str]:
        """A question for one cell (its row key, column header and the caption above its table), in one of
        the families, with `others` (the row's other cells) as the wrong forms it may offer."""
        if fold(column) in LANGUAGE_COLUMNS:  # "| English | Español |": a translation
            qlang = self.pick(["en", "es"])
            slots = {"L": invented or key, "M": LANGUAGE_COLUMNS[fold(column)][qlang]}
            return self.render("meaning", qlang, **slots), value, "meaning", qlang, source
        lemma, attribute = (column, key) if self.terms.labels(key) and not self.terms.labels(column) else (key, column)
        concepts = sorted(self.terms.labels(attribute))
        dims = {c.split(":")[0] for c in concepts}
        concepts += sorted(c for c in self.terms.concepts(caption) if c.split(":")[0] not in dims)
        family = self.pick(FAMILIES if len(value.split()) <= 3 else FAMILIES[:3])
        qlang = doc_lang if family != "cross" else ("es" if doc_lang == "en" else "en")
        if family == "cross" and not concepts:
            family, qlang = "plain", doc_lang
        A = self.phrase(concepts, qlang) if concepts else attribute.lower()
        L = invented or (misspell(lemma, self.rng) if self.rng.random() < 0.15 else lemma)
        wrong = self.pick(others) if others and self.rng.random() < 0.6 else misspell(value, self.rng)
        X, Y = (value, wrong) if self.rng.random() < 0.5 else (wrong, value)
        if family == "confirmation":
            X = value if self.rng.random() < 0.5 else wrong
        slots = {"L": L, "A": A, "V": value, "X": X, "Y": Y, "N": LANG_NAME[qlang].get(doc_lang, doc_lang)}
        return self.render(family, qlang, **slots), value, family, qlang, source

    def prose_question(self, f: Fact | None = None) -> tuple[str, str | None, str, str, str]:
        """A question for an arrow ("stop → stopped"), a gloss or a definition (a random one unless given)."""
        f = f or self.pick(self.prose)
        lang = f.lang if f.lang in ("en", "es") else "en"
        if f.kind == "arrow":
            concepts = sorted(self.terms.concepts(f"{self.titles[f.doc_id]} {f.heading}"))
            if concepts:
                return (self.render("plain", lang, L=f.key, A=self.phrase(concepts, lang)), f.value, "plain", lang,
                        f"{f.doc_id} {f.origin}")
            return f"{f.heading}: {f.key} → ?", f.value, "plain", lang, f"{f.doc_id} {f.origin}"
        qlang = self.pick(["en", "es"])
        return (self.render("meaning", qlang, L=f.key, M=LANG_NAME[qlang]["en" if lang == "es" else "es"]), f.value,
                "meaning", qlang, f"{f.doc_id} {f.origin}")

    def fact_question(self, f: Fact) -> str:
        """A learner's question about a reading fact (facts.py): a table cell or a prose line."""
        if f.kind == "row":
            return self.cell_question(f.key, f.relation, f.value, f"{self.titles[f.doc_id]} {f.heading}", f.lang,
                                      list(f.alternatives), f.doc_id)[0]
        return self.prose_question(f)[0]

    def rule_question(self) -> tuple[str, str | None, str, str, str]:
        doc, heading, text = self.pick(self.lines)
        ws = sorted(set(LETTERS_RE.findall(fold(text))) - {fold(w) for w in heading.split()},
                    key=lambda w: (self.df.get(w, 0), w))
        K = " ".join(w for w in ws[:3] if len(w) > 2) or heading
        lang = doc["lang"] if doc["lang"] in ("en", "es") else "en"
        return self.render("rule", lang, H=heading, K=K), text, "rule", lang, f"{doc['doc_id']} {heading}"

    def absent_question(self) -> tuple[str, str | None, str, str, str]:
        """A table question about a lemma the corpus lacks, or in a language it does not teach."""
        if self.rng.random() < 0.5:
            query, _, _, lang, source = self.row_question()
            return f"{query} ({self.pick(OTHER_LANGS[lang])})", None, "absent", lang, source
        invented = ""
        while not invented or invented in self.known:
            invented = "".join(self.pick(CONSONANTS) + self.pick(VOWELS) for _ in range(3)) + self.pick(["r", "", "s"])
        query, _, _, lang, _ = self.row_question(invented)
        return query, None, "absent", lang, f"invented {invented}"


def synthesize(docs: list[dict], terms: GrammarTerms, n: int, seed: int = 0, lexicon: dict | None = None,
               shares: tuple[float, ...] = (0.55, 0.15, 0.12, 0.08, 0.1)) -> list[LearnerQuestion]:
    """n questions: table cells, arrows and glosses, rules, unanswerable ones and (given the lexicon)
    English phrases to say in Spanish (learner_translations.py) in `shares`; seeded, each question once
    (same documents and seed: the same questions in the same order)."""
    rng = np.random.default_rng([seed, 24])
    s = Synthesizer(docs, terms, rng)
    out, seen = [], set()
    if lexicon is not None:
        for query, answer, source in translation_questions(docs, terms, lexicon, int(round(shares[4] * n)), rng):
            seen.add(query)
            qid = "lq-" + hashlib.sha256(f"{query}\x1f{answer}".encode("utf-8")).hexdigest()[:12]
            out.append(LearnerQuestion(qid, query, answer, "translation", "en", source))
    makers: list[Callable] = [s.row_question, s.prose_question, s.rule_question, s.absent_question]
    live = np.array([bool(s.rows), bool(s.prose), bool(s.lines), bool(s.rows)], dtype=float) * np.array(shares[:4])
    if not live.sum():
        return out
    for _ in range(4 * n):
        if len(out) == n:
            break
        query, answer, family, lang, source = makers[int(rng.choice(4, p=live / live.sum()))]()
        query = " ".join(query.split())
        if query in seen:
            continue
        seen.add(query)
        qid = "lq-" + hashlib.sha256(f"{query}\x1f{answer}".encode("utf-8")).hexdigest()[:12]
        out.append(LearnerQuestion(qid, query, answer, family, lang, source))
    return out


def asker(docs: list[dict], rng: np.random.Generator) -> Synthesizer:
    """What phrases a reading task's fact as a learner's question (answer/reading/tasks.py): the grammar's
    "questions.asker", over the concepts' own names."""
    return Synthesizer(docs, GrammarTerms.base(), rng)
