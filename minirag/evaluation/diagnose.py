"""The seed write-up's retrieval diagnosis as tables: where the gold went, and why.

Each function returns rows (a list of dicts, one per question, columns in a fixed
order) that `write_csv` writes as they are:
- `channel_ranks`: per question, the best rank of a gold chunk and of a chunk of a gold
  document in each base channel and each fused run: the write-up's "lexical best rank
  10, dense best rank 9" table, which shows when both channels miss and fusion cannot help.
- `topk_overlap`: |top k of a ∩ top k of b| / k per question and pair of base retrievers.
  High overlap means the channels share their mistakes as well as their hits.
- `always_on_top`: chunks in the top k of more than a share of all questions, the
  pointer pages and hubs that match every query a little.
- `diversity`: distinct documents in the top k and the mean pairwise cosine of the
  top-k chunk vectors (the write-up's measure; lower = more diverse).
Per-question tables end with a row whose qid is "mean", averaged over the questions
where the value is defined.

Ranks are 1-based positions in the chunk ranking. A gold document's rank here is the
position of its best chunk among chunks, so "in the top 5" means in the five chunks a
reader gets; per_query.csv's `<run>_doc` instead ranks the deduplicated document list.

What it leaves out: plotting and prose (report.py) and choosing which runs are base
channels (the config does).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..artifacts.io import atomic_write_text
from ..rank.diversify import Vectors, vectors_for
from ..rank.ranking import Ranking
from ..settings import setting
from ..text.chunks import Chunk

Run = dict[str, Ranking]  # qid -> ranking


@dataclass(frozen=True)
class DiagnoseSettings:
    """What the diagnose stage measures of each run's top k."""
    embedder: str = "hashing"   # whose chunk vectors measure top-k redundancy (mean pairwise cosine)
    k: int = setting(5, minimum=1)   # the top k that overlap, always-on-top and diversity look at
    always_share: float = setting(0.2, minimum=0, maximum=1)  # in the top k of more than this share of questions = "always on top"

MEAN = "mean"


def gold_doc_rank(ranking: Ranking, doc_of: Mapping[str, str], gold_docs: Mapping[str, int]) -> int | None:
    """1-based position of the first chunk whose document is gold; None if there is none."""
    for i, (cid, _) in enumerate(ranking, start=1):
        if gold_docs.get(doc_of[cid], 0) > 0:
            return i
    return None


def channel_ranks(questions: list[dict], chunks: Sequence[Chunk], base_runs: dict[str, Run],
                  fused_runs: dict[str, Run], k: int = 5) -> list[dict]:
    """Per answerable question: `<run>_chunk` and `<run>_doc` best ranks (None if absent)
    for every base and fused run, and `shared_miss`: no base run has a gold document's
    chunk in its top k, the blind spot no fusion of them can fix."""
    from .evaluate import build_qrels  # here: the config reads DiagnoseSettings without the evaluation's imports
    from .metrics import first_relevant_rank
    chunk_qrels, doc_qrels = build_qrels(questions, chunks)
    doc_of = {c.id: c.doc_id for c in chunks}
    rows = []
    for q in questions:
        if not q["answerable"]:
            continue
        qid = q["qid"]
        row: dict = {"qid": qid, "lang": q.get("lang", ""), "difficulty": q.get("difficulty", "")}
        base_doc_ranks = []
        for name, run in {**base_runs, **fused_runs}.items():
            ranking = run.get(qid, [])
            row[f"{name}_chunk"] = first_relevant_rank([c for c, _ in ranking], chunk_qrels[qid])
            row[f"{name}_doc"] = gold_doc_rank(ranking, doc_of, doc_qrels[qid])
            if name in base_runs:
                base_doc_ranks.append(row[f"{name}_doc"])
        row["shared_miss"] = all(r is None or r > k for r in base_doc_ranks)
        rows.append(row)
    return rows


def topk_overlap(runs: dict[str, Run], k: int = 5) -> list[dict]:
    """Per question, a column `a|b` per pair of runs: |top k of a ∩ top k of b| / k.

    The denominator is k even when a run returned fewer, so a short list counts as
    disagreement. Questions are those of any run, in first-seen order; the last row
    (qid "mean") averages each pair over the questions.
    """
    from .evaluate import mean
    pairs = list(combinations(runs, 2))
    qids = list(dict.fromkeys(qid for run in runs.values() for qid in run))
    rows = []
    for qid in qids:
        tops = {name: {cid for cid, _ in run.get(qid, [])[:k]} for name, run in runs.items()}
        rows.append({"qid": qid, **{f"{a}|{b}": len(tops[a] & tops[b]) / k for a, b in pairs}})
    rows.append({"qid": MEAN, **{f"{a}|{b}": mean(r[f"{a}|{b}"] for r in rows) for a, b in pairs}})
    return rows


def always_on_top(run: Run, doc_of: Mapping[str, str], k: int = 5, share: float = 0.2) -> list[dict]:
    """Chunks in the top k of more than `share` of the run's questions, most frequent first
    (ties by chunk id), with their document, count and share."""
    counts: dict[str, int] = {}
    for ranking in run.values():
        for cid, _ in ranking[:k]:
            counts[cid] = counts.get(cid, 0) + 1
    n = len(run)
    frequent = sorted((cid for cid, c in counts.items() if c / n > share), key=lambda cid: (-counts[cid], cid))
    return [{"chunk_id": cid, "doc_id": doc_of[cid], "count": counts[cid], "share": counts[cid] / n}
            for cid in frequent]


def mean_pairwise_cosine(vecs: np.ndarray) -> float | None:
    """Mean of v_i . v_j over pairs i < j of unit rows; None for fewer than two rows."""
    n = vecs.shape[0]
    if n < 2:
        return None
    sim = vecs.astype(np.float64) @ vecs.T.astype(np.float64)  # (n, n)
    return float(sim[np.triu_indices(n, k=1)].mean())


def diversity(run: Run, doc_of: Mapping[str, str], vectors: Vectors, k: int = 5) -> list[dict]:
    """Per question: `distinct_docs` in the top k and `mean_cosine` of the top-k chunk
    vectors (None below two chunks); the last row (qid "mean") averages both."""
    from .evaluate import mean
    rows = []
    for qid, ranking in run.items():
        top = [cid for cid, _ in ranking[:k]]
        rows.append({"qid": qid, "distinct_docs": len({doc_of[cid] for cid in top}),
                     "mean_cosine": mean_pairwise_cosine(vectors_for(top, vectors)) if top else None})
    cosines = [r["mean_cosine"] for r in rows if r["mean_cosine"] is not None]
    rows.append({"qid": MEAN, "distinct_docs": mean(r["distinct_docs"] for r in rows),
                 "mean_cosine": mean(cosines) if cosines else None})
    return rows


def write_csv(path: str | Path, rows: list[dict], columns: list[str] | None = None) -> None:
    """Rows as CSV: None as an empty cell, floats to 6 decimals (the rows keep full
    precision); columns default to every key, first-seen order."""
    from .evaluate import to_csv
    columns = columns or list(dict.fromkeys(key for row in rows for key in row))
    rounded = [{key: round(v, 6) if isinstance(v, float) else v for key, v in row.items()} for row in rows]
    atomic_write_text(path, to_csv(rounded, columns))
