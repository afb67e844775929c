"""The fast cases of the fault matrix (bench/faults.py): each damage, deletion, misuse or hostile
value holds: refused with one line naming the file, rebuilt, or harmless. The full matrix,
slow cases included, is `python bench/faults.py`; its figures are in bench/README.md."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import faults  # noqa: E402

pytestmark = pytest.mark.workflow
FAST = [c for c in faults.cases() if c.fast]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return faults.build_project(tmp_path_factory.mktemp("faults"))


@pytest.mark.parametrize("case", FAST, ids=[c.name for c in FAST])
def test_the_fault_holds(project, case):
    held, observed = case.check(project)
    assert held, observed
