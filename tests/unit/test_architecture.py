"""The structure stays as documented: schema from the dataclasses, no import circle, layers that
import only downward, short modules and functions, a lint- and snakefmt-clean workflow, nothing pointing outside the repository."""

import ast
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import yaml

from minirag.config.schema import config_schema, render
from minirag.pipeline.depends import imports_of

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "minirag"
# A module is split by concept, not by length: past WARN_LINES the suite warns (pytest's summary names
# it) that it may hold two jobs; MAX_LINES is the wall a module never needs to reach.
WARN_LINES, MAX_LINES = 400, 600
MAX_FUNCTION_LINES = 60  # a def to its last line, nested functions included


def test_the_committed_schema_is_the_one_the_dataclasses_generate():
    committed = (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8")
    assert committed == render(), "regenerate it: python -m minirag.config.schema > workflow/schemas/config.schema.yaml"


def test_every_shipped_config_validates_against_the_schema():
    import jsonschema
    for path in sorted((REPO / "workflow").glob("config*.yaml")):
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), config_schema())


# The layers, bottom first: a module may import its own layer and the layers below it, never one
# above. A module's layer is its longest prefix here; a new top-level package must be placed.
LAYERS = [
    ("settings", "artifacts", "domain", "terminal", "plan"),  # plumbing: settings dataclasses, files, receipts,
    # content checks, the domain key; what a build and a dry run print
    ("text",),
    ("datasets",),
    ("index",),
    ("rank",),
    ("evaluation",),
    ("answer.evidence", "answer.prompt"),
    ("answer.select",),
    ("answer.reading",),
    ("answer.minigpt",),
    ("answer",),  # the readers, their training, the call site
    ("config",),
    ("history",),
    ("report",),
    ("pipeline",),  # the build graph
    ("query",),  # a built corpus asked questions
    ("stages",),
    ("domains",),  # each domain fills the core's extension points (minirag/domain.py): above all it uses
    ("serve",),
    ("cli", "__main__"),
]


def module_names() -> list[str]:
    """Every minirag module, dotted below the package ("" is minirag/__init__.py)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def import_graph() -> dict[str, set[str]]:
    """module -> the minirag modules it imports, wherever the import stands (lazy ones inside
    functions too): the resolver the workflow lists a stage's code inputs with."""
    modules = set(module_names())
    return {m: {d for d in imports_of(PACKAGE, m, "minirag") if d in modules and d not in ("", m)} for m in modules}


def layer_of(module: str) -> int:
    best = max(((len(p), i) for i, prefixes in enumerate(LAYERS) for p in prefixes
                if module == p or module.startswith(p + ".")), default=None)
    assert best is not None, f"minirag.{module} is in no layer: add its package to LAYERS"
    return best[1]


def test_the_resolver_sees_imports_inside_functions():
    # a lazy import once hid a circle (serve/app.py imported openai_api inside create_app) from a
    # reader of top-level imports; query/built_corpus.py imports artifacts.missing only inside methods
    source = (PACKAGE / "query" / "built_corpus.py").read_text(encoding="utf-8")
    assert "\nfrom ..artifacts.missing" not in source
    assert "artifacts.missing" in import_graph()["query.built_corpus"]


