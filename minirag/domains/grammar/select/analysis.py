"""Question analysis: what a learner's question asks about and what it asks for, read through the corpus.

    analyze("pretérito de venir, yo", vocab)
    -> lemmas {"venir": 1.0}, concepts {"tense:preterite", "person:1s"}, asks "form"

- **What about** (`lemmas`, folded word -> strength): a word of the question that is a key of the
  corpus's tables (a row's first cell, a column naming a verb: *venir*, *bad*, *mouse*) counts 1.0; a
  form the lexicon maps to its lemma ("went" -> go) 0.8; a translation the lexicon pairs with it
  ("to know" -> saber, conocer) 0.7, or with a form's lemma ("gave" -> give -> dar) 0.6; a word the
  corpus never writes that is one edit from a key or form, or shares its stem (a misspelling or an
  invented form: "cojer", "bringed") 0.5. When the question quotes something, or hints the verb after
  a blank ("___ (venir)"), lemmas from elsewhere count 0.6 as much: "is it right to say «yo sabo»?" is
  about saber, not decir. Quoted words are kept apart too (`quoted`).
- **What for** (`concepts`): the grammatical concepts the question names (terms.py): a person, a tense
  or mood, a form, a degree, a number; weak mentions (an unquoted "I") apart in `weak`. A word or a
  blank after an auxiliary "have" ("I have forgot...", "había ___", «he rompido») asks for the past
  participle, a blank after "to be" for the gerund, a blank after a pronoun for its person; a
  quoted form names what its table says it is ('I gave' in Spanish: the preterite, first person); a
  quoted exclamation is a command ('don't do it!': the negative imperative); a form the corpus never
  writes is read by its ending, as the corpus's own forms with that ending are ("hació": preterite).
- **How** (`asks`): "choice" when it offers options ("sank or sunk?"), "rule" for when / why / how is it
  formed, "meaning" for what does X mean / how do you say X, else "form"; `target_lang` when it names
  the language of the answer ("in Spanish", "en inglés"); `source_lang` when what it quotes (or says
  unquoted: "how do you say broken in Spanish?") is in the other one of the corpus's languages: it asks
  for the counterpart of the quoted term ("¿cómo se dice 'broken' en español?" wants roto, not broken).

What it leaves out: parsing (the question is words and phrases), and any list per question: every
table key, form and translation comes from the corpus (the chunks and the lexicon stage).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..language.slots import implied_tenses
from .terms import fold, quoted_spans
from .vocabulary import TERM_OR_ENDING_RE, Vocabulary, filler

OPTION_RE = re.compile(r"([^\W\d_][\w'’ -]{0,40}?)\s+(?:or|o|u)\s+([^\W\d_][\w'’ -]{0,40}?)(?=\s*[?¿,.!)]|$)")
RULE_RE = re.compile(r"\b(?:when|why|cuando|por que|porque|how (?:do|does|is|are) (?:you |i |we )?(?:form|make|use|"
                     r"build)|difference|diferencia|como se forma|se forma|rule|regla|explain|explica|usa|use)\b")
MEANING_RE = re.compile(r"\b(?:mean|means|meaning|significa|significado|quiere decir|how do (?:you|i) say|"
                        r"como se dice|como digo|translate|traduce|in english|en ingles|in spanish|en espanol)\b")
LANG_RE = {"es": re.compile(r"\b(?:spanish|espanol|castellano)\b"), "en": re.compile(r"\b(?:english|ingles|inglesa)\b"),
           # a language the corpus does not teach: what is asked about it is not in the corpus
           "other": re.compile(r"\b(?:french|frances|francesa|german|aleman|alemana|italian|italiano|italiana|portuguese|"
                               r"portugues|portuguesa|catalan|catalana|japanese|japones|chinese|chino|latin|russian|"
                               r"ruso|arabic|arabe|dutch|holandes)\b")}
# A quoted exclamation is a command: 'go to the shop!', «¡no lo hagas!»; "don't"/"no" first makes it negative
# (so does a quoted "no ..." when the question names the imperative: «no sal»).
COMMAND_RE = re.compile(r"['‘\"“«¡]\s*([^\"“”«»!?¡]{1,60}?)!")
NEGATIVE_RE = re.compile(r"(?:don'?t|do not|no|never|nunca)\b")
# A form after an auxiliary "have" is a past participle: "I have forgot or I have forgotten?", "había ___",
# «he rompido».
SPANISH_PERFECT_RE = re.compile(r"\b(?:he|has|ha|hemos|habeis|han|habia|habian|haya)\s+(?:_{2,}|[^\W\d_]+"
                                r"(?:ado|ido|to|so|cho))\b")
PARTICIPLE_RE = re.compile(r"\b(?:have|has|had|'ve|i've|we've|you've|they've)\s+(?!to\b)(?:_{2,}|[^\W\d_]+)|"
                           + SPANISH_PERFECT_RE.pattern)
# A blank after "to be" wants the -ing form: "Estoy ___ la verdad", "she is ___ now".
GERUND_RE = re.compile(r"\b(?:estoy|estas|esta|estamos|estais|estan|estaba|estaban|am|is|are|was|were)\s+_{2,}")
# A match starts where a run of letters (or of underscores) starts, never inside one: tried at every
# letter of a word, the word's rest was matched again each time, quadratic in its length (a
# 16,000-letter query took 9 s). The leftmost match starts there anyway, so the matches are the same.
SUBJECT_RE = re.compile(r"(?<![^\W\d_])([^\W\d_]+(?: / [^\W\d_]+)?)\s+_{2,}")  # the word before a blank
HINT_RE = re.compile(r"(?<!_)_{2,}[^()]{0,80}\(([^()]{1,40})\)")  # "___ ... (venir, yo)": the lemma asked about
OTHER_LANG = {"en": "es", "es": "en"}
TRANSLATE_RE = re.compile(r"\b(?:how (?:do|would|can|should|could) (?:you|i|we|one) say|como se dice|como (?:digo|decir)|"
                          r"translat\w*|traduc\w*)\b")
# "how do you say X in Spanish?" with X unquoted: X is what it quotes
SAY_RE = re.compile(r"\b(?:how (?:do|would|can|should|could) (?:you|i|we|one) (?:say|write)|como se (?:dice|escribe)|"
                    r"como (?:digo|decir)|translate|traduce|traducir)\s+(?P<body>[^\W\d_][^?¿!.,;:()'‘’\"“”«»*]{0,40}?)"
                    r"\s+(?:in|into|en|al)\s+(?:english|spanish|espanol|ingles|castellano)\b")
# the concept of a tense a construction calls for (text/slots.py labels); the imperative and the conditional
# the selector reads itself (a quoted command, "would" in the terms file)
CONSTRUCTION_MOODS = {"subjunctive-present": "mood:subjunctive", "subjunctive-imperfect": "mood:imperfect_subjunctive"}
LANGUAGE_WORDS = {"english", "ingles", "spanish", "espanol", "castellano", "verb", "verbo", "word", "palabra",
                  "form", "forma", "tense", "tiempo", "say", "dice", "digo", "correct", "correcto", "right", "wrong"}


@dataclass
class QuestionAnalysis:
    """What a question asks: its words, lemmas, forms, concepts and options."""
    query: str
    folded: str
    words: list[str]                                  # content words, folded, in order
    unknown: list[str] = field(default_factory=list)  # those the corpus never writes nor nearly ("peru")
    lemmas: dict[str, float] = field(default_factory=dict)   # what it is about -> strength
    forms: set[str] = field(default_factory=set)      # words of the question that are forms of a lemma
    quoted: list[str] = field(default_factory=list)   # quoted or emphasised stretches, folded
    options: list[str] = field(default_factory=list)  # the alternatives it offers, folded
    concepts: set[str] = field(default_factory=set)   # named strongly: "tense:preterite", "person:1s"
    weak: set[str] = field(default_factory=set)       # named only weakly (an unquoted "I")
    asks: str = "form"                                # "form" | "choice" | "rule" | "meaning"
    target_lang: str = ""                             # "en" | "es" | "other" (a third language) | ""
    source_lang: str = ""                             # the quoted term's language when it is not target_lang
    own: set[str] = field(default_factory=set)        # source_lang: the lemmas the quoted term is a form of

    def option_of(self, key: str) -> str:
        """The one option a candidate's answer key belongs to, as the question writes it ("" if none or two)."""
        hits = [o for o in self.options if f" {key} " in f" {' '.join(TERM_OR_ENDING_RE.findall(o))} "] if key else []
        if len(hits) != 1:
            return ""
        at = self.folded.find(hits[0])
        same = len(self.folded) == len(self.query) and at >= 0
        return self.query[at:at + len(hits[0])] if same else hits[0]

    def asked_text(self) -> str:
        """The folded question without what it quotes or offers: the words it asks with."""
        text = self.folded
        for q in sorted(set(self.quoted) | set(self.options), key=len, reverse=True):
            text = text.replace(q, " ")
        return text

    def dimensions(self) -> set[str]:
        return {c.split(":", 1)[0] for c in self.concepts}

    def to_record(self) -> dict:
        return {"lemmas": {k: round(v, 3) for k, v in sorted(self.lemmas.items())}, "quoted": self.quoted,
                "options": self.options, "concepts": sorted(self.concepts), "weak": sorted(self.weak - self.concepts),
                "asks": self.asks, "target_lang": self.target_lang,
                **({"source_lang": self.source_lang, "own": sorted(self.own)} if self.source_lang else {})}


