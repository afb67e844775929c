"""Compare two builds of the history, or two runs of one build, question by question.

`diff_builds(results, a, b, corpus)` and `diff_runs(results, build, run_a, run_b, corpus)`
return one plain dict (what `minirag diff --json` prints; render.py writes it as text or
markdown):

- `settings`: the corpus settings that differ, key path by key path (`chunk.target_tokens: 40
  -> 60`), and the jobs whose settings hash changed, appeared or went (from the receipts);
- `metrics`: per run both sides have, hit@5, MRR and nDCG@10 (chunk level, test split) on each
  side and B - A with its paired bootstrap interval and randomization p, Holm-adjusted over
  the table (evaluation/significance.py);
- `flips`: per run, the test questions whose chunk hit@5 changed (gained: B finds what A
  missed; lost: the reverse), each with its query, the gold, the first gold chunk's rank on each
  side (`rank_a`, `rank_b`; None beyond the run's depth) and what each side answered (the
  first reader's answer on that run, else the run's top document); and per reader and run,
  the questions whose answer went from wrong to right or back.

What it leaves out: choosing which builds to compare (cli.py) and formatting (render.py).
"""

from __future__ import annotations

from typing import Any

from ..evaluation.significance import compare, with_holm
from . import blobs

SHOWN = ("hit@5", "mrr", "ndcg@10")


def normalised(settings: dict) -> dict:
    """The settings with each renamed reader setting under its new name, so a build made before a
    rename compares equal to one made after it."""
    from ..answer.readers import READERS
    readers = {}
    for name, spec in (settings.get("readers") or {}).items():
        kind = READERS.get(spec.get("type")) if isinstance(spec, dict) else None
        renamed = getattr(getattr(kind, "Settings", None), "RENAMED", {})
        readers[name] = {renamed.get(k, k): v for k, v in spec.items()} if renamed else spec
    return {**settings, "readers": readers} if readers else settings


def renamed_only(a: dict, b: dict) -> set[str]:
    """Readers whose settings differ between two builds by renamed keys alone."""
    ra, rb = a.get("readers") or {}, b.get("readers") or {}
    na, nb = normalised(a).get("readers", {}), normalised(b).get("readers", {})
    return {r for r in ra.keys() & rb.keys() if ra[r] != rb[r] and na[r] == nb[r]}


def reader_of(job: str) -> str | None:
    """The reader a train_reader or generate job is of ("generate.minigpt.bm25" -> "minigpt")."""
    stage, _, rest = job.partition(".")
    return rest.split(".", 1)[0] if stage in ("train_reader", "generate") else None


def changed(a: dict, b: dict, prefix: str = "") -> list[dict]:
    """Keys whose value differs (absent on one side: None), in key order. A section only one side has
    (a retriever added or removed) is one row holding it whole, not one row for each of its keys."""
    out = []
    for k in sorted(a.keys() | b.keys(), key=str):
        key, va, vb = f"{prefix}.{k}" if prefix else str(k), a.get(k), b.get(k)
        if isinstance(va, dict) and isinstance(vb, dict):
            out += changed(va, vb, key)
        elif va != vb and not (va in ({}, None) and vb in ({}, None)):  # an empty section against none: no change
            out.append({"key": key, "a": va, "b": vb})
    return out


class Side:
    """One build's snapshot of one corpus, loaded lazily from its content-addressed files."""

    def __init__(self, results, record: dict, corpus: str, number: int):
        if corpus not in record["corpora"]:
            raise blobs.HistoryError(f"build #{number} has no corpus {corpus!r} (has: {', '.join(record['corpora'])})")
        self.results, self.record, self.corpus, self.number = results, record, corpus, number
        self.entry = record["corpora"][corpus]
        self.listing = blobs.get(results, self.entry["snapshot"])
        self._cache: dict[str, Any] = {}

    def part(self, rel: str) -> Any:
        if rel not in self._cache:
            self._cache[rel] = blobs.get(self.results, rel)
        return self._cache[rel]

    @property
    def questions(self) -> dict:
        return self.part(self.listing["questions"])

    @property
    def settings(self) -> dict:
        return self.part(self.listing["settings"])

    def scores(self, run: str) -> dict:
        return self.part(self.listing["runs"][run])

    def answers(self, reader_run: str) -> dict:
        return self.part(self.listing["answers"][reader_run])

    def said(self, run: str, qid: str) -> str:
        """What this side answered: the first reader's answer on the run, else the run's top document."""
        first = next((k for k in self.listing["answers"] if k.split("/", 1)[1] == run), None)
        if first is not None and qid in self.answers(first):
            return self.answers(first)[qid]["answer"]
        top = self.scores(run)["top"].get(qid)
        return f"top document {top}" if top else "(nothing retrieved)"

    def describe(self) -> dict:
        git = self.record.get("git") or {}
        return {"build": self.number, "time": self.record["time"], "report": self.record["report"],
                "commit": git.get("commit"), "dirty": git.get("dirty")}


