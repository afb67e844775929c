"""Content checks: an artifact holds what its kind promises, checked beside its receipt's hash.

A receipt says a file is the one its job wrote (integrity.py). It cannot say the job wrote
something sound, nor notice a file and its receipt rewritten together. So each artifact kind
has one function here that reads what the file holds and refuses what no stage writes:

    vectors        (N, d) float32, the shape its sidecar records, one row per sidecar row, finite
    run            `qid Q0 chunk rank score name` lines: finite scores; per query, ranks 1..n in
                   score order; unique (qid, chunk) pairs; known qids and chunk ids; the name
                   the file's own
    bm25 index     postings of every term ascending in [0, N), indptr from 0 rising to their
                   count, as many weights, finite; lengths >= 0; one vocabulary entry per term
    bm25 postings  (a shard's) the same bounds, term frequencies >= 1
    ivf            centroids and rows finite, offsets rising from 0 to N, order a permutation
    weights        (encoders, rerankers, readers) every array finite
    vocabulary     (an answer selector's sidecar) its keys of the types vocab_record.py lists
    candidates     per question: known qid, probabilities, answers citing known chunks, finite
                   features, every field of its type (content_candidates.py)
    records, json  JSON objects a line / a JSON value, without NaN or Infinity (JSON has neither)
    figure         a PNG signature

`check_outputs` runs them on the files a job wrote, before its receipt (stages/common.py);
`check_file` is what `minirag verify` runs after each hash; loaders call the kind's
function on what they have just read (trec.load_run, vectors.load_vectors, bm25.load_bm25, ...).
Messages start with the file (and line) and say what is wrong.

What it leaves out: whether sound content is right. A user who forges both a file and its
receipt with well-formed, finite content gets what they forged (receipts are checksums, not
signatures). Files a user supplies (documents, questions, configs) are checked by the stages
that read them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

import numpy as np

from .content_candidates import candidate_records
from .io import load_npy, load_npz, numbered_jsonl, parse_json, read_json, read_text
from .missing import require
from .trec_lines import parse_run

BLOCK = 1 << 16  # rows checked at once: a memory-mapped matrix is never read whole


class ContentError(ValueError):
    """An artifact whose content no stage writes; the message names the file and what is wrong."""


def fail(where, msg: str):
    raise ContentError(f"{where}: {msg}")


def finite(array: np.ndarray, where, what: str = "row") -> None:
    """Every value finite; the first row that is not is named (checked block by block of rows)."""
    if array.size == 0:  # an empty shard's (0, d) vectors: nothing to check (and nothing to reshape)
        return
    a = array.reshape(array.shape[0], -1) if array.ndim > 1 else array.reshape(-1, 1)
    for start in range(0, a.shape[0], BLOCK):
        ok = np.isfinite(np.asarray(a[start:start + BLOCK])).all(axis=1)  # (B,)
        if not ok.all():
            fail(where, f"{what} {start + int(np.argmin(ok))} holds NaN or infinity")


def vectors(array: np.ndarray, sidecar: dict, where) -> None:
    """An embed stage's (N, d) matrix against its sidecar."""
    shape, rows = sidecar.get("shape"), sidecar.get("rows")
    if array.dtype != np.float32 or array.ndim != 2:
        fail(where, f"{array.dtype} array of {array.ndim} dimensions, not a float32 (N, d) matrix")
    if not isinstance(rows, list) or list(array.shape) != list(shape or []) or len(rows) != array.shape[0]:
        fail(where, f"shape {tuple(array.shape)}, its sidecar records {shape} and "
             f"{len(rows) if isinstance(rows, list) else 'no'} rows")
    finite(array, where)


def csr(indptr: np.ndarray, items: np.ndarray, n_items: int, where, what: str) -> None:
    """indptr rising from 0 to len(items); each segment's items ascending, within [0, n_items)."""
    if indptr.ndim != 1 or len(indptr) == 0 or indptr[0] != 0 or indptr[-1] != len(items) \
            or (np.diff(indptr) < 0).any():
        fail(where, f"{what}: offsets do not rise from 0 to the {len(items)} postings")
    if len(items) and (items.min() < 0 or items.max() >= n_items):
        fail(where, f"{what}: an item id outside 0..{n_items - 1}")
    rising = items[1:] > items[:-1]  # (P-1,) false where the next posting is not above this one
    starts = indptr[1:-1]
    rising[starts[(starts > 0) & (starts < len(items))] - 1] = True  # but a new term's list may start lower
    if len(items) > 1 and not rising.all():
        fail(where, f"{what}: a term's items are not ascending (a posting twice?)")


