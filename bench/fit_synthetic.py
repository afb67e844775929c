"""Fusion weights fitted on held-out synthetic questions instead of dev, on a built corpus that has dev.

    python bench/fit_synthetic.py --corpus kb --fusions hybrid-fit lexical-dense-fit rerank-forms
    python bench/fit_synthetic.py --configfile workflow/config.squad.yaml --corpus squad --fusions hybrid

For each fusion: the fit_questions stage's questions (its `fit_questions`, or --n/--families/--seed,
held out from every trained retriever feeding it, as the graph would give them to a corpus without
dev questions), ranked by each upstream retriever live (as the retrieve stage does), the weight grid
fitted on them (rank/fit.py); then the fusion of the upstream run files with those weights and with
the dev-fitted ones (refitted on dev from the run files: a fitted run's own) and with the config's
(what a corpus without dev questions kept before), scored on dev
and test: chunk-level hit@5 and MRR@10 over the answerable questions the evaluation judges. A
corpus's dev-fitted figures here are its run file's (checked: the fused run is recomputed).
Then the synthetic fit corrected towards equal weights, each way tried (`corrections`), scored the
same way: the shrink the graph applies (`fit_questions.shrink`, 0.5 chosen on these dev figures)
and the flattest weights within a tolerance of the best synthetic score.

What it leaves out: rebuilding anything (it reads a built corpus) and readers.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minirag.artifacts.integrity import load_records  # noqa: E402
from minirag.evaluation.trec import load_run, trec_order  # noqa: E402
from minirag.pipeline.graph import CorpusGraph  # noqa: E402
from minirag.query.built_corpus import BuiltCorpus  # noqa: E402
from minirag.rank.fit import best_point, fit_weights, grid_scores, question_score  # noqa: E402
from minirag.rank.kinds import RetrieverKind  # noqa: E402
from minirag.stages.fit_questions import fit_questions, fit_reads, fit_settings  # noqa: E402
from minirag.stages.retrieve import live_retrievers  # noqa: E402


def judged(layout) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in layout.eval("qrels.chunk.txt").read_text().splitlines():
        qid, _, cid, grade = line.split()
        qrels.setdefault(qid, {})[cid] = int(grade)
    return qrels


def figures(fused: dict, qrels: dict, qids: list[str]) -> dict:
    """hit@5 and MRR@10 of `fused` ({qid: ranking}) over the judged questions of `qids`."""
    qids = [q for q in qids if any(v > 0 for v in qrels.get(q, {}).values())]
    hits = [float(any(qrels[q].get(c, 0) > 0 for c, _ in fused.get(q, [])[:5])) for q in qids]
    both = [question_score([c for c, _ in fused.get(q, [])], qrels[q]) for q in qids]
    return {"n": len(qids), "hit@5": round(sum(hits) / len(qids), 3),
            "mrr@10": round((sum(both) - sum(hits)) / len(qids), 3)}


def corrections(grid: list[tuple[float, ...]], scores: np.ndarray) -> dict[str, list[float]]:
    """Synthetic-fitted weights corrected towards equal weights, each way tried: shrunk, (1 - lam) * argmax
    + lam * equal; the flattest grid point (least L1 from equal) whose mean score is within eps of the best,
    eps fixed or one standard error of the best point's mean (the one-standard-error rule)."""
    n, means = len(grid[0]), scores.mean(axis=1)  # scores: (grid points, questions)
    equal = np.full(n, 1.0 / n)
    best = best_point(grid, means)
    out = {f"shrink {lam:g}": [round(float(x), 6) for x in (1 - lam) * np.array(grid[best]) + lam * equal]
           for lam in (0, 0.25, 0.5, 0.75, 1)}
    se = float(scores[best].std(ddof=1) / np.sqrt(scores.shape[1]))
    for label, eps in (("flat 0.02", 0.02), ("flat 0.05", 0.05), (f"flat 1se={se:.3f}", se)):
        near = [i for i in range(len(grid)) if means[i] >= means[best] - eps - 1e-12]
        pick = min(near, key=lambda i: (round(float(np.abs(np.array(grid[i]) - equal).sum()), 9), -means[i], i))
        out[label] = list(grid[pick])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--results", default="results")
    ap.add_argument("--fusions", nargs="+", required=True)
    ap.add_argument("--n", type=int)
    ap.add_argument("--families", nargs="+")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    corpus = BuiltCorpus.open(a.configfile, a.corpus, a.results)
    graph = CorpusGraph(corpus.settings, corpus.layout)
    questions = load_records(corpus.layout.questions, "questions")
    split = {q["qid"]: q.get("split", "test") for q in questions}
    qrels = judged(corpus.layout)
    depth = corpus.depth
    rows = []
    for name in a.fusions:
        kind = corpus.settings.retrievers[name]
        if not kind.s.fit:  # a fusion of given weights: the same fusion, weighted (RRF's plain formula ignores weights)
            kind = RetrieverKind.from_spec({**corpus.settings.retrievers[name].spec(), "fit": True}, f"retrievers.{name}")
            kind.name = name
        settings = fit_settings(graph, name)
        settings.update({k: v for k, v in (("n", a.n), ("families", a.families), ("seed", a.seed)) if v is not None})
        with tempfile.TemporaryDirectory() as tmp:
            reads = fit_reads(graph, name)
            if "learner" in settings["families"]:
                reads.update({"lexicon": str(corpus.layout.lexicon), "terms": graph.terms_file()})
            out = fit_questions(settings, **{k: Path(v) for k, v in reads.items()}, out=Path(tmp) / "fit.jsonl")[0]
            feeding = {r: corpus.settings.retrievers[r].spec() for r in corpus.settings.feeding(name)}
            fit_set = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
            live = live_retrievers(corpus.sources, depth)
            inputs, synth_qrels, fitted_on = kind.synthetic_inputs(fit_set, lambda r: live(feeding, r), depth)
        fuse = lambda rs, w: kind.fuse(rs, w, depth)  # noqa: E731
        synthetic = fit_weights(fuse, inputs, synth_qrels)
        corrected = corrections(*grid_scores(fuse, inputs, synth_qrels))
        runs = [load_run(corpus.layout.run(r)) for r in kind.upstream()]
        dev_qrels = {q: qrels[q] for q in qrels if split.get(q) == "dev"}
        on_dev = fit_weights(fuse, runs, dev_qrels)
        row = {"fusion": name, "fit on": fitted_on, "channels alone (synthetic)": synthetic["channels_alone"]}
        for label, weights in (("config", kind.given_weights()), ("dev", on_dev["weights"]),
                               ("synthetic", synthetic["weights"])):
            fused = {q: trec_order(fuse([r.get(q, []) for r in runs], weights)) for q in split}
            row[label] = {"weights": weights, **{s: figures(fused, qrels, [q for q in split if split[q] == s])
                                                 for s in ("dev", "test")}}
        for label, weights in corrected.items():
            fused = {q: trec_order(fuse([r.get(q, []) for r in runs], weights)) for q in split}
            row.setdefault("corrected", {})[label] = {
                "weights": weights, **{s: figures(fused, qrels, [q for q in split if split[q] == s])
                                       for s in ("dev", "test")}}
        if corpus.settings.retrievers[name].s.fit:  # the shipped run was fitted on dev: these figures are its own
            shipped = load_run(corpus.layout.run(name))
            fused = {q: trec_order(fuse([r.get(q, []) for r in runs], on_dev["weights"])) for q in split}
            row["matches the run file"] = all([c for c, _ in fused[q]] == [c for c, _ in shipped.get(q, [])]
                                              for q in split)
        rows.append(row)
        print(json.dumps(row) if a.json else
              f"{name}: {fitted_on}\n"
              f"  config's weights {row['config']['weights']}  dev hit@5 {row['config']['dev']['hit@5']:.3f}  "
              f"test hit@5 {row['config']['test']['hit@5']:.3f} (mrr@10 {row['config']['test']['mrr@10']:.3f})\n"
              f"  dev-fitted       {row['dev']['weights']}  dev hit@5 {row['dev']['dev']['hit@5']:.3f}  "
              f"test hit@5 {row['dev']['test']['hit@5']:.3f} (mrr@10 {row['dev']['test']['mrr@10']:.3f})\n"
              f"  synthetic-fitted {row['synthetic']['weights']}  dev hit@5 {row['synthetic']['dev']['hit@5']:.3f}  "
              f"test hit@5 {row['synthetic']['test']['hit@5']:.3f} (mrr@10 {row['synthetic']['test']['mrr@10']:.3f})  "
              f"channels alone on synthetic {synthetic['channels_alone']}, fitted {synthetic['score']}"
              + (f"\n  recomputed dev-fitted run = run file: {row['matches the run file']}"
                 if "matches the run file" in row else ""),
              flush=True)
        if not a.json:
            for label, c in row["corrected"].items():
                print(f"    {label:<14} {'/'.join(f'{w:g}' for w in c['weights']):<12} dev hit@5 {c['dev']['hit@5']:.3f} "
                      f"mrr@10 {c['dev']['mrr@10']:.3f}  test hit@5 {c['test']['hit@5']:.3f} "
                      f"mrr@10 {c['test']['mrr@10']:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
