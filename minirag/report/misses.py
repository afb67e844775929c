"""The questions a run misses: each answerable test question whose gold chunk is not in the run's top k,
with where it ranked, the channel that ranked it best, and what that says the miss is.

What it leaves out: the diagnosis itself (evaluation/diagnose.py writes diagnosis.csv, read here).
"""

from __future__ import annotations

import pandas as pd


def gold_misses(t, run: str) -> pd.DataFrame:
    """`t`: the corpus's tables (tables.CorpusTables), whose diagnosis.csv, settings and test questions are read."""
    diag = t.csv("diagnosis.csv").set_index("qid")
    k, depth = t.corpus.diagnose.k, t.corpus.depth
    channels = t.corpus.base_retrievers()
    rows = []
    for q in t.test_questions:
        if not q["answerable"] or q["qid"] not in diag.index:
            continue
        d = diag.loc[q["qid"]]
        rank = d[f"{run}_chunk"]
        if pd.notna(rank) and rank <= k:
            continue
        ranks = {c: d[f"{c}_chunk"] for c in channels if pd.notna(d[f"{c}_chunk"])}
        best = min(ranks, key=ranks.get) if ranks else None
        if best is None:
            why = f"no channel ranks a gold chunk in its top {depth}"
        elif ranks[best] <= k:
            why = f"a channel has it in its top {k}; the fusion loses it"
        elif pd.notna(rank) and rank <= 20:
            why = "ranked just below the cut"
        else:
            why = "every channel ranks it low"
        rows.append({"question": q["qid"], "lang": q["lang"], "difficulty": q["difficulty"],
                     "query": q["query"], "rank": "–" if pd.isna(rank) else int(rank),
                     "best channel": f"`{best}` {int(ranks[best])}" if best else "–", "why": why})
    return pd.DataFrame(rows)