def metric_rows(a: Side, b: Side, pairs: list[tuple[str, str]]) -> list[dict]:
    """Per (run of A, run of B): each shown metric on both sides and B - A, tested, Holm over the table."""
    index = {m: i for i, m in enumerate(a.listing["metrics"])}
    test = {q for q, info in a.questions.items() if info["split"] == "test"}
    rows, comparisons = [], []
    for ra, rb in pairs:
        sa, sb = a.scores(ra)["chunk"], b.scores(rb)["chunk"]
        qids = sorted(test & sa.keys() & sb.keys())
        for m in SHOWN:
            va, vb = [sa[q][index[m]] for q in qids], [sb[q][index[m]] for q in qids]
            c = compare(vb, va)
            rows.append({"run": ra if ra == rb else f"{ra} -> {rb}", "metric": m, "questions": len(qids),
                         "a": sum(va) / len(qids) if qids else 0.0, "b": sum(vb) / len(qids) if qids else 0.0})
            comparisons.append(c)
    for row, c in zip(rows, with_holm(comparisons)):
        row["delta"], row["text"] = c.to_dict(), c.text()
    return rows


def flips(a: Side, b: Side, pairs: list[tuple[str, str]]) -> list[dict]:
    """Per run pair, the test questions whose chunk hit@5 differs, with the gold and both answers."""
    at, rr = a.listing["metrics"].index("hit@5"), a.listing["metrics"].index("mrr")
    out = []
    for ra, rb in pairs:
        sa, sb = a.scores(ra)["chunk"], b.scores(rb)["chunk"]
        qs = b.questions
        for qid in sorted(sa.keys() & sb.keys()):
            ha, hb = sa[qid][at], sb[qid][at]
            if ha != hb and qs.get(qid, {}).get("split", "test") == "test":
                out.append({"run": ra if ra == rb else f"{ra} -> {rb}", "qid": qid, "change": "gained" if hb else "lost",
                            "query": qs[qid]["query"], "gold": qs[qid]["gold"], "rank_a": gold_rank(sa[qid][rr]),
                            "rank_b": gold_rank(sb[qid][rr]), "a": a.said(ra, qid), "b": b.said(rb, qid)})
    return out


def gold_rank(mrr: float) -> int | None:
    """The rank of the first gold chunk, from its reciprocal rank (None: not in the run)."""
    return round(1 / mrr) if mrr > 0 else None


def answer_flips(a: Side, b: Side, pairs: list[tuple[str, str]]) -> list[dict]:
    """Per reader and run pair, the test questions whose answer went from wrong to right or back."""
    out = []
    for ra, rb in pairs:
        for key in sorted(a.listing["answers"]):
            reader, run = key.split("/", 1)
            if run != ra or f"{reader}/{rb}" not in b.listing["answers"]:
                continue
            xa, xb, qs = a.answers(key), b.answers(f"{reader}/{rb}"), b.questions
            for qid in sorted(xa.keys() & xb.keys()):
                if xa[qid]["correct"] != xb[qid]["correct"] and qs[qid]["split"] == "test":
                    out.append({"reader": reader, "run": ra if ra == rb else f"{ra} -> {rb}", "qid": qid,
                                "change": "right" if xb[qid]["correct"] else "wrong", "query": qs[qid]["query"],
                                "gold": qs[qid]["gold"], "a": xa[qid]["answer"], "b": xb[qid]["answer"]})
    return out


def diff_builds(results, records: list[dict], na: int, nb: int, corpus: str) -> dict:
    """Build #nb against build #na (1-based numbers of `records`) on one corpus."""
    a, b = Side(results, records[na - 1], corpus, na), Side(results, records[nb - 1], corpus, nb)
    shared = [r for r in a.listing["runs"] if r in b.listing["runs"]]
    pairs = [(r, r) for r in shared]
    sa, sb = a.entry["stages"], b.entry["stages"]
    same = renamed_only(a.settings, b.settings)  # their jobs' settings hashes moved with the key names only
    return {"corpus": corpus, "a": a.describe(), "b": b.describe(),
            "settings": changed(normalised(a.settings), normalised(b.settings)),
            "stages": [{"job": j, "a": sa.get(j), "b": sb.get(j)} for j in sorted(sa.keys() | sb.keys())
                       if sa.get(j) != sb.get(j) and not (j in sa and j in sb and reader_of(j) in same)],
            "runs_only_in_a": [r for r in a.listing["runs"] if r not in shared],
            "runs_only_in_b": [r for r in b.listing["runs"] if r not in a.listing["runs"]],
            "metrics": metric_rows(a, b, pairs), "flips": flips(a, b, pairs), "answer_flips": answer_flips(a, b, pairs)}


def diff_runs(results, records: list[dict], n: int, run_a: str, run_b: str, corpus: str) -> dict:
    """Run `run_b` against `run_a`, both of build #n, on one corpus."""
    side = Side(results, records[n - 1], corpus, n)
    for run in (run_a, run_b):
        if run not in side.listing["runs"]:
            raise blobs.HistoryError(f"build #{n} has no run {run!r} in corpus {corpus!r} "
                                     f"(has: {', '.join(side.listing['runs'])})")
    specs = side.settings["retrievers"]
    pairs = [(run_a, run_b)]
    return {"corpus": corpus, "a": {**side.describe(), "run": run_a}, "b": {**side.describe(), "run": run_b},
            "settings": changed(specs[run_a], specs[run_b]), "stages": [], "runs_only_in_a": [], "runs_only_in_b": [],
            "metrics": metric_rows(side, side, pairs), "flips": flips(side, side, pairs),
            "answer_flips": answer_flips(side, side, pairs)}
