"""The artifact table (minirag/artifacts/kinds.py), generated from the stage specs:

    python -m minirag.pipeline.artifact_table > minirag/artifacts/kinds.py

Each stage declares the kinds it makes in its spec (`Out(kind, at=..., check=...)`); the loaders, the
layout and `producer_of` sit below the stages and read this table instead of importing them. A new
stage's kinds come with its module, and tests/unit/test_stage_specs.py fails until this file is
regenerated.

What it leaves out: the `Artifact` record and what follows from the table (artifacts/registry.py).
"""

from __future__ import annotations

HEADER = '''"""Every artifact kind a stage writes, as (kind, path pattern, job, job name, content check): generated
from the stage specs by `python -m minirag.pipeline.artifact_table > minirag/artifacts/kinds.py`; edit
the stage's spec (its module in minirag/stages/), not this file."""

KINDS = (
'''


def rows(specs) -> list[tuple]:
    """Every declared kind, in the specs' order and each spec's order of outputs; a kind declared twice is refused."""
    out: dict[str, tuple] = {}
    for spec in specs:
        for a in spec.declared():
            if a.kind in out:
                raise ValueError(f"artifact kind {a.kind!r} is declared by two stages ({out[a.kind][2]}, {spec.rule})")
            out[a.kind] = (a.kind, a.pattern, a.job, a.name, a.check)
    return list(out.values())


def render(specs=None) -> str:
    if specs is None:
        from .stages import STAGES
        specs = STAGES
    return HEADER + "".join(f"    {row!r},\n" for row in rows(specs)) + ")\n"


if __name__ == "__main__":
    print(render(), end="")
