"""Questions synthesized from a corpus's own tables and headings, to train a reranker without labels.

A table row with a header is a fact a learner asks about: under `| Base form | Past simple |
Past participle |`, the row `| begin | began | begun |` answers "what is the past participle of
begin?", "begin past participle", "¿cuál es el past participle de begin?", and, asked back,
"begun?". Each template fills a row's key (its first cell), a column's header and the cell;
learners' misspellings are added by dropping an accent, a letter, or swapping two. A heading
gives "what is <heading>?". Every question carries the character span of its answer in its
document, so a chunk is relevant when it overlaps that span, as for the real questions.

What it leaves out: questions about prose (only tables and headings are templated), and
checking that a question is natural; the reranker only needs which chunk holds the answer.
"""

from __future__ import annotations

import re

import numpy as np

from ..text.structure import DocumentStructure
from ..text.words import fold_accents

TEMPLATES = (
    "what is the {header} of {key}?", "{header} of {key}", "{key} {header}", "how do you say {key} in {header}?",
    "¿cuál es el {header} de {key}?", "{key} en {header}", "¿cómo es {key} en {header}?",
)
BACK = ("{cell}?", "what is {cell}?", "¿qué es {cell}?", "is {cell} right?")
HEADING = ("what is {heading}?", "¿qué es {heading}?", "{heading}", "explain {heading}")
MARKUP_RE = re.compile(r"[*_`]|\([^)]*\)")


def clean(cell: str) -> str:
    return " ".join(MARKUP_RE.sub(" ", cell).split()).strip(" .,;:")


def cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def misspell(word: str, rng: np.random.Generator) -> str:
    """A learner's slip: accents dropped, a letter dropped or doubled, two letters swapped."""
    kind = rng.integers(4)
    if kind == 0:
        return fold_accents(word)
    if len(word) < 4:
        return word
    i = int(rng.integers(1, len(word) - 1))
    if kind == 1:
        return word[:i] + word[i + 1:]
    if kind == 2:
        return word[:i] + word[i] + word[i:]
    return word[:i - 1] + word[i] + word[i - 1] + word[i + 1:]


def candidates(docs: list[dict]) -> list[tuple[str, str, int, int]]:
    """Every (template, filled query, doc_id, answer span) the corpus offers, in document order."""
    out = []
    for d in docs:
        s = DocumentStructure(d["text"])
        for table in s.tables:
            header = [clean(h) for h in cells(table.header)]
            pos = table.rows_start
            for row in d["text"][table.rows_start:table.end].split("\n"):
                lo, hi = pos, pos + len(row)
                pos = hi + 1
                values = [clean(c) for c in cells(row)]
                if len(values) != len(header) or len(values) < 2 or not values[0]:
                    continue
                for h, v in zip(header[1:], values[1:]):
                    if h and v:
                        out += [(t, t.format(header=h.lower(), key=values[0]), d["doc_id"], lo, hi) for t in TEMPLATES]
                        out += [(t, t.format(cell=v.split(" / ")[0].split(",")[0]), d["doc_id"], lo, hi) for t in BACK]
        for start, level, heading in s.heads:
            if level >= 2:
                end = next((h[0] for h in s.heads if h[0] > start), len(d["text"]))
                out += [(t, t.format(heading=heading.lower()), d["doc_id"], start, end) for t in HEADING]
    return out


def synthesize(docs: list[dict], n: int, seed: int = 0, misspell_share: float = 0.3) -> list[dict]:
    """n questions drawn (seeded) from every template filling, some misspelt:
    {"qid", "query", "gold": [{"doc_id", "char_start", "char_end"}]}."""
    pool = candidates(docs)
    rng = np.random.default_rng(seed)
    picked = sorted(rng.choice(len(pool), size=min(n, len(pool)), replace=False).tolist()) if pool else []
    out = []
    for i, j in enumerate(picked):
        _, query, doc_id, lo, hi = pool[j]
        if rng.random() < misspell_share:
            words = query.split()
            k = int(rng.integers(len(words)))
            words[k] = misspell(words[k], rng)
            query = " ".join(words)
        out.append({"qid": f"synth-{i:05d}", "query": query,
                     "gold": [{"doc_id": doc_id, "char_start": lo, "char_end": hi}]})
    return out
