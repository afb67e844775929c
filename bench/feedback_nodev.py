"""A feedback run's dev figure out of sample: its extractive reader retrained without the dev questions.

    python bench/feedback_nodev.py --retriever feedback-dense [--corpus kb] [--out /tmp/feedback-nodev]

The shipped reader trains on the dev questions and calibrates its threshold on them, so a feedback run's dev
figures are in-sample. This trains the reader as train_reader does (its config settings) on the questions
without the dev split (its threshold is then calibrated on held-out synthesized questions), ranks every
question as the feedback kind does over its input run file, and prints the paired figures against that input
run and against the shipped feedback run (bench/paired_runs.py's measures and test).

The reader and run live in `--out`, outside the graph: no receipt vouches for them, so the integrity check is
bypassed for those two files only. What it leaves out: changing anything the graph builds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paired_runs import per_question  # noqa: E402

import minirag.artifacts.integrity as integrity  # noqa: E402
from minirag.answer.training import train_extractive  # noqa: E402
from minirag.config.load import load_corpus  # noqa: E402
from minirag.config.typed import Corpus  # noqa: E402
from minirag.evaluation.evaluate import build_qrels  # noqa: E402
from minirag.evaluation.significance import compare  # noqa: E402
from minirag.evaluation.trec import load_run  # noqa: E402
from minirag.query.sources import Sources  # noqa: E402
from minirag.text.chunks import load_chunks  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--retriever", required=True)
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--out", type=Path, default=Path("/tmp/feedback-nodev"))
    a = ap.parse_args()
    corpus = Corpus.of(load_corpus(a.configfile, a.corpus))
    kind = corpus.retrievers[a.retriever]
    root = Path("results") / a.corpus
    out = a.out / f"{kind.s.reader}.npz"
    a.out.mkdir(parents=True, exist_ok=True)
    verified, load_json = integrity.verified, integrity.load_json
    integrity.verified = lambda p, what="": Path(p) if Path(p).parent == a.out else verified(p, what)
    integrity.load_json = lambda p, what="": (json.loads(Path(p).read_text(encoding="utf-8"))
                                              if Path(p).parent == a.out else load_json(p, what))
    qs = [json.loads(line) for line in (root / "questions.jsonl").open(encoding="utf-8")]
    (a.out / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in qs if q.get("split") != "dev"),
                                           encoding="utf-8")
    files = {"docs": root / "docs.jsonl", "chunks": root / "chunks.jsonl", "lexicon": root / "lexicon.json",
             "terms": Path(corpus.terms_file()), "questions": a.out / "questions.jsonl"}
    train_extractive(corpus.reader_spec(kind.s.reader), kind.s.reader, files, out, lambda m: print(m, file=sys.stderr))
    chunks = load_chunks(files["chunks"], files["docs"])
    sources = Sources(chunks, {f"reader:{kind.s.reader}": out, "lexicon": files["lexicon"], "terms": files["terms"],
                               "chunks": files["chunks"]}, docs=files["docs"])
    base_name = kind.upstream()[0]
    base = load_run(root / "runs" / f"{base_name}.trec")
    shipped = load_run(root / "runs" / f"{a.retriever}.trec")
    nodev = {q["qid"]: kind.combine(q["query"], [base.get(q["qid"], [])], sources, corpus.depth) for q in qs}
    answerable = [q for q in qs if q.get("answerable", True)]
    for control_name, control in ((base_name, base), (a.retriever, shipped)):
        for split in ("dev", "test"):
            sq = [q for q in answerable if q.get("split") == split]
            qrels = build_qrels(sq, chunks)[0]
            scores = [[per_question(run.get(q["qid"], []), {c for c, g in qrels[q["qid"]].items() if g > 0})
                       for q in sq] for run in (nodev, control)]
            conj = [i for i, q in enumerate(sq) if "conjugation" in q.get("tags", [])]
            for label, metric, rows in (("hit@5", "hit@5", range(len(sq))), ("recall@5", "recall@5", range(len(sq))),
                                        ("conj recall@5", "recall@5", conj), ("MRR@10", "MRR@10", range(len(sq)))):
                x, y = ([s[i][metric] for i in rows] for s in scores)
                print(f"{split:5} {label:14} no-dev reader {sum(x) / len(x):.3f}  {control_name} "
                      f"{sum(y) / len(y):.3f}  {compare(x, y).text()}  ({len(x)} questions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
