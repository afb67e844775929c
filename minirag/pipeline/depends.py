"""Which minirag source files a stage executes, so its rule can list them as inputs.

Snakemake does not follow Python imports, so each rule names its stage's module
(`stages.chunk`) and the workflow lists the files it needs: that module and, transitively,
every minirag module it imports, wherever the import stands (lazy imports inside functions
count too), at any depth (`from ..index.bm25 import BM25Index`, `from . import x`,
`from minirag.text import chunk`). Importing `a.b.c` runs `a/__init__.py` and
`a/b/__init__.py` first, so the packages' `__init__.py` files belong to the stage as well.

    module_closure("minirag", ["stages.chunk"])
    -> [minirag/__init__.py, minirag/artifacts/io.py, minirag/settings.py, minirag/stages/__init__.py,
        minirag/stages/chunk.py, minirag/stages/common.py, minirag/text/__init__.py, ...]

A domain's modules are imported dynamically, where the core asks for an extension point
(`hook("query.expander")`, minirag/domain.py): a file that asks for a point by its literal name
needs the modules every domain fills it with, and their closure. A package that lists the modules of
its folder to import them (`pkgutil.iter_modules(__path__)`: rank/kinds/, where a kind is a module,
imported when asked for) needs every module there now, a module added since included, unless the job
names the ones it runs (`only`: a retrieve job, its kinds' modules).

What it leaves out: other dynamic imports (importlib: minirag's own `__init__` loads its
exports lazily, and those are not executed by a stage that does not use them) and
third-party packages (the manifest records their versions).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import pkgutil
import stat
import sys
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from ..artifacts.io import as_input, atomic_write_text  # noqa: F401  (as_input: the graph's, kept in io.py)


def module_file(package_dir: Path, module: str) -> Path | None:
    """The file of a dotted module name below the package ("" is the package itself)."""
    key = (str(package_dir), module)
    if key not in _FILES:  # asked ~5,000 times while the Snakefile is read; two stats each
        base = package_dir.joinpath(*module.split(".")) if module else package_dir
        _FILES[key] = next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)
    return _FILES[key]


_FILES: dict[tuple[str, str], Path | None] = {}


def resolve(current: str, is_package: bool, node: ast.ImportFrom, top: str) -> list[str]:
    """Dotted names (relative to the package root) that an `from ... import ...` may load."""
    if node.level == 0:
        if not node.module or not (node.module == top or node.module.startswith(top + ".")):
            return []
        base = node.module[len(top) + 1:]
    else:
        parts = current.split(".") if current else []
        # a module's own package is its parent; a package's __init__ is its own package
        package = parts if is_package else parts[:-1]
        up = node.level - 1
        if up > len(package):
            return []
        package = package[:len(package) - up] if up else package
        base = ".".join(package + ([node.module] if node.module else []))
    # `from pkg import name` may import the submodule pkg.name
    return [base] + [f"{base}.{alias.name}" if base else alias.name for alias in node.names]


def statements(body: list) -> Iterator[ast.stmt]:
    """Every statement, nested ones included (an import is a statement, never inside an
    expression: walking statements alone finds them all, in a tenth of ast.walk's time)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from statements(inner)


# file -> [sha256 of its bytes, module, top, the names it may import]: the Snakefile asks for ~30
# stages' closures, which share most of their files, so each file is parsed once per process, and
# with `cache` once until its bytes change (a JSON file; parsing every module is ~0.2 s of each
# snakemake call, reading and hashing them all ~5 ms).
_STORES: dict[str, dict[str, list]] = {}
CACHE_BYTES = 16 << 20  # the cache of every minirag module is ~100 KB; a bigger file is not one


def read_cache(cache: Path) -> dict[str, list]:
    """The cache's entries, or {} when it is none: missing, not a regular file (a FIFO would block,
    /dev/zero never end), over CACHE_BYTES, not JSON, or not an object of well-formed entries. The
    file is then rebuilt from the sources, never trusted."""
    try:
        fd = os.open(cache, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without a writer, and is refused
    except OSError:
        return {}
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > CACHE_BYTES:
            return {}
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = json.loads(fh.read(CACHE_BYTES + 1))
    except (OSError, ValueError, RecursionError):
        return {}
    finally:
        os.close(fd)
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, list) and len(v) == 4 and all(isinstance(x, str) for x in v[:3])
            and isinstance(v[3], list) and all(isinstance(x, str) for x in v[3])}


