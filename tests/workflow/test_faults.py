"""The fault matrix (bench/faults.py): each damage, deletion, misuse or hostile value holds:
refused with one line naming the file, rebuilt, harmless, or resumed to the clean build.

The fast cases run with the suite; the slow ones (killed builds resumed, a rebuild under a
running server, injections that build whole configs) carry the `slow` marker, which the suite
leaves out unless asked: `pytest -m slow tests/workflow/test_faults.py`. The whole matrix, with its
table per group, is `python bench/faults.py`; its figures are in bench/README.md."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import faults  # noqa: E402
from support.project import copy_built  # noqa: E402

pytestmark = pytest.mark.workflow
CASES = faults.cases()
FAST = [c for c in CASES if c.fast]
SLOW = [c for c in CASES if not c.fast]


@pytest.fixture(scope="module")
def project(faults_built, tmp_path_factory):
    return copy_built(faults_built, tmp_path_factory.mktemp("faults") / "project")  # each case restores; others share


def test_the_matrix_holds_at_least_200_cases_in_every_group():
    from fault_cases import GROUPS
    assert len(CASES) >= 200
    assert {c.group for c in CASES} == set(GROUPS)
    assert len({(c.group, c.name) for c in CASES}) == len(CASES), "two cases share a name"


@pytest.mark.parametrize("case", FAST, ids=[f"{c.group}: {c.name}" for c in FAST])
def test_the_fault_holds(project, case):
    held, observed = case.check(project)
    assert held, observed


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=[f"{c.group}: {c.name}" for c in SLOW])
def test_the_slow_fault_holds(project, case):
    held, observed = case.check(project)
    assert held, observed


def test_the_matrix_in_two_processes_holds_the_same_cases_in_their_order(faults_built, tmp_path):
    """`faults.py --jobs 2`: the cases dealt to two processes, each on its own copy of the built project."""
    project = copy_built(faults_built, tmp_path / "project")
    at = [i for i, c in enumerate(CASES) if c.fast and c.group == "history"][:4]
    rows = faults.run_parallel(at, project, 2)
    assert [(r["group"], r["case"]) for r in rows] == [(CASES[i].group, CASES[i].name) for i in at]
    assert all(r["held"] for r in rows), rows
    assert (tmp_path / "worker-1" / "project" / "results" / "mini.md").is_file()  # the second process's own copy
