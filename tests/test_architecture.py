"""The structure stays as documented: schema from the dataclasses, no import circle, short
modules, a lint- and snakefmt-clean workflow, nothing pointing outside the repository."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from minirag.config.schema import config_schema, render

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "minirag"
MAX_LINES = 310  # "about 300": a module longer than this does more than one job


def test_the_committed_schema_is_the_one_the_dataclasses_generate():
    committed = (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8")
    assert committed == render(), "regenerate it: python -m minirag.config.schema > workflow/schemas/config.schema.yaml"


def test_every_shipped_config_validates_against_the_schema():
    import jsonschema
    for path in sorted((REPO / "workflow").glob("config*.yaml")):
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), config_schema())


def module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the minirag modules it imports at module level (what runs on import)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # top level only
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for target in [base] + [f"{base}.{a.name}" for a in node.names]:
                    if target in modules and target != name:
                        deps.add(target)
        graph[name] = deps
    return graph


def test_the_import_graph_has_no_circle():
    graph = import_graph()
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for dep in graph[node]:
            if state.get(dep) == 1:
                raise AssertionError(" -> ".join(path + [node, dep]))
            if dep not in state:
                visit(dep, path + [node])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [])


def test_no_module_is_much_over_300_lines():
    long = {str(p.relative_to(REPO)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long


def test_nothing_but_dataset_configs_points_into_shared():
    allowed = {"workflow/config.scifact.yaml", "workflow/config.dify.yaml", "workflow/config.arcd.yaml"}
    found = []
    for path in [REPO / "Snakefile", *(REPO / "workflow").rglob("*"), *PACKAGE.rglob("*.py")]:
        if path.is_file() and "../shared" in path.read_text(encoding="utf-8", errors="replace"):
            found.append(str(path.relative_to(REPO)))
    assert set(found) <= allowed, found


def snakemake_bin() -> str:
    return str(Path(sys.executable).with_name("snakemake"))


def test_snakemake_lint_is_clean():
    proc = subprocess.run([snakemake_bin(), "--lint"], cwd=REPO, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Congratulations, your workflow is in a good condition!" in out, out[-3000:]


@pytest.mark.skipif(shutil.which("snakefmt") is None and not Path(sys.executable).with_name("snakefmt").exists(),
                    reason="snakefmt is a test extra: pip install -e '.[test]'")
def test_the_workflow_is_snakefmt_formatted():
    exe = Path(sys.executable).with_name("snakefmt")
    proc = subprocess.run([str(exe) if exe.exists() else "snakefmt", "--check", "Snakefile", "workflow/"],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
