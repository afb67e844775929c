"""Config: values of the wrong type, out of bounds, unknown or hostile, YAML that expands or
nests without bound, and config files that are not files, given to `snakemake -n` (and to
`make check-config`, which checks what Snakemake reads before the workflow runs)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from fault_harness import CONFIG, REPO, Case, accepted, minirag, refused, run, snakemake

BOMB = "\n".join(["  a0: &a0 [x, x, x, x, x, x, x, x, x]"] + [
    f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)])


def config(extra: str, *needles: str, text: str | None = None, ok: bool = False):
    """CONFIG with `extra` lines added to the corpus (or the whole file `text`), planned by a dry run."""
    base = CONFIG if not extra.lstrip().startswith("chunk:") else "".join(  # a chunk setting replaces CONFIG's
        ln for ln in CONFIG.splitlines(keepends=True) if not ln.startswith("    chunk:"))

    def check(project: Path) -> tuple[bool, str]:
        (project / "bad.yaml").write_text(text if text is not None
                                          else base.replace("    assertions:", extra + "\n    assertions:"))
        proc = snakemake(project, "-n", "results/bad.md", config="bad.yaml", mem_mb=3072, timeout=180)
        return accepted(proc) if ok else refused(proc, *needles)
    return check


def renamed(corpus: str) -> str:
    return CONFIG.replace("[mini]", f"[{corpus}]").replace("  mini:", f"  {corpus}:")


def make_check(target: str, content: bytes | None = None, needle: str | None = None):
    """`make check-config CONFIG=target`, then the CLI with the same file: one error line each."""
    def check(project: Path) -> tuple[bool, str]:
        if content is not None:
            (project / target).write_bytes(content)
        venv = Path(sys.executable).parent.parent
        proc = run(["make", "-s", "-f", str(REPO / "Makefile"), "check-config", f"CONFIG={target}", f"VENV={venv}"],
                   project)
        held, said = refused(proc, needle or target)
        cli_held, _ = refused(minirag(project, "search", "eat", config=target), needle or target)
        return held and cli_held, said
    return check


def cases() -> list[Case]:
    g = "config"
    return [Case(name, g, check) for name, check in [
        ("overlap >= target_tokens", config("    chunk: {strategy: tokens, target_tokens: 20, overlap: 20}",
                                            "overlap")),
        ("chars with overlap 0 (accepted)", config("    chunk: {strategy: chars, size: 300, overlap: 0}", ok=True)),
        ("depth: many", config("    depth: many", "depth")),
        ("depth: true", config("    depth: true", "depth")),
        ("depth: 0", config("    depth: 0", "depth")),
        ("depth: 1.5", config("    depth: 1.5", "depth")),
        ("depth: '10'", config("    depth: '10'", "depth")),
        ("a NaN lambda", config("", "lambda", text=CONFIG.replace("lambda: 0.7", "lambda: .nan"))),
        ("an infinite lambda", config("", "lambda", text=CONFIG.replace("lambda: 0.7", "lambda: .inf"))),
        ("a NaN BM25 k1", config("    bm25: {plain: {k1: .nan}}", "k1")),
        ("an infinite reader timeout", config("", "timeout_s", text=CONFIG.replace(
            "      extractive: {type: extractive}", "      extractive: {type: extractive}\n"
            "      remote: {type: openai, timeout_s: .inf}"))),
        ("shards: 10^9 (a DAG of billions of jobs)", config("    shards: 1000000000", "shards")),
        ("a docs path with {braces}", config("", "fixture/{docs}", text=CONFIG.replace("path: fixture/docs",
                                                                                     "path: 'fixture/{docs}'"))),
        ("an assertions path with {braces}", config("", "assertions", text=CONFIG.replace(
            "fixture/assertions.yaml", "'fixture/{x}.yaml'"))),
        ("a typo in a key", config("    depht: 10", "depht")),
        ("an unknown retriever type", config("", "type", text=CONFIG.replace("type: rrf,", "type: rfr,"))),
        ("fusion of an unknown retriever", config("", "nope", text=CONFIG.replace("of: [dense, bm25]",
                                                                                  "of: [dense, nope]"))),
        ("a retriever named a/b", config("", "a/b", text=CONFIG.replace("      dense:", "      a/b:"))),
        ("a retriever named ..", config("", "..", text=CONFIG.replace("      dense:", "      '..':"))),
        ("an index named ..", config("    bm25: {'..': {}}\n    embedders: {hashing: {type: hashing}}", "..")),
        ("an embedder named with a quote", config("    embedders: {\"a'b\": {type: hashing}}", "a'b")),
        ("a corpus named ../x", config("", "../x", text=CONFIG.replace("[mini]", "['../x']").replace(
            "  mini:", "  '../x':"))),
        ("report: ../../escape", config("", "report", text="report: ../../escape\n" + CONFIG)),
    ]] + [Case(f"a corpus named {name} (a folder results/ keeps)", g, config("", f"corpora.{name}", "keeps",
                                                                           text=renamed(name)))
          for name in ("history", "configs", "logs", "benchmarks")] + [Case(name, g, check) for name, check in [
        ("alias bomb in a value", config("", "alias bomb", text="x-anchors:\n" + BOMB + "\n" + CONFIG
                                         + "    depth: *a8\n")),
        ("alias bomb in an unused key", config("", "alias bomb", text="x-anchors:\n" + BOMB + "\nx-use: *a8\n"
                                               + CONFIG)),
        ("recursive alias", config("", "recursive", text="x-loop: &l [1, *l]\n" + CONFIG)),
        ("a value nested 60 deep", config("    note: " + "[" * 60 + "]" * 60, "nested")),
        ("a top-level list (make, CLI)", make_check("list.yaml", b"- a\n- b\n", "list.yaml")),
        ("not valid YAML (make, CLI)", make_check("broken.yaml", b"corpora: {mini: [\n", "broken.yaml")),
        ("an assertions file that is an alias bomb", assertions_bomb),
        ("an assertions file that is missing", config("", "missing.yaml", text=CONFIG.replace(
            "fixture/assertions.yaml", "fixture/missing.yaml").replace("[mini]", "[fresh]").replace(
            "  mini:", "  fresh:"))),
        ("configfile a folder (make, CLI)", make_check("fixture")),
        ("configfile missing (make, CLI)", make_check("missing.yaml")),
        ("configfile empty (make, CLI)", make_check("empty.yaml", b"")),
        ("configfile not UTF-8 (make, CLI)", make_check("latin.yaml", b"note: caf\xe9\n", "UTF-8")),
        ("configfile an alias bomb (make, CLI)", make_check("bomb.yaml", ("x-anchors:\n" + BOMB + "\n" + CONFIG
                                                                          + "    depth: *a8\n").encode(),
                                                            "alias bomb")),
        ("chunk: twice (dry run)", config("", "duplicate key 'chunk'", "first on line", text=CONFIG.replace(
            "    assertions:", "    chunk: {strategy: tokens, target_tokens: 60}\n    assertions:"))),
        ("chunk: twice (make, CLI)", make_check("twice.yaml", CONFIG.replace(
            "    assertions:", "    depth: 10\n    depth: 20\n    assertions:").encode(), "duplicate key 'depth'")),
        ("a key twice at the top level", config("", "duplicate key 'build'", text="build: [mini]\n" + CONFIG)),
        ("a key twice in an assertions file", assertions_twice),
        ("a docs folder and a questions file named like flags (--help, -q.jsonl)", dashed_paths),
    ]] + [Case("every legal chunk size builds: target_tokens 20, overlap 8", g, tiny_chunks, fast=False)]


def assertions_twice(project: Path) -> tuple[bool, str]:
    from fault_harness import stage
    path = project / "scratch/twice-assertions.yaml"
    path.write_text("assertions: []\nassertions: []\n")
    proc = stage(project, "assertions", "--settings", '{"strict": false, "inputs_of": {}}', "--assertions",
                 str(path), "--questions", "results/mini/questions.jsonl", "--docs", "results/mini/docs.jsonl",
                 "--chunks", "results/mini/chunks.jsonl", "--runs", "results/mini/runs/bm25.trec",
                 "--out", "scratch/assertions.md", timeout=120)
    return refused(proc, "twice-assertions.yaml:2", "duplicate key")


def tiny_chunks(project: Path) -> tuple[bool, str]:
    """Chunks of 20 tokens overlapping by 8 (some hold a table's header and nothing else, no candidate):
    the readers train and the candidates are scored, in a corpus of their own (results/tiny/)."""
    text = CONFIG.replace("[mini]", "[tiny]").replace("  mini:", "  tiny:").replace("target_tokens: 40",
                                                                                    "target_tokens: 20")
    (project / "tiny.yaml").write_text(text)
    try:
        proc = snakemake(project, "results/tiny/candidates/rrf.jsonl", "results/tiny/readers/minigpt.npz",
                         config="tiny.yaml", timeout=1800)
    finally:
        shutil.rmtree(project / "results/tiny", ignore_errors=True)
    return accepted(proc, "built: the readers trained and the candidates scored")


def assertions_bomb(project: Path) -> tuple[bool, str]:
    from fault_harness import stage
    path = project / "scratch/bomb-assertions.yaml"
    path.write_text(BOMB.replace("  a", "a") + "\nassertions: *a8\n")
    proc = stage(project, "assertions", "--settings", '{"strict": false, "inputs_of": {}}', "--assertions",
                 str(path), "--questions", "results/mini/questions.jsonl", "--docs", "results/mini/docs.jsonl",
                 "--chunks", "results/mini/chunks.jsonl", "--runs", "results/mini/runs/bm25.trec",
                 "--out", "scratch/assertions.md", mem_mb=2048, timeout=120)
    return refused(proc, "bomb-assertions.yaml", "alias bomb")


def dashed_paths(project: Path) -> tuple[bool, str]:
    """A source folder `--help` and a questions file `-q.jsonl` reach curate and questions as values
    (`--source=--help`), not as flags: both stages run."""
    docs, questions = project / "--help", project / "-q.jsonl"
    if not docs.exists():
        shutil.copytree(project / "fixture/docs", docs)
    shutil.copy(project / "fixture/questions.jsonl", questions)
    text = CONFIG.replace("[mini]", "[dash]").replace("  mini:", "  dash:").replace(
        "path: fixture/docs, questions: fixture/questions.jsonl", "path: --help, questions: -q.jsonl")
    (project / "dash.yaml").write_text(text)
    try:
        proc = snakemake(project, "results/dash/questions.jsonl", config="dash.yaml", timeout=300)
        built = (project / "results/dash/questions.jsonl").is_file()
    finally:
        shutil.rmtree(project / "results/dash", ignore_errors=True)
    held, said = accepted(proc, "curated and the questions checked")
    return held and built, said