def phrases(words: list[str], longest: int = 3) -> list[str]:
    """The words and their runs of 2..longest, longest first."""
    return [" ".join(words[i:i + n]) for n in range(longest, 0, -1) for i in range(len(words) - n + 1)]


def analyze(query: str, vocab: Vocabulary) -> QuestionAnalysis:
    """What `query` asks about and for (module docstring)."""
    folded = fold(query)
    mentions = vocab.terms.find(query)
    a = QuestionAnalysis(query, folded, [])
    a.concepts = {m.concept for m in mentions if m.strong}
    a.weak = {m.concept for m in mentions if not m.strong}
    a.quoted = [" ".join(folded[s:e].split()) for s, e in said_spans(folded)]
    a.options = question_options(folded, a.quoted)
    read_cues(a, vocab)
    covered = [(m.start, m.end) for m in mentions if m.strong]
    spans = [(m.group(), m.start(), m.end()) for m in TERM_OR_ENDING_RE.finditer(folded)]
    free = [(w, s) for w, s, e in spans if not any(a0 <= s and e <= a1 for a0, a1 in covered)]
    a.words = [w for w in dict.fromkeys(w for w, _ in free) if w not in filler()]
    # outside what it quotes or offers (a learner's own forms, right or wrong: "swiming or swimming?"), the
    # words the corpus never writes nor nearly ("catched" is a slip for a form it writes; "peru" is not)
    asked = set(TERM_OR_ENDING_RE.findall(a.asked_text()))
    a.unknown = [w for w in a.words if w in asked and w not in vocab.words and not vocab.near(w)]
    focus = focus_spans(folded)
    inside = [w for w, s in free if any(f0 <= s < f1 for f0, f1 in focus)]
    outside = [w for w, s in free if not any(f0 <= s < f1 for f0, f1 in focus)]
    a.lemmas = find_lemmas(inside, vocab, a)
    # what is quoted or hinted "(venir)" is what is asked about; the words around it ask ("is it right to say")
    weight = 0.6 if a.lemmas else 1.0
    for lemma, strength in find_lemmas(outside, vocab, a).items():
        a.lemmas[lemma] = max(a.lemmas.get(lemma, 0.0), strength * weight)
    named = [lang for lang, rx in LANG_RE.items() if rx.search(folded)]
    a.target_lang = "other" if "other" in named else named[0] if named else ""
    if a.quoted and not a.options and a.target_lang in ("en", "es"):
        # "how do you say X in L" says X in the other language; else what the corpus's use of X's words says
        said = OTHER_LANG[a.target_lang] if TRANSLATE_RE.search(folded) else vocab.language(" ".join(a.quoted))
        a.source_lang = said if said == OTHER_LANG[a.target_lang] else ""
    if a.source_lang:  # the quoted term's own lemmas (a key or a form of it), not their translations
        a.own = {lemma for lemma, strength in find_lemmas(inside, vocab, QuestionAnalysis(query, folded, [])).items()
                 if strength >= 0.8}
    a.asks = ("choice" if a.options else "meaning" if MEANING_RE.search(folded) and not a.concepts
              else "rule" if RULE_RE.search(folded) else "form")
    return a


