"""A document's language from its commonest words, for documents that do not say theirs.

    detect("The grinder weighs 3.1 kg and the hopper holds 250 g.") -> "en"
    detect("El molinillo pesa 3,1 kg.") -> "es";  detect("3.1 kg") -> None (too few words to tell)

Each language has a short list of its most frequent function words (articles, prepositions, pronouns,
auxiliaries); the language whose words make up the largest share of the text's words wins, when that
share is at least MIN_SHARE and the text has MIN_WORDS words. Function words are the classic signal
for telling languages apart in running text (Grefenstette 1995, "Comparing two language
identification schemes").

What it leaves out: languages not listed (their documents get the corpus's default_lang, else "und"),
and mixed-language documents (the majority wins).
"""

from __future__ import annotations

from .words import LETTERS_RE

WORDS = {
    "en": "the of and to in is that it for was on are with as be this by at from or have not which an you your".split(),
    "es": "de la que el en y los del se las por un para con una su al es lo como más pero sus le ya o este".split(),
    "fr": "de la le et les des en un une du est que pour dans qui par sur pas au avec ce il sont plus ou".split(),
    "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden".split(),
    "it": "di e il la che in per un del della è non una con sono le si gli da come più al alla anche".split(),
    "pt": "de a o que e do da em um para é com não uma os no se na por mais as dos como mas ao".split(),
}
MIN_WORDS, MIN_SHARE = 8, 0.12


def detect(text: str) -> str | None:
    """The language code whose function words are the largest share of `text`'s words, or None."""
    words = [w.lower() for w in LETTERS_RE.findall(text[:20_000])]
    if len(words) < MIN_WORDS:
        return None
    shares = {lang: sum(w in vocab for w in words) / len(words) for lang, vocab in VOCABS.items()}
    lang = max(sorted(shares), key=lambda k: shares[k])
    return lang if shares[lang] >= MIN_SHARE else None


VOCABS = {lang: frozenset(ws) for lang, ws in WORDS.items()}
