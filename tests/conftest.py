"""Fixtures shared by both tiers: a fresh project, and the fixture corpus built once a session."""

import sys
from pathlib import Path

import pytest
from support.project import MINI_CONFIG, copy_project, snakemake

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))


@pytest.fixture
def project(tmp_path):
    return copy_project(tmp_path)


@pytest.fixture(scope="session")
def mini_built(tmp_path_factory):
    """The fixture corpus built with MINI_CONFIG, once a session. Read it; to edit, copy it
    (`copy_built`): other modules share it."""
    project = copy_project(tmp_path_factory.mktemp("mini-built"))
    assert (project / "mini.yaml").read_text(encoding="utf-8") == MINI_CONFIG
    built = snakemake(project, "results/mini.md")
    (project / "terminal.txt").write_text(built.stdout + built.stderr, encoding="utf-8")  # what the build printed
    return project


@pytest.fixture(scope="session")
def faults_built(tmp_path_factory):
    """The fault matrix's project (bench/fault_harness.py: the fixture with a Mini-GPT, a reranker
    and a lexicon), built once a session; each case restores what it damages."""
    import fault_harness
    return fault_harness.build_project(tmp_path_factory.mktemp("faults"))
