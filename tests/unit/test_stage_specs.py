"""The stage specs (each in its module of minirag/stages/, found by minirag/pipeline/stages/): each is
declared where it runs and has a place of its own in the graph; each job's command line parses with its
stage's own parser and carries what the spec reads and writes; each spec's outputs agree with the artifact
registry, which is the one the specs declare; the registry finds the job of every file a job writes; the
docs' stage table is current; finding the specs imports no plotting or table library."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.project import MINI_CONFIG, MINI_CORPUS, REPO, config_with

from minirag.artifacts.layout import CorpusLayout
from minirag.artifacts.registry import ARTIFACTS, producer_of
from minirag.config.corpus import corpus_config, corpus_names
from minirag.config.load import load_config
from minirag.pipeline.artifact_table import render
from minirag.pipeline.graph import CorpusGraph
from minirag.pipeline.stage import PHASES, Given
from minirag.pipeline.stages import BY_RULE, STAGES
from minirag.pipeline.stages.table import DOC_CONFIGS, graphs_of, markdown, rows
from minirag.stages.common import parser_for


def with_chunk(text: str, chunk: dict) -> str:
    """A config with its corpus's chunk section replaced (a merge would keep keys the strategy does not read)."""
    config = yaml.safe_load(text)
    config["corpora"]["mini"]["chunk"] = chunk
    return yaml.safe_dump(config, sort_keys=False)


SHARDED = config_with({"shards": 3,
                       "bm25": {"title": {"title_weight": 0.5}},
                       "retrievers": {"dense": {"type": "dense", "embedder": "hashing"},
                                      "bm25-title": {"type": "bm25", "index": "title"},
                                      "rrf": {"type": "rrf", "of": ["dense", "bm25-title"]}},
                       "readers": {"extractive": {"type": "extractive"}}},
                      base=with_chunk(MINI_CORPUS, {"strategy": "chars", "size": 300, "overlap": 40}))
UNITS_IVF = config_with({"train_cap": 3,
                         "bm25": {"plain": {}, "units": {"items": "units"}},
                         "retrievers": {"dense": {"type": "dense", "embedder": "hashing"},
                                        "bm25-units": {"type": "bm25", "index": "units"},
                                        "ivf": {"type": "ivf", "embedder": "hashing", "nlist": 4,
                                                "sweep": {"nprobe": [4]}},
                                        "rrf": {"type": "rrf", "of": ["ivf", "bm25-units"]},
                                        # no dev questions: fitted on held-out synthetic ones (fit_questions)
                                        "rrf-fit": {"type": "rrf", "of": ["ivf", "bm25-units"], "fit": True}}},
                        base=MINI_CORPUS)
SHIPPED = ["workflow/config.yaml", "workflow/config.ablations.yaml", "workflow/config.scifact.yaml",
           "workflow/config.dify.yaml", "workflow/config.arcd.yaml", "workflow/config.squad.yaml"]


def graphs(config: dict) -> list[CorpusGraph]:
    return [CorpusGraph(corpus_config(config, n), CorpusLayout.of("results", n)) for n in corpus_names(config)]


@pytest.fixture(scope="module")
def every_graph():
    """Every corpus of the shipped configs and of fixture configs with shards, units, IVF and a
    training sample: between them, a job of every stage."""
    here = Path.cwd()
    import os
    os.chdir(REPO)  # the configs name their folders relative to the repository
    try:
        out = [g for path in SHIPPED for g in graphs(load_config(path))]
        out += [g for text in (MINI_CONFIG, SHARDED, UNITS_IVF) for g in graphs(yaml.safe_load(text))]
        yield out
    finally:
        os.chdir(here)


def stage_function(spec):
    return getattr(importlib.import_module(spec.runs), spec.function)


def test_each_spec_is_declared_in_the_module_it_runs():
    for spec in STAGES:
        if spec.runs.startswith("minirag.domains."):
            continue  # a domain's stages are its Domain's (minirag/domain.py)
        assert spec in importlib.import_module(spec.runs).STAGES, spec.rule


def test_each_spec_has_a_place_of_its_own_and_the_list_comes_in_that_order():
    places = [(s.phase, s.step) for s in STAGES]
    assert len(set(places)) == len(places)
    assert [s.order for s in STAGES] == sorted(s.order for s in STAGES)
    assert {s.phase for s in STAGES} <= set(PHASES)


def test_the_committed_artifact_table_is_the_one_the_specs_declare():
    committed = (REPO / "minirag" / "artifacts" / "kinds.py").read_text(encoding="utf-8")
    assert committed == render(STAGES), \
        "regenerate: python -m minirag.pipeline.artifact_table"


def test_a_kind_declared_by_two_stages_is_refused():
    from dataclasses import replace
    twice = replace(BY_RULE["units"], rule="units_again", step=99)
    with pytest.raises(ValueError, match="'units' is declared by two stages"):
        render([*STAGES, twice])


def test_finding_the_specs_imports_no_plotting_or_table_library():
    # every dry run reads every spec: a stage module imports matplotlib or pandas inside its function
    code = "import sys, minirag.pipeline.stages; print(sorted({'matplotlib', 'pandas'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_every_stage_has_a_job_in_the_configs_tried(every_graph):
    assert {s.rule for g in every_graph for s in STAGES if s.names(g)} == set(BY_RULE)