def said_spans(folded: str) -> list[tuple[int, int]]:
    """Its quoted stretches; with none, the X of "how do you say X in Spanish?" / "¿cómo se dice X en inglés?"."""
    return quoted_spans(folded) or [(m.start("body"), m.end("body")) for m in SAY_RE.finditer(folded)]


def focus_spans(folded: str) -> list[tuple[int, int]]:
    """Where a question names what it asks about: its quotes (or what it asks to say), and a hint in
    brackets after a blank ("___ (venir, yo)")."""
    return said_spans(folded) + [(m.start(1), m.end(1)) for m in HINT_RE.finditer(folded)]


def find_lemmas(words: list[str], vocab: Vocabulary, a: QuestionAnalysis) -> dict[str, float]:
    """The lemmas the words name (module docstring: keys, forms, translations, misspellings)."""
    out: dict[str, float] = {}

    def add(lemma: str, strength: float) -> None:
        out[lemma] = max(out.get(lemma, 0.0), strength)

    plain = [w for w in words if w not in filler() or w == "to"]
    for p in phrases(plain):
        if p in vocab.keys and not vocab.terms.concepts(p):
            add(p, 1.0)
        for lemma in vocab.forms.get(p, []):
            if lemma != p:
                a.forms.add(p)
            add(lemma, 0.8 if lemma != p else 1.0)
            for other in vocab.lexicon.get(lemma, []) + vocab.lexicon.get(f"to {lemma}", []):
                add(other.removeprefix("to "), 0.6)
        for other in vocab.lexicon.get(p, []) + vocab.lexicon.get(f"to {p}", []):
            if other not in filler():
                add(other, 0.7)
                add(other.removeprefix("to "), 0.7)
    for w in (w for w in plain if w not in filler()):
        if w not in out and len(w) >= 4 and w not in vocab.words and w not in LANGUAGE_WORDS:
            for k in vocab.near(w):
                add(k, 0.5)
    return out


