"""The retriever kinds' registry imports a kind's module when the kind is first asked for (rank/kinds/base.py
`KindRegistry`): a look-up imports that module alone, a walk over them all imports every module and comes in a
fixed order whatever was asked first."""

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from minirag.rank.kinds import KINDS, RetrieverKind
from minirag.rank.kinds.base import class_types, declared_kinds

REPO = Path(__file__).resolve().parents[2]


def fresh(code: str):
    """What `code` prints as JSON, run in a fresh interpreter (nothing imported yet)."""
    out = subprocess.run([sys.executable, "-c", "import json, sys\nfrom minirag.rank.kinds import KINDS\n" + code],
                         cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


LOADED = "print(json.dumps(sorted(m for m in sys.modules if m.startswith('minirag.rank.kinds.'))))"


def test_a_look_up_imports_the_module_declaring_that_kind_alone():
    assert fresh(LOADED) == ["minirag.rank.kinds.base"]
    assert fresh("KINDS['rrf']\n" + LOADED) == ["minirag.rank.kinds.base", "minirag.rank.kinds.fusions"]
    assert fresh("assert 'bm25' in KINDS and KINDS.get('nothing') is None\n" + LOADED) == [
        "minirag.rank.kinds.base", "minirag.rank.kinds.channels"]


def test_the_walk_imports_every_kind_in_one_order_whatever_was_asked_first():
    walk = fresh("print(json.dumps(list(KINDS)))")
    assert fresh("KINDS['rerank'], KINDS['rrf']\nprint(json.dumps(list(KINDS)))") == walk
    assert walk == list(KINDS.declared()) and {"bm25", "dense", "rrf", "feedback", "rerank"} <= set(walk)
    assert [KINDS.module_of(k).rsplit(".", 1)[1] for k in walk] == sorted(KINDS.module_of(k).rsplit(".", 1)[1]
                                                                            for k in walk)  # modules by name


def test_a_kind_defined_elsewhere_registers_itself_after_the_folder_s():
    @dataclass(frozen=True)
    class NoSettings:
        pass

    class Elsewhere(RetrieverKind):
        type, Settings = "elsewhere-test", NoSettings
    try:
        assert KINDS["elsewhere-test"] is Elsewhere and list(KINDS)[-1] == "elsewhere-test"
        assert KINDS.module_of("elsewhere-test") is None  # no module of the folder declares it
    finally:
        del KINDS["elsewhere-test"]


def test_a_type_is_read_from_a_class_body_alone_or_in_a_tuple():
    import ast
    tree = ast.parse('class A:\n    type, Settings = "a", S\nclass B:\n    type = "b"\nclass C:\n    kind = "c"\n')
    assert [class_types(node) for node in tree.body] == [["a"], ["b"], []]
    assert declared_kinds(("minirag.rank.kinds.channels",)) == {"dense": "minirag.rank.kinds.channels",
                                                                "ivf": "minirag.rank.kinds.channels",
                                                                "bm25": "minirag.rank.kinds.channels"}
