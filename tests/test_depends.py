"""The source files a stage executes: named modules plus what they import from the package."""

from pathlib import Path

import pytest

from minirag.depends import module_closure


def write(pkg: Path, name: str, text: str) -> None:
    (pkg / f"{name}.py").write_text(text, encoding="utf-8")


def names(paths: list[str]) -> list[str]:
    return [Path(p).stem for p in paths]


def test_closure_follows_relative_imports_at_any_depth_including_lazy_ones(tmp_path):
    write(tmp_path, "stage", "from .helper import f\n\ndef run():\n    from .lazy import g\n    return g()\n")
    write(tmp_path, "helper", "from . import leaf\nimport json\n")
    write(tmp_path, "lazy", "")
    write(tmp_path, "leaf", "from .stage import run\n")  # a cycle back to the start
    write(tmp_path, "unrelated", "")
    assert names(module_closure(tmp_path, ["stage"])) == ["helper", "lazy", "leaf", "stage"]


def test_closure_of_a_leaf_module_is_itself(tmp_path):
    write(tmp_path, "leaf", "import numpy\n")
    assert names(module_closure(tmp_path, ["leaf"])) == ["leaf"]


def test_an_unknown_module_is_an_error_naming_its_path(tmp_path):
    write(tmp_path, "stage", "from .missing import x\n")
    with pytest.raises(FileNotFoundError, match="missing.py"):
        module_closure(tmp_path, ["stage"])


def test_the_bm25_stage_lists_the_settings_module_it_imports_indirectly():
    package = Path(__file__).resolve().parents[1] / "minirag"
    assert {"bm25", "analyze", "settings", "io"} <= set(names(module_closure(package, ["bm25"])))