def store_of(cache: Path | None) -> dict[str, list]:
    key = str(cache)
    if key not in _STORES:
        _STORES[key] = read_cache(cache) if cache else {}
    return _STORES[key]


READ_ONLY_FLAGS = {"--dry-run", "--dryrun", "--lint", "--summary", "--detailed-summary", "--list-rules",
                   "--list", "--dag", "--rulegraph", "--filegraph", "--list-changes", "--lc", "--list-code-changes",
                   "--list-params-changes", "--list-input-changes", "--list-target-rules"}


def reading_only(argv: list[str] | None = None) -> bool:
    """Whether this Snakemake call only reads the workflow (a dry run, `--lint`, a summary): it
    then writes no cache either, as docs/integrity.md promises."""
    if argv is None:
        argv = sys.argv[1:] if Path(sys.argv[0]).name.startswith("snakemake") else []
    for arg in argv:
        if arg.split("=", 1)[0] in READ_ONLY_FLAGS:
            return True
        if arg.startswith("-") and not arg.startswith("--") and arg[1:].isalpha() and "n" in arg[1:]:
            return True  # -n, or a cluster of short flags holding it (-pn)
    return False


def imports_of(package_dir: Path, module: str, top: str, store: dict | None = None,
               only: Mapping[str, Iterable[str]] | None = None) -> set[str]:
    path = module_file(package_dir, module)
    if path is None:  # a folder without __init__.py (a namespace package) runs nothing
        return set()
    store = _STORES.setdefault("None", {}) if store is None else store
    st = path.stat()
    seen_as = (str(path), module, top, st.st_mtime_ns, st.st_size, st.st_ino)
    found = _READ.get(seen_as)
    if found is None or store.get(str(path)) is not found:
        found = read_imports(path, module, top, store)
        _READ[seen_as] = found
    names = set(found[3])
    if EVERY in names:  # listed now, not cached: a module added to the folder changes no byte of __init__
        listed = set(only[module]) if only and module in only else folder_modules(package_dir, module)
        names = (names - {EVERY}) | listed
    return {m for m in names if m.startswith(HOOK) or module_file(package_dir, m) is not None}


# (path, module, top, mtime, size, inode) -> its store entry: the ~30 stages' closures ask for the same
# files ~1,700 times in one Snakefile read; reading and hashing each once is enough while it is unchanged
_READ: dict[tuple, list] = {}
_PARSED = [0]  # how many store entries were (re)made in this process: a cache to write again


def read_imports(path: Path, module: str, top: str, store: dict) -> list:
    """The store's entry for a file, [sha256, module, top, its imported names], parsed again when its
    bytes changed."""
    source = path.read_bytes()
    stamp = [hashlib.sha256(source).hexdigest(), module, top]
    found = store.get(str(path))
    if not isinstance(found, list) or found[:3] != stamp:
        tree = ast.parse(source, filename=str(path))
        names: set[str] = set()
        for node in statements(tree.body):
            if isinstance(node, ast.ImportFrom):
                names.update(resolve(module, path.name == "__init__.py", node, top))
            elif isinstance(node, ast.Import):
                names.update(a.name[len(top) + 1:] for a in node.names if a.name.startswith(top + "."))
        names.update(HOOK + point for point in points_asked(tree))
        if path.name == "__init__.py" and imports_every_module(tree):
            names.add(EVERY)
        store[str(path)] = found = stamp + [sorted(names)]
        _PARSED[0] += 1
    return found


