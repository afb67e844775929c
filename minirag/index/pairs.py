"""Training pairs for the bi-encoder, mined from the chunks themselves (no labels).

Each source turns a chunk into (source, a, b) pairs where b is text that a should
retrieve:

- `title`: the document title, and the section heading when it differs, vs the chunk text.
- `ict`: one sentence (or table row) vs the rest of its chunk: the inverse cloze task of
  Lee et al. 2019 ("Latent Retrieval for Weakly Supervised Open Domain QA"), which keeps
  the sentence in its context 10% of the time so lexical overlap is still rewarded.
- `crops`: two overlapping random word spans of the same chunk (the cropping of
  Izacard et al. 2021, "Contriever", with the crops forced to overlap).
- `table_rows`: a markdown table row's first cell vs the rest of the row, each cell
  labelled with its column header; a two-column row (a glossary `| past tense |
  pretérito |`) gives its two cells in both directions, which is the cross-language
  signal of a bilingual corpus.

BEIR train-split pairs come from beir.py (`beir_train_pairs`). What the module leaves out: tokenisation, hard-negative mining,
and any filtering by language; pairs are deduplicated and returned in a fixed order.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

import numpy as np

from ..artifacts.io import dumps_json, sha256_text
from ..text.words import WORD_RE

SOURCES = ("title", "ict", "crops", "table_rows")
ICT_PER_CHUNK = 8         # default number of sentences drawn (without replacement) per chunk
ICT_KEEP_PROB = 0.1       # Lee et al. 2019: the sentence stays in its context 10% of the time
CROPS_PER_CHUNK = 4       # default number of crop pairs drawn per chunk
CROP_FRACTION = (0.2, 0.5)  # crop length as a fraction of the chunk's words (Contriever: 0.1-0.5)
MIN_WORDS = 3             # shorter sentences, cells and crops carry too little to learn from

SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
SEPARATOR_CELL_RE = re.compile(r"^:?-+:?$")


def chunk_rng(seed: int, chunk_id: str, source: str) -> np.random.Generator:
    """One random stream per (seed, chunk, source): a chunk's pairs do not change when
    other chunks are added or removed, or when another source is switched on."""
    key = int(sha256_text(f"{chunk_id}\x00{source}")[:15], 16)
    return np.random.default_rng([seed, key])


def n_words(text: str) -> int:
    return len(WORD_RE.findall(text))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence-like unit: prose lines split at . ! ?, and each table
    row whole. Headings and table separator rows are not units."""
    spans = []
    pos = 0
    for line in text.splitlines(keepends=True):
        start, body = pos, line.rstrip("\r\n")
        pos += len(line)
        stripped = body.strip()
        if not stripped or stripped.startswith("#") or is_separator_row(stripped):
            continue
        if stripped.startswith("|"):
            lead = len(body) - len(body.lstrip())
            spans.append((start + lead, start + len(body.rstrip())))
            continue
        cursor = 0
        for piece in SENTENCE_END_RE.split(body):
            at = body.index(piece, cursor)
            cursor = at + len(piece)
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                spans.append((start + at + lead, start + at + len(piece.rstrip())))
    return spans


def title_pairs(chunk: dict) -> list[tuple[str, str]]:
    text = chunk["text"].strip()
    meta = chunk.get("metadata", {})
    title, section = meta.get("title", "").strip(), meta.get("section", "").strip()
    if not text:
        return []
    out = [(title, text)] if title else []
    if section and section != title:
        out.append((section, text))
    return out


def ict_pairs(chunk: dict, rng: np.random.Generator, per_chunk: int) -> list[tuple[str, str]]:
    text = chunk["text"]
    spans = [(s, e) for s, e in sentence_spans(text) if n_words(text[s:e]) >= MIN_WORDS]
    if len(spans) < 2:  # a lone sentence has no context to retrieve
        return []
    picks = rng.choice(len(spans), size=min(per_chunk, len(spans)), replace=False)
    keep = rng.random(len(picks)) < ICT_KEEP_PROB
    out = []
    for pick, kept in zip(sorted(picks), keep):
        s, e = spans[pick]
        rest = text if kept else text[:s] + " " + text[e:]
        out.append((text[s:e], " ".join(rest.split())))
    return out


