"""The report's tables, computed from a corpus's artifacts as pandas DataFrames.

`CorpusTables` reads only files the graph wrote (docs, chunks, questions, eval/*.json|csv,
answers, encoder sidecars, assertions.json, Snakemake benchmark files), each through the
layout and checked against its job's receipt, and turns them into one DataFrame per table plus the few facts the prose quotes.
Nothing here formats text: markdown.py renders what this module computes, so a table can
be checked, or reused (an HTML view, a notebook), without parsing markdown.

What it leaves out: scoring (evaluation/), drawing figures (figures.py) and prose.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property

import pandas as pd

from ..artifacts.integrity import iter_records, load_json, load_records, verified
from ..artifacts.layout import CorpusLayout
from ..config.typed import Corpus
from ..settings import settings_to_dict
from .misses import gold_misses
from .paired import PairedScores, holm_cells

METRICS = ["hit@1", "hit@3", "hit@5", "mrr", "recall@5", "ndcg@10"]
METRIC_NAMES = {"mrr": "MRR", "ndcg@10": "nDCG@10"}
MIN_TAG_QUESTIONS = 10  # tags carried by fewer answerable questions are too small to tabulate


def labelled(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename(columns=METRIC_NAMES)


class CorpusTables:
    def __init__(self, name: str, corpus: Corpus, layout: CorpusLayout):
        self.name, self.corpus, self.layout = name, corpus, layout
        self.main, self.paired = self.corpus.main_retrievers(), PairedScores(self)  # paired: the Δ columns' per-question scores

    # ------------------------------------------------------------ artifacts
    @cached_property
    def corpus_stats(self) -> tuple[Counter, int, list[int]]:
        """(documents per language, their characters, every chunk's characters sorted), streamed."""
        docs = [(d["lang"], len(d["text"])) for d in iter_records(self.layout.docs, "documents")]
        chunks = sorted(len(c["text"]) for c in iter_records(self.layout.chunks, "chunks"))
        return Counter(lang for lang, _ in docs), sum(n for _, n in docs), chunks

    @cached_property
    def questions(self) -> list[dict]:
        return load_records(self.layout.questions, "questions")

    @cached_property
    def test_questions(self) -> list[dict]:
        return [q for q in self.questions if q.get("split", "test") == "test"]

    @cached_property
    def metrics(self) -> dict:
        return load_json(self.layout.eval("metrics.json"), "metrics")

    def csv(self, name: str) -> pd.DataFrame:
        return pd.read_csv(verified(self.layout.eval(name)), keep_default_na=False, na_values=[""])

    @cached_property
    def results(self) -> list[dict]:
        """assertions.json: every assertion and target with its run and observed value."""
        return load_json(self.layout.eval("assertions.json"), "assertion results") if self.corpus.assertions else []

    def describe(self, retriever: str) -> str:
        return self.corpus.retrievers[retriever].describe(self.corpus)

    def score(self, retriever: str, metric: str = "hit@5", level: str = "chunk") -> float:
        return self.metrics["retrieval"][retriever][level][metric]

    # ------------------------------------------------------------ facts
    def overview(self) -> dict:
        doc_langs, doc_chars, chars = self.corpus_stats

        def listed(counts: Counter) -> str:
            return ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))

        def counted(rows, key):
            return listed(Counter(r[key] for r in rows))
        return {"source": settings_to_dict(self.corpus.source), "chunk": settings_to_dict(self.corpus.chunk), "n_docs": sum(doc_langs.values()),
                "docs_by_lang": listed(doc_langs), "chars": doc_chars,
                "n_chunks": len(chars), "median_chars": chars[len(chars) // 2] if chars else 0,
                "questions": self.metrics["questions"], "answerable": self.metrics["answerable"],
                "dev": (f" Test split; the dev split's {self.dev['questions']} questions ({self.dev['answerable']} "
                        "answerable) are for choices and shown beside." if self.dev else ""),
                "by_lang": counted(self.test_questions, "lang"),
                "by_difficulty": counted(self.test_questions, "difficulty")}

    def best_retriever(self) -> str:
        """The main retriever with the best chunk hit@5 (MRR breaks a tie)."""
        return max(self.main, key=lambda r: (self.score(r), self.score(r, "mrr")))

    # ------------------------------------------------------------ retrieval
    @property
    def dev(self) -> dict | None:
        """The dev split's metrics, when the questions have one (the headline figures are test's)."""
        return self.metrics.get("splits", {}).get("dev")

    def retrieval(self, level: str) -> pd.DataFrame:
        """The test split's figures, and dev's hit@5 beside them when there is a dev split."""
        rows = [{"Retriever": r, "what": self.describe(r), **{m: self.score(r, m, level) for m in METRICS}}
                for r in self.main]
        columns = ["Retriever", "what", *METRICS]
        if self.dev:
            for row in rows:
                row["hit@5 dev"] = self.dev["retrieval"][row["Retriever"]][level]["hit@5"]
            columns.append("hit@5 dev")
        return labelled(pd.DataFrame(rows, columns=columns))

    def fusion(self) -> pd.DataFrame:
        rows = []
        for r in self.main:
            kind = self.corpus.retrievers[r]
            if not kind.fuses:
                continue
            best = max(kind.upstream(), key=self.score)
            target = self.target(r, "above_inputs")
            rows.append({"Fused run": r, "what": self.describe(r), "hit@5": self.score(r),
                         "best channel": f"`{best}` {self.score(best):.3f}", "Δ hit@5": self.paired.compare(r, best),
                         "target": ("met" if target["passed"] else "not met") if target else None,
                         "mrr": self.score(r, "mrr"), "ndcg@10": self.score(r, "ndcg@10")})
        return labelled(holm_cells(pd.DataFrame(rows), "Δ hit@5"))

    def target(self, retriever: str | None, check: str) -> dict | None:
        """The first target of a kind of check ("above_inputs", "best", ...) about a run (None: any run)."""
        return next((t for t in self.results if not t["gate"] and t["check"] == check
                     and retriever in (None, t["retriever"])), None)

    def targets(self) -> pd.DataFrame:
        rows = [{"target": t["assertion"], "observed": t["observed"], "verdict": "met" if t["passed"] else "not met",
                 "Δ over the best input": self.paired.target(t)} for t in self.results if not t["gate"]]
        return holm_cells(pd.DataFrame(rows), "Δ over the best input", drop_empty=True)

    def tags(self) -> pd.DataFrame:
        tags = self.metrics.get("tags", {})
        counts = Counter(t for q in self.test_questions if q["answerable"] for t in q.get("tags", []))
        rows = [{"tag": t, "n": n, "Retriever": r, **{m: tags[r][t]["chunk"][m] for m in ("hit@5", "recall@5", "mrr")}}
                for t, n in sorted(counts.items()) if n >= MIN_TAG_QUESTIONS for r in self.main]
        return labelled(pd.DataFrame(rows))

    def slices(self) -> pd.DataFrame:
        df = self.csv("slices.csv")
        df = df[(df["split"] == "test") & (df["level"] == "chunk") & df["retriever"].isin(self.main)]
        table = df.pivot_table(index=["lang", "difficulty"], columns="retriever", values="hit@5", sort=False)
        n = df.groupby(["lang", "difficulty"], sort=False)["n"].first()
        return pd.concat([n, table[self.main]], axis=1).reset_index()

    def ablation(self) -> pd.DataFrame:
        div = self.csv("diversity.csv")
        div = div[div["qid"] == "mean"].set_index("retriever")
        rows, k = [], self.corpus.diagnose.k
        kinds = self.corpus.retrievers
        bases = list(dict.fromkeys(kind.upstream()[0] for kind in kinds.values() if kind.reorders))
        for base in bases:
            family = [r for r, kind in kinds.items() if kind.reorders and kind.upstream() == [base]]
            family.sort(key=lambda r: kinds[r].ablation_key())
            for r in [base] + family:
                d = div.loc[r] if r in div.index else {}
                rows.append({"Run": r, "diversification": "none" if r == base else self.describe(r),
                             "hit@5": self.score(r), "hit@5 (doc)": self.score(r, level="doc"),
                             "mrr": self.score(r, "mrr"), f"distinct docs in top {k}": d.get("distinct_docs"),
                             "mean pairwise cos": d.get("mean_cosine")})
        return labelled(pd.DataFrame(rows))

    def sweeps(self) -> list[tuple[str, str, pd.DataFrame]]:
        out = []
        value = self.corpus.swept_value
        for (name, param), points in self.corpus.sweep_groups().items():
            points = sorted([name] + points, key=lambda p: value(p, param))
            rows = [{param: f"{value(p, param):g}", "run": p, "hit@5": self.score(p),
                     "mrr": self.score(p, "mrr"), "ndcg@10": self.score(p, "ndcg@10")} for p in points]
            out.append((name, param, labelled(pd.DataFrame(rows))))
        return out

    # ------------------------------------------------------------ diagnosis
    def diagnosis(self) -> dict:
        diag = self.csv("diagnosis.csv")
        overlap = self.csv("overlap.csv")
        overlap = overlap[overlap["qid"] == "mean"].drop(columns="qid")
        always = self.csv("always_on_top.csv")
        always = always[always["retriever"].isin(self.corpus.base_retrievers())]
        return {"questions": len(diag), "shared_miss": int(diag["shared_miss"].astype(str).eq("True").sum()),
                "overlap": [(pair.split("|"), float(v)) for pair, v in overlap.iloc[0].items()] if len(overlap) else [],
                "always": always[["retriever", "chunk_id", "doc_id", "count"]].head(10)}

    def mechanisms(self) -> pd.DataFrame:
        """Per mechanism (a title field, a cap, MMR), the questions whose gold document enters
        (fixed) or leaves (broken) the top k against the same run without it."""
        diag = self.csv("diagnosis.csv")
        k = self.corpus.diagnose.k
        rows = []
        for r in self.main:
            for mechanism, control in self.corpus.retrievers[r].controls(r, self.corpus):
                inside = diag[f"{r}_doc"].le(k) & diag[f"{r}_doc"].notna()
                before = diag[f"{control}_doc"].le(k) & diag[f"{control}_doc"].notna()
                fixed, broken = list(diag["qid"][inside & ~before]), list(diag["qid"][before & ~inside])
                rows.append({"Mechanism": mechanism, "runs": f"`{control}` → `{r}`", "fixed": len(fixed),
                             "fixed questions": fixed, "broken": len(broken), "broken questions": broken,
                             f"Δ doc in top {k}": self.paired.flips(diag["qid"], inside, before)})
        return holm_cells(pd.DataFrame(rows), f"Δ doc in top {k}")

    def misses(self, run: str) -> pd.DataFrame:
        """The answerable test questions whose gold chunk `run` leaves out of its top k, each with
        where it ranked, the channel that ranked it best, and what that says the miss is."""
        return gold_misses(self, run)

    def assertions(self) -> dict:
        gate = [r for r in self.results if r["gate"]]
        per_run = Counter(), Counter()
        for r in gate:
            per_run[0][r["retriever"]] += 1
            per_run[1][r["retriever"]] += r["passed"]
        runs = pd.DataFrame([{"Run": run, "what": self.describe(run) if run in self.corpus.retrievers else "",
                              "passed": f"{per_run[1][run]} of {n}"} for run, n in per_run[0].items()])
        failed = pd.DataFrame([{"assertion": r["assertion"], "observed": r["observed"]} for r in gate if not r["passed"]],
                              columns=["assertion", "observed"])
        return {"passed": sum(r["passed"] for r in gate), "total": len(gate), "runs": runs, "failed": failed}

    # ------------------------------------------------------------ encoders and answers
    def encoders(self) -> list[dict]:
        out = []
        for e, kind in self.corpus.embedders.items():
            if not kind.trained or not self.layout.encoder_sidecar(e).exists():
                continue
            side = load_json(self.layout.encoder_sidecar(e), "encoder sidecar")
            out.append({"name": e, "pairs": side["training_pairs"], "by_source": side["pairs_by_source"],
                        "losses": side["loss_per_epoch"], "members": side.get("config", {}).get("members", 1),
                        "controls": self.paired.controls(self.controls_of(e))})
        return out

    def controls_of(self, embedder: str) -> pd.DataFrame:
        """The seed's sanity check: a trained encoder's dense runs against every untrained (hashing) one."""
        dense = {r: self.corpus.retrievers[r].dense_embedder() for r in self.main
                 if self.corpus.retrievers[r].dense_embedder()}
        controls = [r for r, e in dense.items() if self.corpus.embedders[e].control]
        rows = [{"trained": t, "control": c, "hit@5": self.score(t), "control hit@5": self.score(c),
                 "ndcg@10": self.score(t, "ndcg@10"), "control ndcg@10": self.score(c, "ndcg@10")}
                for t, e in dense.items() if e == embedder for c in controls]
        return pd.DataFrame(rows)

    ANSWER_COLUMNS = {"contains_answer": "contains answer", "exact_match": "EM", "f1": "F1",
                      "cites_relevant": "cites relevant", "faithful": "faithful",
                      "abstention_accuracy": "abstention accuracy",
                      "contains_answer_when_in_prompt": "contains answer when a relevant chunk is in the prompt",
                      "latency_ms_p50": "latency p50 (ms)", "latency_ms_p95": "latency p95 (ms)"}

    def answers(self) -> pd.DataFrame:
        """Readers × runs (test split): each reader's answer metrics on each answered run."""
        rows = [{"Reader": reader, "Run": run, **{label: a[k] for k, label in self.ANSWER_COLUMNS.items()},
                 "Δ contains answer vs the reader's best run": self.paired.against_best(reader, run, by_run)}
                for reader, by_run in self.metrics.get("readers", {}).items() for run, a in by_run.items()]
        return holm_cells(pd.DataFrame(rows), "Δ contains answer vs the reader's best run")

    def unanswerable(self, run: str) -> pd.DataFrame:
        """What each reader said over `run` to each unanswerable test question."""
        said = {reader: {r["qid"]: r["answer"] for r in load_records(self.layout.answers(reader, run), "answers")}
                for reader in self.corpus.readers}
        return pd.DataFrame([{"qid": q["qid"], "question": q["query"], **{f"`{r}`": said[r][q["qid"]] for r in said}}
                             for q in self.test_questions if not q["answerable"]])

    def trained_readers(self) -> dict[str, dict]:
        """Each trained reader's sidecar (config, training, held-out scores), by name."""
        return {r: load_json(self.layout.reader_model(r).with_suffix(".json"), "reader sidecar")
                for r, kind in self.corpus.readers.items() if kind.trained and self.corpus.answered()}

    def answer_run(self) -> str | None:
        """The run whose answers the unanswerable table shows: the best retriever, if it is answered."""
        runs = self.corpus.answered()
        if not runs:
            return None
        best = self.best_retriever()
        return best if best in runs else runs[0]

    def stage_times(self, jobs: list[tuple[str, str | None]]) -> pd.DataFrame:
        rows = []
        for stage, name in jobs:
            path = self.layout.benchmark(stage, name)
            bench = pd.read_csv(path, sep="\t")
            if len(bench):
                last = bench.iloc[-1]
                rows.append({"Job": path.stem, "seconds": float(last["s"]),
                             "max RSS (MB)": round(float(last.get("max_rss") or 0), 1)})
        return pd.DataFrame(rows, columns=["Job", "seconds", "max RSS (MB)"])
