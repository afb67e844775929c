"""The development suite's answers (bench/suite/): F1 and abstention per corpus, reader, run and split.

    .venv/bin/python bench/suite_eval.py [--build] [--split dev|test|all] [--reader extractive] [--json]
    .venv/bin/python bench/suite_eval.py --build --prefix nodev- --set dev_weight=0      # a reader variant
    .venv/bin/python bench/suite_eval.py --build --dev-folds --prefix w5- --set dev_weight=5   # choose on dev alone
    .venv/bin/python bench/suite_eval.py --dev-folds --prefix w5- --paired w20-    # the two, question by question

Reads each corpus's built answers (results/<corpus>/answers/<reader>/<run>.jsonl) and its curated
questions (every accepted answer), and scores them as SQuAD's official script does (F1 over
normalised tokens, best over the accepted answers; an unanswerable question scores 1 exactly when the
reader abstains): overall F1, answerable F1, the share of answerable questions abstained on and the
share of not-answerable ones abstained on, beside the answerable F1 of the reader's best span had it
never abstained (the candidates' first answer). `--build` builds the five reports first
(`snakemake -c2 results/suite-<name>.md --configfile bench/suite/<name>.yaml`).

Choices are made on the dev split; the test split is read once, at the end, and quoted in
bench/README.md with the command that printed it. A variant (`--prefix` and `--set`) is the corpus's config
renamed, with settings on its `extractive` reader, written under results/suite-variants/. `--dev-folds`
chooses without the test split: each half of dev is scored by a reader that trained and calibrated on the
other half only; `--no-dev` scores all of dev by a reader that saw no dev question, as on a folder of
someone's documents without questions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from minirag.evaluation.squad import accepted, f1  # noqa: E402

CORPORA = ("grinder", "leave-policy", "recipes", "router", "gym")  # the last two: written later, a fresh held-out set


VARIANTS = ROOT / "results" / "suite-variants"  # the configs (and dev-fold questions) of variants built here


def build(name: str, config: Path | None = None) -> None:
    snakemake = Path(sys.executable).with_name("snakemake")
    subprocess.run([str(snakemake), "-c2", f"results/suite-{name}.md", "--configfile",
                    str(config or ROOT / f"bench/suite/{name}.yaml")], cwd=ROOT, check=True)


def variant(name: str, prefix: str, reader: dict, questions: Path | None = None) -> Path:
    """A config of corpus `name` renamed `prefix + name` (its own results folder), with `reader` settings
    on its `extractive` reader and, given, another questions file: written under VARIANTS."""
    import yaml
    config = yaml.safe_load((ROOT / f"bench/suite/{name}.yaml").read_text(encoding="utf-8"))
    corpus = config["corpora"].pop(name)
    corpus["readers"] = {"extractive": {"type": "extractive", **reader}}
    if questions is not None:
        corpus["source"]["questions"] = str(questions)
    config.update(build=[prefix + name], report=f"suite-{prefix}{name}", corpora={prefix + name: corpus})
    VARIANTS.mkdir(parents=True, exist_ok=True)
    out = VARIANTS / f"{prefix}{name}.yaml"
    out.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return out


def dev_fold(qid: str) -> int:
    return int(hashlib.sha256(("cv:" + qid).encode()).hexdigest(), 16) % 2


def fold_questions(name: str, k: int | None) -> Path:
    """The corpus's dev questions with fold `k` relabelled test (what the fold's reader never trains or
    calibrates on; k None: all of them) and its test questions left out (never read)."""
    rows = [q for q in read_jsonl(ROOT / f"bench/suite/{name}/questions.jsonl") if q["split"] == "dev"]
    out = VARIANTS / f"{name}-dev-fold{'s' if k is None else k}.jsonl"
    VARIANTS.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps({**q, "split": "test" if k is None or dev_fold(q["qid"]) == k else "dev"})
                           + "\n"
                           for q in rows), encoding="utf-8")
    return out


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def best_spans(path: Path) -> dict[str, str]:
    """qid -> the selector's first answer (what the reader says when it answers), "" when it has none."""
    if not path.is_file():
        return {}
    return {r["qid"]: (r["answers"][0]["text"] if r["answers"] else "") for r in read_jsonl(path)}


def said(answers: dict[str, dict], q: dict) -> str:
    """What the reader said to `q`: "" when it abstained."""
    a = answers[q["qid"]]
    return "" if a["abstained"] else a["answer"]


def scores(questions: list[dict], answers: dict[str, dict], spans: dict[str, str]) -> dict:
    """F1 and abstention of one answers file over `questions`."""
    answerable = [q for q in questions if q["answerable"]]
    other = [q for q in questions if not q["answerable"]]

    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 3) if values else 0.0
    return {"n": len(questions), "answerable": len(answerable),
            "f1": mean([f1(said(answers, q), accepted(q)) for q in questions]),
            "answerable_f1": mean([f1(said(answers, q), accepted(q)) for q in answerable]),
            "answerable_abstained": mean([float(answers[q["qid"]]["abstained"]) for q in answerable]),
            "unanswerable_abstained": mean([float(answers[q["qid"]]["abstained"]) for q in other]),
            "answerable_f1_never_abstaining": mean([f1(spans.get(q["qid"], said(answers, q)), accepted(q))
                                                    for q in answerable])}


def held_out(mode: str) -> list[tuple[str, int | None]]:
    """(name prefix, the dev fold it is scored on; None: all of dev) of each build of a held-out `mode`."""
    return {"dev-folds": [("cv0-", 0), ("cv1-", 1)], "no-dev": [("nd-", None)]}.get(mode, [])