HOOK = "hook:"  # an extension point a file asks for, among the names it imports
EVERY = "every-module"  # among a package's names: it lists its folder's modules to import them (found when asked)


def imports_every_module(tree: ast.AST) -> bool:
    """Whether a package's `__init__` lists its own folder's modules (`pkgutil.iter_modules(__path__)`) to
    import them."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "iter_modules"
               and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "__path__"
               for node in ast.walk(tree))


def folder_modules(package_dir: Path, package: str) -> set[str]:
    """The modules and subpackages of a package's folder, as dotted names below the package root."""
    folder = module_file(package_dir, package).parent
    return {f"{package}.{m.name}" if package else m.name for m in pkgutil.iter_modules([str(folder)])}


def points_asked(tree: ast.AST) -> set[str]:
    """The extension points a module asks for by literal name: `hook("p", ...)` or `<domain>.hook("p")`."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "hook") or (isinstance(f, ast.Attribute) and f.attr == "hook"):
                out.add(node.args[0].value)
    return out


def hook_modules(point: str, top: str) -> set[str]:
    """The modules (below `top`) every domain fills `point` with."""
    if top != "minirag":
        return set()
    from ..domain import domains
    return {d.module_of(point)[len(top) + 1:] for d in domains() if point in d.hooks}


def with_packages(module: str) -> list[str]:
    """The module and every package above it: importing a.b.c runs a and a.b first."""
    parts = module.split(".") if module else []
    return [""] + [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def module_closure(package_dir: str | Path, modules: Iterable[str], cache: str | Path | None = None,
                   only: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """The named modules and all they import from the package, as sorted file paths; `cache`: a
    JSON file that keeps each file's imports (by content hash) for the next process; `only`: for a package
    that lists its folder's modules, the ones a job runs (a retrieve job, its kinds'), not all of them."""
    package_dir = Path(package_dir)
    top = package_dir.name
    store = store_of(Path(cache) if cache else None)
    parsed = _PARSED[0] if cache and Path(cache).is_file() else -1
    seen: set[str] = set()
    asked: set[str] = set()  # the extension points asked for so far
    todo = []
    for name in modules:
        if module_file(package_dir, name) is None:
            raise FileNotFoundError(f"{package_dir / name.replace('.', '/')}.py: no such {top} module")
        todo.append(name)
    while todo:
        name = todo.pop()
        if name.startswith(HOOK):
            if name not in asked:
                asked.add(name)
                todo.extend(hook_modules(name[len(HOOK):], top) - seen)
            continue
        for m in with_packages(name):
            if m in seen:
                continue
            seen.add(m)
            todo.extend(imports_of(package_dir, m, top, store, only) - seen)
    if cache and _PARSED[0] != parsed and not reading_only():
        try:
            atomic_write_text(cache, json.dumps(store, sort_keys=True))
        except OSError:  # a read-only checkout: parse again next time
            pass
    return sorted(str(module_file(package_dir, m)) for m in seen if module_file(package_dir, m) is not None)


def stage_code(package_dir: str | Path, module: str, cache: str | Path | None = None,
               only: Mapping[str, Iterable[str]] | None = None, also: Iterable[str] = ()) -> list[str]:
    """The files a stage's rule lists as its code (`module_closure` of `minirag.stages.<stage>`), less the
    generated artifact table (artifacts/kinds.py). Each row of that table is declared in the module of the
    stage that writes it, already that stage's code, and a row added for a new stage changes nothing an
    existing stage does (every file a job writes is found as its own job's: tests/unit/test_stage_specs.py):
    listed, it would make adding a stage rerun every job of every corpus."""
    from .artifact_table import TABLE
    package_dir = Path(package_dir)
    table = str(package_dir / TABLE.relative_to(TABLE.parents[1]))  # as module_closure spells its paths
    files = module_closure(package_dir, [module.removeprefix(package_dir.name + "."), *also], cache=cache, only=only)
    return [f for f in files if f != table]