def crop_pairs(chunk: dict, rng: np.random.Generator, per_chunk: int) -> list[tuple[str, str]]:
    text = chunk["text"]
    words = [m.span() for m in re.finditer(r"\S+", text)]
    n = len(words)
    lo, hi = (max(MIN_WORDS, int(np.ceil(f * n))) for f in CROP_FRACTION)
    if n < 2 * MIN_WORDS or hi > n:
        return []
    out = []
    for _ in range(per_chunk):
        len1, len2 = rng.integers(lo, hi + 1, size=2)
        s1 = int(rng.integers(0, n - len1 + 1))
        # the second crop starts so that the two share at least one word
        s2 = int(rng.integers(max(0, s1 - len2 + 1), min(n - len2, s1 + len1 - 1) + 1))
        crop1 = text[words[s1][0]:words[s1 + len1 - 1][1]]
        crop2 = text[words[s2][0]:words[s2 + len2 - 1][1]]
        out.append((crop1, crop2))
    return out


def is_separator_row(line: str) -> bool:
    cells = split_row(line)
    return bool(cells) and all(SEPARATOR_CELL_RE.match(c) for c in cells)


def split_row(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(text: str) -> Iterable[tuple[list[str] | None, list[str]]]:
    """(header cells or None, row cells) of every complete data row in `text`.

    A row must start and end with '|' (a chunk boundary can cut a row in half). The
    header is the row just above a separator row; a table whose header lies in an
    earlier chunk yields its rows with header None.
    """
    lines = [ln.strip() for ln in text.splitlines()]
    header: list[str] | None = None
    for i, line in enumerate(lines):
        if not (line.startswith("|") and line.endswith("|") and len(line) > 1):
            header = None
            continue
        if is_separator_row(line):
            continue
        if i + 1 < len(lines) and is_separator_row(lines[i + 1]):
            header = split_row(line)
            continue
        yield header, split_row(line)


def table_row_pairs(chunk: dict) -> list[tuple[str, str]]:
    out = []
    for header, cells in table_rows(chunk["text"]):
        if len(cells) < 2 or not cells[0] or not any(cells[1:]):
            continue
        if len(cells) == 2:
            out += [(cells[0], cells[1]), (cells[1], cells[0])]
            continue
        if header and len(header) == len(cells):
            rest = " | ".join(f"{h}: {c}" for h, c in zip(header[1:], cells[1:]) if c)
        else:
            rest = " | ".join(c for c in cells[1:] if c)
        out.append((cells[0], rest))
    return out


def mine_pairs(chunks: list[dict], sources: Sequence[str], seed: int,
               ict_per_chunk: int = ICT_PER_CHUNK, crops_per_chunk: int = CROPS_PER_CHUNK,
               ) -> list[tuple[str, str, str]]:
    """(source, a, b) pairs of the named sources, source by source in the order given and
    chunk by chunk in input order; exact duplicates (overlapping chunks) and pairs with an
    empty side or a == b are dropped."""
    unknown = [s for s in sources if s not in SOURCES]
    if unknown:
        raise ValueError(f"pairs: unknown source(s) {', '.join(unknown)} (have: {', '.join(SOURCES)})")
    seen: set[tuple[str, str, str]] = set()
    out = []
    for source in sources:
        for chunk in chunks:
            if source == "title":
                found = title_pairs(chunk)
            elif source == "ict":
                found = ict_pairs(chunk, chunk_rng(seed, chunk["id"], source), ict_per_chunk)
            elif source == "crops":
                found = crop_pairs(chunk, chunk_rng(seed, chunk["id"], source), crops_per_chunk)
            else:
                found = table_row_pairs(chunk)
            for a, b in found:
                key = (source, a.strip(), b.strip())
                if key[1] and key[2] and key[1] != key[2] and key not in seen:
                    seen.add(key)
                    out.append(key)
    return out


def pairs_sha256(pairs: Iterable[Sequence[str]]) -> str:
    """Content hash of a pair list (order matters), for the model's sidecar."""
    return sha256_text("".join(dumps_json(list(p)) + "\n" for p in pairs))