def body_and_title(arrays: dict[str, np.ndarray], lengths: str, n_terms: int, where) -> None:
    """What an index and a shard's postings share: a body and a title CSR over the vocabulary's
    terms, items within the `lengths` array's documents, no negative length."""
    n = len(arrays[lengths])
    if len(arrays["indptr"]) != n_terms + 1 or len(arrays["title_indptr"]) != n_terms + 1:
        fail(where, f"{len(arrays['indptr']) - 1} terms, the vocabulary has {n_terms}")
    csr(arrays["indptr"], arrays["items"], n, where, "body")
    csr(arrays["title_indptr"], arrays["title_items"], n, where, "title")
    if (arrays[lengths] < 0).any():
        fail(where, "a negative document length")


def bm25_arrays(arrays: dict[str, np.ndarray], n_terms: int, where) -> None:
    """A bm25 stage's index.npz, with the size of its vocabulary."""
    body_and_title(arrays, "doc_lengths", n_terms, where)
    for name, of in (("weights", "items"), ("title_weights", "title_items")):
        if len(arrays[name]) != len(arrays[of]):
            fail(where, f"{len(arrays[name])} {name} for {len(arrays[of])} postings")
        finite(arrays[name], where, f"{name} entry")


def bm25_postings(arrays: dict[str, np.ndarray], n_terms: int, where) -> None:
    """A bm25_shard stage's postings.npz, with the size of its vocabulary."""
    body_and_title(arrays, "lengths", n_terms, where)
    if len(arrays["tf"]) != len(arrays["items"]) or (arrays["tf"] < 1).any():
        fail(where, "term frequencies: not one of at least 1 per posting")


def embed_cache(arrays: dict[str, np.ndarray], where) -> None:
    """An embedding cache (index/embed_cache.py): one model index and one text hash per row, each
    index naming a stored model, vectors a finite float32 (n, d) matrix."""
    try:
        models, model, texts, vecs = (arrays[k] for k in ("models", "model", "text_sha256", "vectors"))
    except KeyError as exc:
        fail(where, f"no array {exc}, not an embedding cache")
    n = len(model)
    if vecs.dtype != np.float32 or vecs.ndim != 2 or len(vecs) != n or len(texts) != n or model.ndim != 1:
        fail(where, f"{n} model indices, {len(texts)} text hashes and {vecs.dtype} vectors of shape "
             f"{vecs.shape}: not one row each")
    if model.dtype.kind not in "iu" or (n and (model.min() < 0 or model.max() >= len(models))):
        fail(where, f"a row's model index outside the {len(models)} stored models")
    finite(vecs, where)


def ivf_arrays(centroids: np.ndarray, offsets: np.ndarray, order: np.ndarray, rows: np.ndarray, where) -> None:
    """An ivf stage's lists: offsets rising from 0 to N, order a permutation of 0..N-1, values finite."""
    n = len(order)
    if offsets.ndim != 1 or len(offsets) != len(centroids) + 1 or offsets[0] != 0 or offsets[-1] != n \
            or (np.diff(offsets) < 0).any():
        fail(where, f"offsets do not rise from 0 to the {n} rows over {len(centroids)} lists")
    if n and (order.min() < 0 or order.max() >= n or (np.bincount(order, minlength=n) != 1).any()):
        fail(where, f"order.npy is not a permutation of 0..{n - 1}")
    finite(centroids, where, "centroid")
    finite(rows, where)


def weights(arrays: dict[str, np.ndarray], where) -> None:
    """A trained model's weights: numbers, every one finite."""
    for name, a in arrays.items():
        if a.dtype.kind not in "fiub":
            fail(where, f"array {name!r} of {a.dtype}, not numbers")
        if a.dtype.kind == "f" and a.size:
            finite(a.reshape(len(a), -1) if a.ndim > 1 else a.reshape(-1), where, f"array {name!r} row")


def run_rows(rows: list[tuple[int, str, str, int, float, str]], where, name: str | None,
             qids: set[str] | None, chunk_ids: set[str] | None) -> None:
    """A run's parsed lines (line number, qid, id, rank, score, run name), as trec_lines.parse_run gives
    them; `name`, `qids`, `chunk_ids`: what the run must be named and may name (None: unchecked)."""
    last: dict[str, tuple[int, float]] = {}  # qid -> (rank, score) of its last line
    seen: set[tuple[str, str]] = set()
    for lineno, qid, doc, rank, score, run in rows:
        at = f"{where}:{lineno}"
        if name is not None and run != name:
            fail(at, f"the run is named {run!r}, the file is {name!r}'s")
        if not math.isfinite(score):
            fail(at, f"score {score} is not a finite number")
        if qids is not None and qid not in qids:
            fail(at, f"query {qid!r} is not in questions.jsonl")
        if chunk_ids is not None and doc not in chunk_ids:
            fail(at, f"chunk {doc!r} is not in chunks.jsonl")
        if (qid, doc) in seen:
            fail(at, f"chunk {doc!r} is ranked twice for query {qid!r}")
        seen.add((qid, doc))
        prev_rank, prev_score = last.get(qid, (0, math.inf))
        if rank != prev_rank + 1:
            fail(at, f"rank {rank} of query {qid!r} follows rank {prev_rank} (ranks run 1..n in order)")
        if score > prev_score:
            fail(at, f"rank {rank} of query {qid!r} scores {score}, above rank {prev_rank}'s {prev_score}")
        last[qid] = (rank, score)


