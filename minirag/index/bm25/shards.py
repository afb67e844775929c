"""BM25 built in shards: each shard's postings counted alone, merged into the one index.

A shard job writes `shards/<i>/bm25/<index>/`:
  postings.npz  indptr (V+1,), items (P,) shard-local item rows, tf (P,), title_indptr,
                title_items, lengths (N_i,): `Postings` (postings.py), no statistic of the collection
  vocab.json    the shard's terms, sorted (term id = position)
  items.json    per row, the chunk id and the sha256 of the text indexed, as the index's own

The merge maps every shard's terms into the sorted union of the vocabularies and every row
to its chunk's position in chunks.jsonl, then, one block of terms at a time, gathers their
(term, item) pairs from every shard, sorts them and scores them with the weights
`BM25Index.from_postings` uses (bm25.body_weights): N, df, avgdl and idf are the whole
collection's, so the merged index is, array for array and byte for byte, the one `bm25`
builds from chunks.jsonl at once, and the merge holds the index and one block, not every
posting several times over.

What it leaves out: which document is in which shard (shards.py) and indexes over units (a
sharded corpus indexes chunks; config/corpus.py refuses units there).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...artifacts import content
from ...artifacts.io import load_npz, read_json, save_npz, write_json
from .index import BM25Index, BM25Params, body_weights, title_weights
from .postings import Postings

POSTINGS_ARRAYS = ("indptr", "items", "tf", "title_indptr", "title_items", "lengths")


def save_postings(directory: str | Path, p: Postings, rows: list[list[str]], items_meta: dict) -> list[Path]:
    """Write a shard's postings.npz, vocab.json and items.json (written last)."""
    directory = Path(directory)
    save_npz(directory / "postings.npz", **{name: getattr(p, name) for name in POSTINGS_ARRAYS})
    write_json(directory / "vocab.json", p.vocab)
    write_json(directory / "items.json", {**items_meta, "rows": rows})
    return [directory / name for name in ("postings.npz", "vocab.json", "items.json")]


def load_postings(directory: str | Path) -> tuple[Postings, dict]:
    """A shard's postings and its items.json; a damaged or inconsistent file raises ValueError naming it."""
    directory = Path(directory)
    arrays = load_npz(directory / "postings.npz")
    absent = [k for k in POSTINGS_ARRAYS if k not in arrays]
    if absent:
        raise ValueError(f"{directory / 'postings.npz'}: no array {', '.join(absent)}; re-run bm25_shard")
    vocab, items = read_json(directory / "vocab.json"), read_json(directory / "items.json")
    if not isinstance(vocab, list) or vocab != sorted(vocab) or len(vocab) + 1 != len(arrays["indptr"]):
        raise ValueError(f"{directory / 'vocab.json'}: not the {len(arrays['indptr']) - 1} sorted terms of "
                         "postings.npz; re-run bm25_shard")
    if len(items.get("rows", [])) != len(arrays["lengths"]):
        raise ValueError(f"{directory / 'items.json'}: {len(items.get('rows', []))} rows for "
                         f"{len(arrays['lengths'])} items of postings.npz; re-run bm25_shard")
    content.bm25_postings(arrays, len(vocab), directory / "postings.npz")
    return Postings(vocab, *(arrays[k] for k in POSTINGS_ARRAYS)), items


def _remap(indptr: np.ndarray, items: np.ndarray, term_map: np.ndarray, row_map: np.ndarray):
    """A shard's (term, item) pairs in global ids, as two (P,) int64 arrays."""
    terms = np.repeat(term_map, np.diff(indptr))  # (P,)
    return terms, row_map[items].astype(np.int64)


def _csr(terms: np.ndarray, items: np.ndarray, n_terms: int, n_items: int):
    """The term indptr and the items of pairs sorted by term then item (each pair once, as a
    shard holds it)."""
    order = np.argsort(terms * n_items + items, kind="stable")  # (P,)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=n_terms), out=indptr[1:])
    return indptr, items[order].astype(np.int32)


