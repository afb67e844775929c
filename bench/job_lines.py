"""Every job's command line, inputs and outputs for every shipped config: what a change to how stages
are declared must leave as it is.

    python bench/job_lines.py                      a table: per config, jobs and a digest of their lines
    python bench/job_lines.py --json > lines.json  every job in full: rule, wildcards, argv, inputs, outputs, code
    python bench/job_lines.py --diff A.json B.json the jobs that differ between two dumps (code inputs apart)

Each corpus of `workflow/config*.yaml` is planned whole and in two shards
(what the shard stages read), as the stage table does, and a SQuAD corpus once more without dev questions
and with its fusions fitted (what the fit_questions stage is planned for). Run it from the repository root; with PYTHONPATH
pointing at another checkout's root it dumps that checkout's graph over this checkout's sources.

What it leaves out: the rules written out by hand (the report, downloads, generated corpora) and running
anything.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from pathlib import Path

CONFIGS = sorted(map(str, Path("workflow").glob("config*.yaml")))


def graphs(path: str) -> list[tuple[str, object]]:
    from minirag.artifacts.layout import CorpusLayout
    from minirag.config.corpus import corpus_config, corpus_names
    from minirag.config.load import load_config
    from minirag.pipeline.graph import CorpusGraph
    config = load_config(path)
    out = []
    for name in corpus_names(config):
        cc = corpus_config(config, name)
        sharded = copy.deepcopy(cc)
        sharded["shards"] = 2
        for index in sharded["bm25"].values():
            index["items"] = "chunks"
        out += [(f"{name}", CorpusGraph(cc, CorpusLayout.of("results", name))),
                (f"{name}@2", CorpusGraph(sharded, CorpusLayout.of("results", name)))]
        if cc["source"]["format"] == "squad":  # without dev questions a fitted fusion fits on synthetic ones
            nodev = copy.deepcopy(cc)
            nodev["source"]["dev_docs"] = []
            for r in nodev["retrievers"].values():
                if "of" in r:
                    r["fit"] = True
            out.append((f"{name}@nodev", CorpusGraph(nodev, CorpusLayout.of("results", name))))
    return out


def jobs_of(path: str) -> list[dict]:
    import minirag
    from minirag.pipeline.depends import stage_code
    from minirag.pipeline.stages import STAGES
    package = Path(minirag.__file__).parent
    code: dict[tuple, list[str]] = {}
    out = []
    for corpus, g in graphs(path):
        for spec in STAGES:
            for w in spec.names(g):
                # a job's own part of a package it imports from when asked (a retrieve job's kinds), if it says
                job = spec.job_code(g, w) if getattr(spec, "job_code", None) else {}
                at = (spec.runs, json.dumps(job, sort_keys=True))
                if at not in code:
                    code[at] = [str(Path(p).relative_to(package.parent)) for p in stage_code(package, spec.runs, **job)]
                out.append({"config": path, "corpus": corpus, "rule": spec.rule, "wildcards": w,
                            "argv": spec.argv(g, w), "inputs": spec.inputs(g, w),
                            "outputs": {k: [str(p) for p in v] for k, v in spec.outputs(g.layout, w).items()},
                            "code": code[at]})
    # a package file (a word list) is named from the checkout it is in: compare them by their place in it
    text = json.dumps(out).replace(str(package.parent) + "/", "").replace(str(Path.cwd()) + "/", "")
    return json.loads(text)


def key(job: dict) -> str:
    return json.dumps([job["config"], job["corpus"], job["rule"], job["wildcards"]], sort_keys=True)


def diff(a: list[dict], b: list[dict]) -> int:
    """Print the jobs only one dump has and the fields that differ; the number of differences."""
    old, new = {key(j): j for j in a}, {key(j): j for j in b}
    found = 0
    for k in sorted(old.keys() ^ new.keys()):
        print(f"only in {'A' if k in old else 'B'}: {k}")
        found += 1
    code = set()
    for k in sorted(old.keys() & new.keys()):
        for field in ("argv", "inputs", "outputs"):
            if old[k][field] != new[k][field]:
                print(f"{k} {field}:\n  A {old[k][field]}\n  B {new[k][field]}")
                found += 1
        if old[k]["code"] != new[k]["code"]:
            code.add(old[k]["rule"])
    if [key(j) for j in a if key(j) in new] != [key(j) for j in b if key(j) in old]:
        print("the jobs come in another order")
        found += 1
    same = len(old.keys() & new.keys())
    print(f"{same} jobs in both over {len({j['config'] for j in a})} configs; {found} differences in "
          f"argv, inputs, outputs or the job list; code inputs differ for {len(code)} rules: {', '.join(sorted(code))}")
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--diff", nargs=2, metavar=("A", "B"))
    args = ap.parse_args(argv)
    if args.diff:
        a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in args.diff)
        return 1 if diff(a, b) else 0
    jobs = [j for path in CONFIGS for j in jobs_of(path)]
    if args.json:
        json.dump(jobs, sys.stdout, indent=1, sort_keys=True)
        return 0
    print(f"{'config':42} {'jobs':>5}  digest of argv, inputs, outputs")
    for path in CONFIGS:
        mine = [j for j in jobs if j["config"] == path]
        digest = hashlib.sha256(json.dumps([[j["argv"], j["inputs"], j["outputs"]] for j in mine],
                                           sort_keys=True).encode()).hexdigest()[:16]
        print(f"{path:42} {len(mine):>5}  {digest}")
    print(f"{'total':42} {len(jobs):>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
