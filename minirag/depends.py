"""Which minirag source files a stage executes, so a rule can list them as its inputs.

Snakemake does not follow Python imports, so each rule names its stage's modules and the
workflow lists the files they need: the named modules and, transitively, every minirag
module they import (`from .x import ...` or `from . import x`, wherever it stands in the
file, so lazy imports inside functions count too). Importing a module runs it, so a
module that is only imported still belongs to the stage.

What it leaves out: dynamic imports (importlib; minirag has none) and third-party
packages (the manifest records their versions). The caller decides which modules not to
follow: the CLI dispatcher imports every stage's modules lazily, one command each.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterable


def package_imports(path: Path) -> set[str]:
    """Names of the sibling modules a source file imports with a relative import."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def module_closure(package_dir: str | Path, modules: Iterable[str]) -> list[str]:
    """The named modules and all they import from the package, as sorted file paths."""
    package_dir = Path(package_dir)
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = package_dir / f"{name}.py"
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such minirag module")
        seen.add(name)
        todo.extend(package_imports(path) - seen)
    return sorted(str(package_dir / f"{name}.py") for name in seen)
