"""The report's notes on pretrained encoders: hit@5 by language, where the model is weak, and
a warning when its tokenizer cannot represent the corpus's text.

The warning reads what the embed stage measured (index/coverage.py, the vectors' sidecar) and
fires per language, whatever the corpus's number of languages: an English model on an
all-Arabic corpus has no better language to be compared with, and is flagged all the same.
Its limits (`CoverageLimits`) sit well apart from what was measured with all-MiniLM-L6-v2:
single letters and unknown tokens are 5-6 % of the word pieces on English (KB, SciFact) and
9 % on Spanish (KB), 95 % on Arabic (ARCD); texts cut at 256 tokens: none of the KB's chunks,
71 % of SciFact's abstracts, 75 % of ARCD's passages.

What it leaves out: the slices table itself (tables.py) and the rest of the report (markdown.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..artifacts.integrity import load_json
from ..index.coverage import shares
from ..settings import setting

COVERAGE = ("**Warning:** `{embedder}` (`{path}`) cannot represent the corpus's `{lang}` text: {letters:.0%} of the "
            "word pieces it reads are single letters or unknown tokens ({texts:,} texts), so it embeds spellings, not "
            "words; read its runs ({runs}) as a model that did not understand these texts.")
TRUNCATED = ("**Note:** {truncated:.0%} of the corpus's `{lang}` texts are longer than `{embedder}`'s maximum sequence "
             "length and cut there: it embeds their beginning only.")


@dataclass(frozen=True)
class CoverageLimits:
    """Above these shares the report warns about a pretrained encoder's view of a language."""
    letters: float = setting(0.25, minimum=0, maximum=1)    # word pieces that are single letters or unknown
    truncated: float = setting(0.25, minimum=0, maximum=1)  # texts cut at the model's maximum length


def pretrained_notes(corpus, main: list[str], slices) -> list[str]:
    """For each pretrained encoder's run, its hit@5 by language, and the languages it is weak on
    (more than 0.15 below its best language): a model trained on English is, and the report says so."""
    out = []
    for r in main:
        embedder = corpus.retrievers[r].ranking_embedder()
        if not embedder or not corpus.embedders[embedder].pretrained:
            continue
        by_lang = {row["lang"]: row[r] for _, row in slices.iterrows() if row["difficulty"] == "all"}
        langs = {lang: v for lang, v in by_lang.items() if lang != "all"}
        best = max(langs.values(), default=0.0)
        weak = [f"{lang} ({v:.3f})" for lang, v in langs.items() if v < best - 0.15]
        figures = ", ".join(f"{lang} {v:.3f}" for lang, v in by_lang.items())
        note = f"`{r}` is a pretrained encoder (`{corpus.embedders[embedder].s.path}`): hit@5 {figures}."
        if weak:
            note += f" It is weak on {', '.join(weak)} against {best:.3f} on its best language: read it as a model of that language."
        out.append(note + "\n")
    return out


def coverage_notes(t, limits: CoverageLimits = CoverageLimits()) -> list[str]:
    """Per pretrained embedder a dense run reads, and per language, a warning when its tokenizer
    spells the text out letter by letter, and a note when it cuts most texts short."""
    out = []
    for e, kind in t.corpus.embedders.items():
        runs = [r for r in t.main if t.corpus.retrievers[r].embedder() == e]
        if not kind.pretrained or not runs:
            continue
        tokens = load_json(t.layout.vectors_sidecar(e), "vectors sidecar").get("tokens", {})
        for lang, counts in tokens.items():
            share = shares(counts)
            letters = share["unknown"] + share["single_char"]
            if letters > limits.letters:
                out.append(COVERAGE.format(embedder=e, path=kind.s.path, lang=lang,
                                           letters=letters, texts=counts["texts"],
                                           runs=", ".join(f"`{r}`" for r in runs)) + "\n")
            if share["truncated"] > limits.truncated:
                out.append(TRUNCATED.format(truncated=share["truncated"], lang=lang, embedder=e) + "\n")
    return out