def pooled(name: str, reader: str, split: str, prefix: str = "", mode: str = "") -> dict[str, tuple]:
    """run -> (questions, answers by qid, best spans by qid) of corpus `name`; a held-out `mode`: its builds
    (cv0-, cv1- or nd- before `prefix`), each read on the dev questions it never saw."""
    parts = [(ROOT / "results" / f"{pre}{prefix}{name}", "test") for pre, _ in held_out(mode)] or \
        [(ROOT / "results" / (prefix + name), split)]
    out: dict[str, tuple[list, dict, dict]] = {}
    for results, part in parts:
        questions = [q for q in read_jsonl(results / "questions.jsonl") if part == "all" or q.get("split", "test") == part]
        scored = {q["qid"] for q in questions}
        for path in sorted((results / "answers" / reader).glob("*.jsonl")):
            qs, answers, spans = out.setdefault(path.stem, ([], {}, {}))
            qs += questions
            # only this build's scored questions: a fold's build answers the other fold too, as dev questions
            # it trained and calibrated on, and those answers must not stand in for the other build's
            answers.update({a["qid"]: a for a in read_jsonl(path) if a["qid"] in scored})
            spans.update({k: v for k, v in best_spans(results / "candidates" / path.name).items() if k in scored})
    return out


def evaluate(name: str, reader: str, split: str, prefix: str = "", mode: str = "") -> list[dict]:
    """Scores per run of corpus `name` (pooled)."""
    return [{"corpus": name, "reader": reader, "run": run, "split": mode or split, **scores(qs, answers, spans)}
            for run, (qs, answers, spans) in pooled(name, reader, split, prefix, mode).items()]


def paired(names: list[str], reader: str, run: str, split: str, prefixes: tuple[str, str], mode: str) -> dict:
    """F1 of two variants over the same questions of every corpus pooled, and their paired difference (second
    minus first) with its standard error: what a choice between them is read on."""
    f1s = []
    for prefix in prefixes:
        got = {}
        for name in names:
            qs, answers, _ = pooled(name, reader, split, prefix, mode)[run]
            got.update({q["qid"]: f1(said(answers, q), accepted(q)) for q in qs})
        f1s.append(got)
    first, second = f1s
    if first.keys() != second.keys():
        raise SystemExit(f"--paired: the variants {prefixes[0]!r} and {prefixes[1]!r} answered other questions")
    d = [second[k] - first[k] for k in first]
    mean = sum(d) / len(d)
    se = (sum((x - mean) ** 2 for x in d) / (len(d) - 1) / len(d)) ** 0.5 if len(d) > 1 else 0.0
    return {"run": run, "n": len(d), "first": prefixes[0], "f1_first": round(sum(first.values()) / len(d), 3),
            "second": prefixes[1], "f1_second": round(sum(second.values()) / len(d), 3),
            "difference": round(mean, 3), "standard_error": round(se, 3),
            "changed": sum(abs(x) > 1e-9 for x in d)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="build the reports first")
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--reader", default="extractive")
    ap.add_argument("--corpus", action="append", choices=CORPORA, help="only these corpora (repeatable)")
    ap.add_argument("--prefix", default="", help="read results/<prefix><corpus>/ (a variant built under another name)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="with --build and --prefix: a variant whose extractive reader has this setting (YAML value)")
    held = ap.add_mutually_exclusive_group()
    held.add_argument("--dev-folds", action="store_true",
                    help="2-fold cross-validation within dev: each fold's reader trained and calibrated on the other "
                         "half of dev, scored on its own (builds cv0-/cv1-<prefix><corpus>; the test split unread)")
    held.add_argument("--no-dev", action="store_true",
                    help="a reader that never saw a dev question (trained and calibrated on synthesized ones alone, as "
                         "on a folder without questions), scored on all of dev (builds nd-<prefix><corpus>)")
    ap.add_argument("--paired", metavar="PREFIX", help="instead of the table: F1 of `--prefix` and of this variant "
                    "over every corpus's same questions, pooled, and their paired difference ± its standard error")
    ap.add_argument("--run", default="bm25", help="with --paired: the run compared (default bm25)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    mode = "dev-folds" if args.dev_folds else "no-dev" if args.no_dev else ""
    names = args.corpus or list(CORPORA)
    import yaml
    reader = {k: yaml.safe_load(v) for k, v in (kv.split("=", 1) for kv in args.set)}
    if args.build:
        for name in names:
            if mode:
                for pre, k in held_out(mode):
                    build(f"{pre}{args.prefix}{name}", variant(name, pre + args.prefix, reader, fold_questions(name, k)))
            elif args.prefix or reader:
                build(args.prefix + name, variant(name, args.prefix, reader))
            else:
                build(name)
    if args.paired is not None:
        result = paired(names, args.reader, args.run, args.split, (args.prefix, args.paired), mode)
        print(json.dumps(result, indent=2) if args.json else
              f"{result['run']}, {result['n']} questions: {result['first'] or 'default'} F1 {result['f1_first']}, "
              f"{result['second'] or 'default'} F1 {result['f1_second']}: difference {result['difference']:+.3f} "
              f"± {result['standard_error']:.3f} ({result['changed']} questions changed)")
        return
    rows = [r for name in names for r in evaluate(name, args.reader, args.split, args.prefix, mode)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    cols = ("corpus", "run", "n", "f1", "answerable_f1", "answerable_abstained", "unanswerable_abstained",
            "answerable_f1_never_abstaining")
    print(f"split: {args.split}, reader: {args.reader}")
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))


if __name__ == "__main__":
    main()