def read_cues(a: QuestionAnalysis, vocab: Vocabulary) -> None:
    """Concepts a question implies without naming them (module docstring), added where it names none
    of the dimension: a blank's auxiliary and subject, a quoted command, a quoted or unknown form."""
    def imply(*concepts: str) -> None:
        dims = a.dimensions()
        a.concepts |= {c for c in concepts if c.split(":")[0] not in dims}

    text = a.folded
    if PARTICIPLE_RE.search(text):
        imply("form:past_participle")
        if SPANISH_PERFECT_RE.search(text):
            a.concepts.discard("person:3s")  # «he rompido»: Spanish "he" is haber, not the English pronoun
    if GERUND_RE.search(text):
        imply("form:gerund")
    for m in SUBJECT_RE.finditer(text):  # "yo ___", "they ___": the blank's person
        imply(*(x.concept for x in vocab.terms.find(m.group(1)) if x.dimension == "person"))
    # a construction calls for a mood: "quiero que ___", "if I were rich" (text/data/constructions.txt)
    imply(*(CONSTRUCTION_MOODS[t] for t in implied_tenses(a.query) if t in CONSTRUCTION_MOODS))
    command = next((m.group(1).strip() for m in COMMAND_RE.finditer(text) if m.group(1).strip()), "")
    if command:
        imply("mood:imperative")
    if "mood:imperative" in a.concepts and any(NEGATIVE_RE.match(q) for q in a.quoted + [command]):
        imply("polarity:negative")
    if not a.options:  # a quoted form says what it is: 'I gave' in Spanish asks for the preterite
        for w in (w for q in a.quoted for w in TERM_OR_ENDING_RE.findall(q)):
            if w in vocab.forms and w not in vocab.keys:  # a conjugated form, not a word such as "comida"
                imply(*vocab.form_concepts.get(w, ()))
    for w in TERM_OR_ENDING_RE.findall(text):  # a form the corpus never writes ("hació", "catched") by its ending
        if w not in vocab.words and len(w) >= 4:
            ending = next((w[-n:] for n in (4, 3, 2) if w[-n:] in vocab.suffix_concepts), "")
            imply(*vocab.suffix_concepts.get(ending, ()))


def question_options(folded: str, quoted: list[str]) -> list[str]:
    """The alternatives a question offers: two or more quoted stretches, else "X or Y" / "X o Y"
    (the words next to the conjunction)."""
    if len(quoted) >= 2:
        return list(dict.fromkeys(quoted))
    m = OPTION_RE.search(folded)
    if not m:
        return []
    left, right = m.group(1).split(), m.group(2).split()
    if not left or not right:
        return []
    n = min(len(left), len(right), 3)
    # "I have forgot or I have forgotten": the options are as long as the shorter side
    return list(dict.fromkeys([" ".join(left[-n:]), " ".join(right[:n])]))
