"""A corpus without `domain: grammar` is the generic core: its plan has no lexicon job and no grammar word
list as an input, and neither its build nor its answers import a module of the grammar's package below
its declaration (minirag/domains/grammar/). With `domain: grammar` the same corpus plans the lexicon job again."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.project import REPO, copy_project, run, snakemake

GRAMMAR_PACKAGE = REPO / "minirag" / "domains" / "grammar"
# every module of the grammar but its declaration (its __init__, which the core reads to find its hooks)
GRAMMAR_MODULES = {"minirag.domains.grammar." + ".".join(p.relative_to(GRAMMAR_PACKAGE).with_suffix("").parts)
                   for p in GRAMMAR_PACKAGE.rglob("*.py") if p.parent != GRAMMAR_PACKAGE or p.name != "__init__.py"}
GRAMMAR_MODULES = {m.removesuffix(".__init__") for m in GRAMMAR_MODULES}
GRAMMAR_WORD_LISTS = {p.name for p in (GRAMMAR_PACKAGE / "data").glob("*.txt")}

SQUAD = REPO.parent / "shared" / "datasets" / "squad2-sample" / "dev-v2.0-sample.json"

# The fixture's markdown folder and questions, as a corpus of its own: no `domain`, the default reader.
GENERIC = """\
build: [gen]
report: gen
corpora:
  gen:
    source: {format: markdown, path: fixture/docs, questions: fixture/questions.jsonl}
    tokenizer: {vocab_size: 400}
    chunk: {strategy: tokens, target_tokens: 40, overlap: 8}
    retrievers:
      dense: {type: dense, embedder: hashing}
      bm25: {type: bm25, index: plain}
      rrf: {type: rrf, of: [dense, bm25], k: 60}
    readers:
      extractive: {type: extractive, questions: 100, steps: 30}
"""


def plan(project: Path, target: str, configfile: str) -> tuple[dict[str, int], str]:
    """(job counts by rule, the dry run's output) of building `target` with `configfile`."""
    out = snakemake(project, "-n", target, configfile=configfile).stdout
    table = out.split("Job stats:")[1].split("total")[0]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}, out


def inputs(out: str) -> set[str]:
    """Every input file a dry run's jobs name."""
    return {f for line in re.findall(r"^    input: (.*)$", out, re.M) for f in line.split(", ")}


def grammar_lists(out: str) -> set[str]:
    return {Path(f).name for f in inputs(out)} & set(GRAMMAR_WORD_LISTS)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = copy_project(tmp_path_factory.mktemp("domain"))
    (root / "gen.yaml").write_text(GENERIC, encoding="utf-8")
    config = yaml.safe_load(GENERIC)
    config["corpora"]["gen"]["domain"] = "grammar"
    (root / "grammar.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return root


def test_a_markdown_folder_without_the_domain_plans_no_lexicon_and_reads_no_grammar_list(project):
    jobs, out = plan(project, "results/gen.md", "gen.yaml")
    assert "train_reader" in jobs and "candidates" in jobs  # its reader is trained and answers
    assert "lexicon" not in jobs and "results/gen/lexicon.json" not in inputs(out)
    assert not grammar_lists(out)


def test_with_the_domain_the_same_folder_plans_the_lexicon_and_its_word_lists(project):
    jobs, out = plan(project, "results/gen.md", "grammar.yaml")
    assert jobs["lexicon"] == 1 and "results/gen/lexicon.json" in inputs(out)
    assert grammar_lists(out) == set(GRAMMAR_WORD_LISTS)


@pytest.mark.skipif(not SQUAD.exists(), reason="the SQuAD sample (../shared/datasets/squad2-sample) is not here")
def test_the_squad_config_plans_no_lexicon(project):
    text = (REPO / "workflow" / "config.squad.yaml").read_text(encoding="utf-8")
    (project / "squad.yaml").write_text(text.replace("../shared/datasets/squad2-sample/dev-v2.0-sample.json",
                                                     str(SQUAD)), encoding="utf-8")
    jobs, out = plan(project, "results/squad.md", "squad.yaml")
    assert "candidates" in jobs and "lexicon" not in jobs and not grammar_lists(out)


def imported_grammar(text: str) -> set[str]:
    """The grammar modules `python -X importtime` lines name (`import time: ... | minirag.domains.grammar.language.slots`)."""
    return {m for m in re.findall(r"^import time:.*\|\s*(minirag\.[\w.]+)\s*$", text, re.M) if m in GRAMMAR_MODULES}


def test_building_and_answering_a_generic_corpus_imports_no_grammar_module(project):
    # every Python process of the build reports its imports on stderr: each job's goes to its log
    env = {**os.environ, "PYTHONPATH": str(project), "PYTHONPROFILEIMPORTTIME": "1"}
    exe = Path(sys.executable).with_name("snakemake")
    proc = subprocess.run([str(exe), "-c1", "results/gen.md", "--configfile", "gen.yaml"], cwd=project, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    logs = sorted((project / "results" / "gen" / "logs").glob("*.log"))
    assert any(p.name.startswith("train_reader") for p in logs) and any(p.name.startswith("candidates") for p in logs)
    assert all("import time:" in p.read_text() for p in logs if p.name.startswith(("train_reader", "candidates")))
    assert {p.name: imported_grammar(p.read_text()) for p in logs if imported_grammar(p.read_text())} == {}
    assert imported_grammar(proc.stderr) == set()  # nor does planning it
    answer = run([sys.executable, "-c", ANSWER], project)
    said, loaded = json.loads(answer.stdout)
    assert said["answer"]  # an answer or "I don't know", from the trained selector
    assert loaded == []


# The answer path in one process: the built corpus opened, a question answered, then which grammar modules it holds.
ANSWER = """
import json, sys
from minirag.query.built_corpus import BuiltCorpus
corpus = BuiltCorpus.open("gen.yaml", "gen", "results")
assert corpus.selector is not None  # the extractive reader's trained selector answers
said = corpus.answer("¿Cuál es el pretérito de tener?")
print(json.dumps([{"answer": said["answer"]}, sorted(m for m in sys.modules if m.startswith("minirag.domains.grammar."))]))
"""
