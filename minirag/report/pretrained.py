"""The report's note on pretrained encoders: hit@5 by language, and where the model is weak.

What it leaves out: the slices table itself (tables.py) and the rest of the report (markdown.py).
"""

from __future__ import annotations

from ..index.embedders import PretrainedSettings
from ..rank.kinds import kind_of


def pretrained_notes(cc: dict, main: list[str], slices) -> list[str]:
    """For each pretrained encoder's run, its hit@5 by language, and the languages it is weak on
    (more than 0.15 below its best language): a model trained on English is, and the report says so."""
    out = []
    for r in main:
        kind = kind_of(cc, r)
        embedder = kind.embedder() if kind.family == "channel" else None
        if not embedder or cc["embedders"][embedder]["type"] != "pretrained":
            continue
        by_lang = {row["lang"]: row[r] for _, row in slices.iterrows() if row["difficulty"] == "all"}
        langs = {lang: v for lang, v in by_lang.items() if lang != "all"}
        best = max(langs.values(), default=0.0)
        weak = [f"{lang} ({v:.3f})" for lang, v in langs.items() if v < best - 0.15]
        figures = ", ".join(f"{lang} {v:.3f}" for lang, v in by_lang.items())
        note = f"`{r}` is a pretrained encoder (`{cc['embedders'][embedder].get('path', PretrainedSettings.path)}`): hit@5 {figures}."
        if weak:
            note += f" It is weak on {', '.join(weak)} against {best:.3f} on its best language: read it as a model of that language."
        out.append(note + "\n")
    return out