def test_each_jobs_command_line_parses_with_its_stages_parser_and_says_what_the_spec_reads(every_graph):
    for g in every_graph:
        for spec in STAGES:
            parser = parser_for(stage_function(spec))
            for w in spec.names(g):
                args = vars(parser.parse_args(spec.argv(g, w)))
                where = f"{g.layout.root.name}: {spec.rule} {w}"
                for key, value in spec.reads(g, w).items():
                    given = value.arg if isinstance(value, Given) else value
                    if isinstance(value, dict):  # files by key, each the one path its kind looks up
                        assert {k: str(p) for k, p in (args[key] or {}).items()} == {
                            k: str(v.arg if isinstance(v, Given) else v) for k, v in value.items()
                            if not isinstance(v, Given) or v.arg is not None}, where
                    elif given is None:
                        assert key not in args or not args[key], where
                    elif isinstance(given, list):
                        assert [str(p) for p in args[key]] == given, where
                    else:
                        assert str(args[key]) == str(given), where
                for key, out in spec.writes.items():
                    if out.arg:
                        path = out.paths(g.layout, w)[0]
                        assert Path(args[key]) == (path.parent if out.arg == "folder" else path), where
                assert args["receipt"] == g.layout.receipt(spec.job, spec.job_name(w)), where
                if spec.settings:
                    assert args["settings"] == spec.settings(g, w), where


def test_a_value_that_starts_with_a_dash_reaches_the_stage_as_a_value():
    config = yaml.safe_load(MINI_CONFIG)
    config["corpora"]["mini"]["source"]["path"] = "--help"
    g = graphs(config)[0]
    spec = BY_RULE["curate"]
    args = vars(parser_for(stage_function(spec)).parse_args(spec.argv(g, {})))
    assert args["source"] == Path("--help")


def test_each_specs_outputs_are_artifacts_of_its_own_job():
    for spec in STAGES:
        # a job vouches for its outputs by its own receipt, or by another it writes (the embedding cache's)
        receipts = {spec.job} | {o.kind for o in spec.writes.values() if o.receipt}
        for out in spec.writes.values():
            for artifact in out.artifacts():
                assert artifact.job in receipts and artifact.name == spec.per, (spec.rule, artifact.kind)
    produced = {a.kind for s in STAGES for o in s.writes.values() for a in o.artifacts()}
    assert produced == set(ARTIFACTS)  # every registered kind has a stage that writes it


def test_the_registry_names_the_job_of_every_file_a_job_writes(every_graph):
    for g in every_graph:
        for spec in STAGES:
            for w in spec.names(g):
                for path in spec.written(g, w):
                    if path.parent.name == "receipts":
                        continue
                    root, artifact, wildcards = producer_of(path)
                    assert root == g.layout.root and artifact.job in (spec.job, "embed_cache"), path
                    assert artifact.job_name(wildcards) == spec.job_name(w), path


@pytest.mark.parametrize("path, job, name", [
    ("results/kb/shards/2/docs.jsonl", "curate_shard", "2"),
    ("results/kb/shards/0/bm25/title/postings.npz", "bm25_shard", "0.title"),
    ("results/answers/prompts/bm25.jsonl", "prompt", "bm25"),  # a corpus named like a folder
    ("results/kb/answers/minigpt/rrf@k=5.jsonl", "generate", "minigpt.rrf@k=5"),
    ("results/kb/readers/extractive.tasks.jsonl", "train_reader", "extractive"),
    ("results/kb/eval/overlap.csv", "diagnose", None),
    ("results/kb/figures/sweep-rrf-k.png", "sweep_figure", "rrf-k"),
])
def test_producer_of_reads_the_job_from_the_path(path, job, name):
    _, artifact, wildcards = producer_of(path)
    assert (artifact.job, artifact.job_name(wildcards)) == (job, name)


def test_a_file_no_stage_writes_is_refused():
    with pytest.raises(ValueError, match="not an artifact"):
        producer_of("results/kb/notes.txt")


def test_the_server_loads_what_the_retrieve_and_answer_jobs_read_and_no_run_file():
    here = Path.cwd()
    import os
    os.chdir(REPO)
    try:
        g = graphs(load_config("workflow/config.yaml"))[0]
        served = set(g.served())
    finally:
        os.chdir(here)
    lay = g.layout
    assert {str(lay.docs), str(lay.chunks), str(lay.lexicon)} <= served
    assert {str(p) for p in lay.bm25_files("plain")} <= served
    assert str(lay.vectors("biencoder")) in served and str(lay.encoder("biencoder")) in served
    assert {str(p) for r in g.trained_readers() for p in lay.reader_files(r)[:2]} <= served
    assert {str(lay.questions), str(lay.eval("metrics.json"))} <= served  # the page's example, the best run
    assert not [p for p in served if "/runs/" in p or "/prompts/" in p]


def test_the_stage_table_in_the_docs_is_the_one_the_specs_print():
    here = Path.cwd()
    import os
    os.chdir(REPO)
    try:
        table = markdown(rows(graphs_of(DOC_CONFIGS)))
    finally:
        os.chdir(here)
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = doc.index("<!-- stage table: generated -->\n") + len("<!-- stage table: generated -->\n")
    assert doc[start:doc.index("<!-- end of stage table -->")] == table, \
        "regenerate: python -m minirag.pipeline.stages --markdown"