_IDS: dict[tuple[str, int, int], set[str]] = {}


def known_ids(path: Path, key: str) -> set[str]:
    """The `key` field of every record of a JSON Lines artifact (question or chunk ids), read once per
    process for the same path, size and mtime."""
    st = require(path, f"what a run is checked against; {path.name}").stat()
    cache_key = (str(path), st.st_size, st.st_mtime_ns)
    if cache_key not in _IDS:
        _IDS.clear()  # one corpus at a time: keep the memory of one set of ids
        _IDS[cache_key] = set(ids_of(path, key))
    return _IDS[cache_key]


def ids_of(path: Path, key: str) -> Iterable[str]:
    """The `key` of each record; a line that starts with that key (as the stages write records,
    `{"id": "..."`) is sliced rather than parsed, so a million chunks' texts are never decoded."""
    head = f'{{"{key}": "'.encode()
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            end = raw.find(b'"', len(head)) if raw.startswith(head) else -1
            if end > 0 and b"\\" not in raw[:end]:
                yield raw[len(head):end].decode("utf-8", "replace")
            elif raw.strip():
                rec = parse_json(raw, f"{path}:{lineno}")
                if isinstance(rec, dict) and key in rec:
                    yield str(rec[key])


def refuse_constant(name: str):
    raise ValueError(f"{name} (JSON has no such number)")


def records(path: Path) -> None:
    """JSON Lines: every line a JSON object, without NaN or Infinity."""
    import json
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                value = json.loads(raw, parse_constant=refuse_constant)
            except (ValueError, RecursionError) as exc:
                fail(f"{path}:{lineno}", f"not a JSON line ({exc})")
            if not isinstance(value, dict):
                fail(f"{path}:{lineno}", "not a JSON object")


def json_file(path: Path) -> None:
    import json
    try:
        json.loads(read_text(path), parse_constant=refuse_constant)
    except (ValueError, RecursionError) as exc:
        fail(path, f"not JSON ({exc})")


def reader_sidecar(path: Path) -> None:
    """JSON; an answer selector's vocabulary in it, as vocab_record.py says."""
    json_file(path)
    record = read_json(path)
    if isinstance(record, dict) and "vocabulary" in record:
        from .vocab_record import vocabulary_problem
        if (problem := vocabulary_problem(record["vocabulary"])):
            fail(path, problem)


PNG = b"\x89PNG\r\n\x1a\n"


def figure(path: Path) -> None:
    with open(path, "rb") as fh:
        if fh.read(8) != PNG:
            fail(path, "not a PNG image")


# each check by its name in the artifact registry (registry.py): (path, the corpus's layout) -> None
CHECKS = {
    "run": lambda path, layout: run_rows(parse_run(path), path, path.stem, known_ids(layout.questions, "qid"),
                                         known_ids(layout.chunks, "id")),
    "vectors": lambda path, _: vectors(load_npy(path, mmap=True), read_json(path.with_suffix(".json")), path),
    "bm25_index": lambda path, _: bm25_arrays(load_npz(path), len(read_json(path.parent / "vocab.json")), path),
    "bm25_postings": lambda path, _: bm25_postings(load_npz(path), len(read_json(path.parent / "vocab.json")), path),
    "ivf": lambda path, _: ivf_arrays(*(load_npy(path.parent / f, mmap=True) for f in (
        "centroids.npy", "offsets.npy", "order.npy", "vectors_by_list.npy")), path),
    "embed_cache": lambda path, _: embed_cache(load_npz(path), path),
    "weights": lambda path, _: weights(load_npz(path), path),
    "records": lambda path, _: records(path),
    "candidates": lambda path, layout: candidate_records(numbered_jsonl(path), path, known_ids(layout.questions, "qid"),
                                                         known_ids(layout.chunks, "id")),
    "json_file": lambda path, _: json_file(path),
    "reader_sidecar": lambda path, _: reader_sidecar(path),
    "figure": lambda path, _: figure(path),
}


def check_file(path: str | Path) -> None:
    """The content check of one artifact of a corpus's results folder, by its kind in the registry."""
    from .registry import producer_of
    check_artifact(Path(path), *producer_of(path)[:2])


def check_artifact(path: Path, root: Path, artifact) -> None:
    from .layout import CorpusLayout
    if artifact.check:
        CHECKS[artifact.check](path, CorpusLayout(root))


def check_outputs(paths: Iterable[str | Path]) -> None:
    """`check_file` of each file a job wrote into a results folder (elsewhere: no layout to check against)."""
    from .registry import producer_of
    for path in map(Path, paths):
        try:
            root, artifact, _ = producer_of(path)
        except ValueError:
            continue
        check_artifact(path, root, artifact)