def test_the_import_graph_has_no_circle():
    graph = import_graph()
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                raise AssertionError(" -> ".join(path + [node, dep]))
            if dep not in state:
                visit(dep, path + [node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def test_layers_import_only_downward():
    graph = import_graph()
    upward = [f"minirag.{m} -> minirag.{d}" for m in sorted(graph) if m for d in sorted(graph[m])
              if layer_of(d) > layer_of(m)]
    assert not upward


def module_lengths() -> dict[str, int]:
    return {str(p.relative_to(REPO)): len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.rglob("*.py")}


def test_a_long_module_is_a_warning_and_a_very_long_one_a_failure():
    lengths = module_lengths()
    for name, n in sorted(lengths.items()):
        if n > WARN_LINES:
            warnings.warn(f"{name} has {n} lines: does it hold more than one concept?", stacklevel=1)
    assert not {name: n for name, n in lengths.items() if n > MAX_LINES}


def test_no_function_is_over_60_lines():
    long = [f"{p.relative_to(REPO)}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
            for p in sorted(PACKAGE.rglob("*.py")) for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long


def test_nothing_but_dataset_configs_points_into_shared():
    allowed = {"workflow/config.scifact.yaml", "workflow/config.dify.yaml", "workflow/config.arcd.yaml",
               "workflow/config.squad.yaml"}
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


def test_no_core_module_imports_a_domain():
    """The core finds a domain by name (minirag/domain.py) and never imports one, lazily or not."""
    leaks = {m: sorted(d for d in deps if d.startswith("domains."))
             for m, deps in import_graph().items() if not m.startswith("domains")}
    assert {m: d for m, d in leaks.items() if d} == {}


# What grammar looks like in code: its concepts, word lists and pronouns.
GRAMMAR = re.compile(r"tense|persons|paradigm|conjugat|verb_?form|grammar_?terms|inflect|lemma|constructions\.txt|"
                     r"subjunct|subjuntiv|pretérito|vosotros", re.I)
# The core modules that still name grammar, each for its reason (docs/architecture.md): a new one fails
# the test below, and so does one that no longer does (drop it from here).
NAMES_GRAMMAR = {
    "text/expansion.py": "the retrievers' `expand` keys (tenses, persons, paradigm): the config's contract",
    "rank/kinds/base.py": "checks two of those keys together",
    "rank/kinds/feedback.py": "the answer-feedback kind (an ablation run) orders chunks by a form's lemmas from its reader's vocabulary",
}


def grammar_names(path: Path) -> set[str]:
    """The identifiers and short strings (file names, labels) of a module that name grammar; docstrings
    and comments are prose, not code, and are not read."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.id] if isinstance(node, ast.Name) else [node.attr] if isinstance(node, ast.Attribute) else \
            [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else \
            [node.arg] if isinstance(node, (ast.arg, ast.keyword)) and node.arg else \
            [node.value] if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 60 \
            else []
        found |= {n for n in names if GRAMMAR.search(n)}
    return found


def test_grammar_lives_in_its_domain():
    core = [p for p in sorted(PACKAGE.rglob("*.py")) if "domains" not in p.relative_to(PACKAGE).parts]
    naming = {str(p.relative_to(PACKAGE)): sorted(grammar_names(p)) for p in core}
    assert {k: v for k, v in naming.items() if v and k not in NAMES_GRAMMAR} == {}
    assert [k for k in NAMES_GRAMMAR if not naming.get(k)] == []
    assert not [p for p in (PACKAGE / "text" / "data").iterdir() if GRAMMAR.search(p.name)]


def kind_branches(path: Path, kind_types: set[str]) -> list[str]:
    """Where a module compares a `.family` with a retriever family's name, or a `.type` with a registered kind's
    name: a branch by kind (a question's family or type is not a kind's)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        attrs = {s.attr for s in sides if isinstance(s, ast.Attribute)}
        names = {s.value for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)}
        if ("family" in attrs and names & {"channel", "fusion", "diversifier"}) or ("type" in attrs and names & kind_types):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_only_the_kinds_branch_on_a_kind_and_only_config_reads_the_raw_config():
    """A retriever, embedder or reader kind says what it is by its methods and role flags; nothing outside its
    package compares its family or type name. The checked config is typed: no `cc[...]` / `cc.get(` outside
    config/ (the raw dict's name)."""
    from minirag.answer.readers import READERS
    from minirag.index.embedders import EMBEDDERS
    from minirag.rank.kinds import KINDS
    types = {*KINDS, *EMBEDDERS, *READERS}
    outside = [p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).parts[:2] != ("rank", "kinds")]
    assert [hit for p in outside for hit in kind_branches(p, types)] == []
    raw = [f"{p.relative_to(PACKAGE)}:{n}" for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).parts[0] != "config"
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if re.search(r"\bcc(\[|\.get\()", line)]
    assert raw == []