def _columns(parts: list[tuple], n: int) -> list[np.ndarray]:
    """The shards' arrays joined column by column (n empty columns when there are no shards)."""
    return [np.concatenate(col) for col in zip(*parts)] if parts else [np.zeros(0, dtype=np.int64)] * n


def merged_index(parts: list[Postings], row_maps: list[np.ndarray], n_items: int, analyzer,
                 params: BM25Params, block: int = 1 << 20) -> BM25Index:
    """The index the shards' postings merged into one `Postings` would score to
    (`BM25Index.from_postings`), array for array, made term block by term block: the body
    postings of about `block` pairs at a time are gathered from every shard, sorted and scored,
    so the merge holds the index (8 bytes a posting) and one block, not the several int64
    copies of every posting a one-go merge needs."""
    vocab = sorted(set().union(*(p.vocab for p in parts)))
    ids = {t: i for i, t in enumerate(vocab)}
    lengths = np.zeros(n_items, dtype=np.int64)  # (N,)
    seen = np.zeros(n_items, dtype=bool)
    df = np.zeros(len(vocab), dtype=np.int64)  # (V,) the collection's document frequencies
    term_maps, title = [], []
    for p, rows in zip(parts, row_maps):
        if len(rows) != p.n_items:
            raise ValueError(f"{len(rows)} rows mapped for {p.n_items} items of a shard")
        if seen[rows].any():
            raise ValueError("a row of the collection is claimed by two shards")
        seen[rows], lengths[rows] = True, p.lengths
        term_map = np.fromiter((ids[t] for t in p.vocab), dtype=np.int64, count=len(p.vocab))  # (V_s,) ascending
        df[term_map] += np.diff(p.indptr)
        term_maps.append(term_map)
        title.append(_remap(p.title_indptr, p.title_items, term_map, rows))
    if not seen.all():
        raise ValueError(f"row {int(np.flatnonzero(~seen)[0])} of the collection is in no shard")
    avgdl = float(lengths.mean()) if n_items else 0.0
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    items = np.empty(indptr[-1], dtype=np.int32)     # (P,)
    weights = np.empty(indptr[-1], dtype=np.float32)  # (P,)
    idf = body_weights(params, df, np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), n_items, avgdl)[1]
    start = 0
    while start < len(vocab):
        end = max(int(np.searchsorted(indptr, indptr[start] + block, side="right")) - 1, start + 1)
        t, i, f = _block(parts, term_maps, row_maps, start, end)
        order = np.lexsort((i, t))  # by term, then item
        t, i, f = t[order], i[order], f[order]
        items[indptr[start]:indptr[end]] = i
        weights[indptr[start]:indptr[end]] = body_weights(params, df, t, f, lengths[i], n_items, avgdl)[0]
        start = end
    t_indptr, t_items = _csr(*_columns(title, 2), len(vocab), n_items)
    arrays = {"indptr": indptr, "items": items, "weights": weights,
              "title_indptr": t_indptr, "title_items": t_items,
              "title_weights": title_weights(params, idf, t_indptr), "doc_lengths": lengths.astype(np.int32)}
    return BM25Index(arrays, ids, params, analyzer, avgdl)


def _block(parts: list[Postings], term_maps: list[np.ndarray], row_maps: list[np.ndarray], start: int, end: int):
    """Every shard's body postings of the global terms [start, end): (terms, rows, tf), each (B,) int64."""
    cols = []
    for p, term_map, rows in zip(parts, term_maps, row_maps):
        lo, hi = np.searchsorted(term_map, [start, end])  # the shard's terms in the block
        a, b = p.indptr[lo], p.indptr[hi]
        cols.append((np.repeat(term_map[lo:hi], np.diff(p.indptr[lo:hi + 1])), rows[p.items[a:b]].astype(np.int64),
                     p.tf[a:b]))
    return _columns(cols, 3)
