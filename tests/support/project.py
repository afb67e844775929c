"""A private copy of the workflow and the fixture corpus to build, and the commands that build it."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "minikb"
sys.path.insert(0, str(REPO / "bench"))
from fault_harness import copy_sources  # noqa: E402  (the one way a project is copied)

# The fixture corpus as a config's `mini` entry, before its embedders and retrievers: a small grammar KB.
MINI_CORPUS = """\
build: [mini]
corpora:
  mini:
    domain: grammar
    source: {format: markdown, path: fixture/docs, questions: fixture/questions.jsonl}
    tokenizer: {vocab_size: 400}
    chunk: {strategy: tokens, target_tokens: 40, overlap: 8}
"""

MINI_CONFIG = MINI_CORPUS + """\
    retrievers:
      dense: {type: dense, embedder: hashing}
      bm25: {type: bm25, index: plain}
      rrf: {type: rrf, of: [dense, bm25], k: 60}
      linear: {type: linear, of: [dense, bm25], alpha: 0.6}
      bm25-cap: {type: cap, base: bm25, cap: 2}
      rrf-mmr: {type: mmr, base: rrf, lambda: 0.7, sweep: {lambda: [0.5]}}
      bm25-x: {type: bm25, index: plain, expand: {translations: 0.5, forms: 0.5}}
      bm25-rerank: {type: rerank, of: bm25-x, synthetic: 50, expand: {translations: 0.5, forms: 0.5}}
    readers:
      extractive: {type: extractive, questions: 300, steps: 100, threshold: 0.3}
      minigpt: {type: minigpt, d: 16, n_heads: 2, block_size: 160, steps: 12, batch_size: 8, tasks: 200, eval_tasks: 3}
    assertions: fixture/assertions.yaml
"""


def copy_project(dest: Path) -> Path:
    """A private copy of the workflow, the library and the fixture corpus, to build and edit."""
    copy_sources(dest)
    (dest / "mini.yaml").write_text(MINI_CONFIG, encoding="utf-8")
    return dest


def run(cmd: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def snakemake(cwd: Path, *args: str, check: bool = True, configfile: str = "mini.yaml") -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("snakemake")
    return run([str(exe), "-c1", *args, "--configfile", configfile], cwd, check=check)


def copy_built(built: Path, dest: Path) -> Path:
    """A private copy of a built project (times kept: Snakemake finds it up to date)."""
    shutil.copytree(built, dest, symlinks=True)
    return dest


def merged(base: dict, over: dict) -> dict:
    """`over` laid on `base`: mappings merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in over.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def config_with(corpus: dict, base: str = MINI_CONFIG) -> str:
    """A config variant as YAML: `corpus` (keys of the `mini` corpus, nested) merged into `base`."""
    import yaml
    config = yaml.safe_load(base)
    config["corpora"]["mini"] = merged(config["corpora"]["mini"], corpus)
    return yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def planned_named(project: Path) -> set[tuple[str, str]]:
    """(rule, job name) of every job `snakemake -n` would run: the name wildcard, "<reader>.<name>" for generate."""
    out = snakemake(project, "-n", "results/mini.md").stdout
    jobs = set()
    for m in re.finditer(r"^rule (\w+):\n(?:    .*\n)*?    wildcards: ([^\n]*)", out, re.MULTILINE):
        wildcards = dict(w.split("=", 1) for w in m.group(2).split(", "))
        if "name" in wildcards:
            jobs.add((m.group(1), ".".join(w for w in (wildcards.get("reader"), wildcards["name"]) if w)))
    return jobs


def built_with(built: Path, dest: Path, corpus: dict) -> Path:
    """A copy of the built fixture project whose mini.yaml has `corpus` merged into its corpus (config_with)."""
    p = copy_built(built, dest)
    config = p / "mini.yaml"
    config.write_text(config_with(corpus, config.read_text(encoding="utf-8")), encoding="utf-8")
    return p


def ablations_graph():
    """The KB ablation study's corpus settings and its graph, where the fitted fusions are (paths in the
    config are the repository's)."""
    from minirag.artifacts.layout import CorpusLayout
    from minirag.config.corpus import corpus_config
    from minirag.config.load import load_config
    from minirag.pipeline.graph import CorpusGraph
    here = os.getcwd()
    os.chdir(REPO)
    try:
        cc = corpus_config(load_config("workflow/config.ablations.yaml"), "kb-ablations")
    finally:
        os.chdir(here)
    return cc, CorpusGraph(cc, CorpusLayout.of("results", "kb-ablations"))
