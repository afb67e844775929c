"""The source files a stage executes: its module, what it imports from the package, the packages above."""

from pathlib import Path

import pytest

from minirag.pipeline.depends import module_closure

REPO = Path(__file__).resolve().parents[2]


def write(root: Path, rel: str, text: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def rels(paths: list[str], root: Path) -> list[str]:
    return [Path(p).relative_to(root).as_posix() for p in paths]


@pytest.fixture
def pkg(tmp_path):
    root = tmp_path / "pkg"
    write(root, "__init__.py", '"""face"""\n')
    write(root, "io.py")
    write(root, "stages/__init__.py")
    write(root, "stages/run.py", "from ..text.cut import cut\n\ndef main():\n    from ..index import lazy\n")
    write(root, "text/__init__.py")
    write(root, "text/cut.py", "from . import words\nfrom ..io import x\nimport json\n")
    write(root, "text/words.py", "from pkg.text.cut import cut\n")  # absolute, and a cycle back
    write(root, "index/__init__.py")
    write(root, "index/lazy.py")
    write(root, "index/unrelated.py")
    return root


def test_closure_follows_relative_absolute_and_lazy_imports_and_adds_every_package_init(pkg):
    assert rels(module_closure(pkg, ["stages.run"]), pkg) == [
        "__init__.py", "index/__init__.py", "index/lazy.py", "io.py", "stages/__init__.py", "stages/run.py",
        "text/__init__.py", "text/cut.py", "text/words.py"]


def test_closure_of_a_leaf_module_is_itself_and_its_packages(pkg):
    assert rels(module_closure(pkg, ["index.unrelated"]), pkg) == ["__init__.py", "index/__init__.py",
                                                                    "index/unrelated.py"]


def test_an_unknown_module_is_an_error_naming_its_path(pkg):
    with pytest.raises(FileNotFoundError, match="pkg/stages/missing.py"):
        module_closure(pkg, ["stages.missing"])


def test_a_package_that_imports_every_module_of_its_folder_needs_them_all_one_added_since_included(pkg, tmp_path):
    write(pkg, "kinds/__init__.py", "import importlib\nimport pkgutil\n\nfor m in pkgutil.iter_modules(__path__):\n"
                                    "    importlib.import_module(f'{__name__}.{m.name}')\n")
    write(pkg, "kinds/plain.py", "from ..io import x\n")
    write(pkg, "stages/rank.py", "from ..kinds import KINDS\n")
    cache = tmp_path / "imports.json"
    assert rels(module_closure(pkg, ["stages.rank"], cache=cache), pkg) == [
        "__init__.py", "io.py", "kinds/__init__.py", "kinds/plain.py", "stages/__init__.py", "stages/rank.py"]
    write(pkg, "kinds/added.py")  # the package's __init__ is unchanged: its cached imports must not hide it
    assert "kinds/added.py" in rels(module_closure(pkg, ["stages.rank"], cache=cache), pkg)


def test_a_job_naming_the_modules_it_runs_of_such_a_package_needs_those_alone(pkg):
    write(pkg, "kinds/__init__.py", "import pkgutil\n\n\ndef modules():\n"
                                    "    return [m.name for m in pkgutil.iter_modules(__path__)]\n")
    write(pkg, "kinds/plain.py", "from ..io import x\n")
    write(pkg, "kinds/fancy.py")
    write(pkg, "stages/rank.py", "from ..kinds import modules\n")
    assert {"kinds/plain.py", "kinds/fancy.py"} <= set(rels(module_closure(pkg, ["stages.rank"]), pkg))
    only = rels(module_closure(pkg, ["stages.rank"], only={"kinds": ["kinds.plain"]}), pkg)
    assert "kinds/plain.py" in only and "io.py" in only and "kinds/fancy.py" not in only


def test_a_stage_naming_no_kind_runs_every_retriever_kind():
    files = rels(module_closure(REPO / "minirag", ["stages.report"]), REPO / "minirag")
    kinds = sorted(p.relative_to(REPO / "minirag").as_posix() for p in (REPO / "minirag/rank/kinds").glob("*.py"))
    assert set(kinds) <= set(files) and "rank/kinds/feedback.py" in kinds


def test_a_retrieve_job_s_code_holds_its_kinds_modules_and_those_upstream_alone():
    import yaml

    from minirag.artifacts.layout import CorpusLayout
    from minirag.config.corpus import checked_corpus
    from minirag.pipeline.graph import CorpusGraph
    from minirag.stages.retrieve import retrieve_code
    config = yaml.safe_load((REPO / "workflow/config.ablations.yaml").read_text(encoding="utf-8"))
    g = CorpusGraph(checked_corpus(config, "kb-ablations"), CorpusLayout.of("results", "kb-ablations"))
    assert retrieve_code(g, "bm25") == {"only": {"rank.kinds": ["rank.kinds.channels"]}, "also": []}
    # a reranker over a fusion of channels: what a fitted fusion ranks with live is upstream of it
    assert retrieve_code(g, "lexical-rerank")["only"] == {
        "rank.kinds": ["rank.kinds.channels", "rank.kinds.fusions", "rank.kinds.reorders"]}
    # a feedback run answers through Sources: its job runs the answer stack, and no other job lists it
    from minirag.pipeline.depends import stage_code
    feedback = rels(stage_code(REPO / "minirag", "minirag.stages.retrieve", **retrieve_code(g, "feedback-dense")),
                    REPO / "minirag")
    bm25 = rels(stage_code(REPO / "minirag", "minirag.stages.retrieve", **retrieve_code(g, "bm25")), REPO / "minirag")
    answering = {"query/answering.py", "answer/select/selector.py", "answer/readers.py", "rank/kinds/feedback.py"}
    assert answering <= set(feedback) and not answering & set(bm25)


def test_the_fit_questions_stage_runs_the_fusions_settings_and_no_other_kind():
    from minirag.pipeline.depends import stage_code
    from minirag.stages.fit_questions import STAGES
    code = rels(stage_code(REPO / "minirag", STAGES[0].runs, **STAGES[0].job_code(None, {})), REPO / "minirag")
    assert "rank/kinds/fusions.py" in code and not {"rank/kinds/channels.py", "rank/kinds/reorders.py"} & set(code)


def test_what_a_retrieve_job_imports_is_in_its_code_and_no_other_kind_s_module_is():
    """A fresh process builds a bm25 job's kind as the retrieve stage does: every minirag module it imports
    is among the job's code files (the generated artifact table aside, stage_code's), which name no other
    kind's module: adding or editing one reruns none of its jobs."""
    import json
    import subprocess
    import sys

    from minirag.pipeline.depends import stage_code
    code = rels(stage_code(REPO / "minirag", "minirag.stages.retrieve", only={"rank.kinds": ["rank.kinds.channels"]}),
                REPO / "minirag")
    assert not {"rank/kinds/fusions.py", "rank/kinds/reorders.py", "rank/kinds/feedback.py"} & set(code)
    assert not [f for f in code if f.startswith("answer/")]  # the reader's code is not a bm25 run's
    run = ("import json, sys\nimport minirag.stages.retrieve\nfrom minirag.rank.kinds.base import job_kind\n"
           "job_kind({'type': 'bm25', 'index': 'plain', 'depth': 10}, 'bm25')\n"
           "print(json.dumps(sorted(m.__file__ for n, m in list(sys.modules.items())\n"
           "                        if n.startswith('minirag') and getattr(m, '__file__', None))))")
    out = subprocess.run([sys.executable, "-c", run], cwd=REPO, capture_output=True, text=True, check=True)
    imported = rels(json.loads(out.stdout), REPO / "minirag")
    assert "rank/kinds/channels.py" in imported and "rank/kinds/fusions.py" not in imported
    assert set(imported) - set(code) <= {"artifacts/kinds.py"}


def test_a_stage_s_code_leaves_out_the_generated_artifact_table_its_closure_holds():
    from minirag.pipeline.depends import stage_code
    closure = rels(module_closure(REPO / "minirag", ["stages.units"]), REPO / "minirag")
    code = rels(stage_code(REPO / "minirag", "minirag.stages.units"), REPO / "minirag")
    assert "artifacts/kinds.py" in closure and set(closure) - set(code) == {"artifacts/kinds.py"}


def test_the_bm25_stage_runs_the_settings_module_it_imports_indirectly_and_no_embedder():
    files = rels(module_closure(REPO / "minirag", ["stages.bm25"]), REPO / "minirag")
    assert {"stages/bm25.py", "index/bm25/index.py", "text/analyze.py", "settings.py", "artifacts/io.py"} <= set(files)
    assert not {"index/hashing.py", "index/biencoder.py", "stages/embed.py", "stages/chunk.py"} & set(files)


def test_the_chunk_stage_does_not_run_curation_or_config_code():
    files = rels(module_closure(REPO / "minirag", ["stages.chunk"]), REPO / "minirag")
    assert "text/chunker.py" in files and "text/bpe.py" in files
    assert not {"text/corpus.py", "config/corpus.py", "stages/curate.py", "report/markdown.py"} & set(files)


def test_a_cache_file_keeps_the_imports_and_an_edited_file_is_parsed_again(pkg, tmp_path):
    cache = tmp_path / "imports.json"
    want = module_closure(pkg, ["stages.run"])
    assert module_closure(pkg, ["stages.run"], cache=cache) == want and cache.exists()
    stored = cache.read_text()
    import minirag.pipeline.depends as depends
    depends._STORES.clear()  # as a new process would
    assert module_closure(pkg, ["stages.run"], cache=cache) == want and cache.read_text() == stored
    write(pkg, "index/unrelated.py", "# edited\n")
    write(pkg, "text/words.py", "from ..index import unrelated\n")  # a new import: parsed again
    assert "index/unrelated.py" in rels(module_closure(pkg, ["stages.run"], cache=cache), pkg)
