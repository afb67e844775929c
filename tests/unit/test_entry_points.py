"""Every command a user can run answers `--help` with its usage and exits 0: `python -m minirag` and
each subcommand, every module with a `__main__` block, every bench script."""

import re
import runpy
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAIN_RE = re.compile(r'^if __name__ == "__main__":', re.M)


def main_modules() -> list[str]:
    out = []
    for path in sorted((REPO / "minirag").rglob("*.py")):
        if path.name == "__main__.py" or MAIN_RE.search(path.read_text(encoding="utf-8")):
            parts = path.relative_to(REPO).with_suffix("").parts
            out.append(".".join(parts[:-1] if path.name == "__main__.py" else parts))
    return out


def bench_scripts() -> list[Path]:
    return [p for p in sorted((REPO / "bench").glob("*.py")) if MAIN_RE.search(p.read_text(encoding="utf-8"))]


def help_of(run, argv: list[str], monkeypatch, capsys) -> str:
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exit_:
        run()
    out = capsys.readouterr()
    assert exit_.value.code in (0, None), out.err
    return out.out


def test_every_entry_point_is_found():
    assert {"minirag", "minirag.config.load", "minirag.config.schema", "minirag.stages.chunk"} <= set(main_modules())
    assert len(bench_scripts()) >= 10


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # runpy: the module was imported by its package
@pytest.mark.parametrize("module", main_modules())
def test_module_help(module, monkeypatch, capsys):
    text = help_of(lambda: runpy.run_module(module, run_name="__main__", alter_sys=True), [module, "--help"],
                   monkeypatch, capsys)
    assert text.startswith("usage:"), text[:200]


@pytest.mark.parametrize("command", ["search", "answer", "assert", "verify", "clean", "serve", "history", "diff"])
def test_subcommand_help(command, monkeypatch, capsys):
    from minirag.cli import main
    text = help_of(lambda: main([command, "--help"]), ["minirag"], monkeypatch, capsys)
    assert text.startswith(f"usage: python -m minirag {command}"), text[:200]


@pytest.mark.parametrize("script", bench_scripts(), ids=lambda p: p.name)
def test_bench_script_help(script, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(script.parent))
    text = help_of(lambda: runpy.run_path(str(script), run_name="__main__"), [str(script), "--help"], monkeypatch, capsys)
    assert text.startswith("usage:"), text[:200]
