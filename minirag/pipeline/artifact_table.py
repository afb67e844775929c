"""The artifact table (minirag/artifacts/kinds.py), generated from the stage specs:

    python -m minirag.pipeline.artifact_table            rewrites minirag/artifacts/kinds.py
    python -m minirag.pipeline.artifact_table --print    prints it

(Not `> kinds.py`: the shell would empty the file before the specs, which import it, are read.)

Each stage declares the kinds it makes in its spec (`Out(kind, at=..., check=...)`); the loaders, the
layout and `producer_of` sit below the stages and read this table instead of importing them. A new
stage's kinds come with its module, and tests/unit/test_stage_specs.py fails until this file is
regenerated.

What it leaves out: the `Artifact` record and what follows from the table (artifacts/registry.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

HEADER = '''"""Every artifact kind a stage writes, as (kind, path pattern, job, job name, content check): generated
from the stage specs by `python -m minirag.pipeline.artifact_table`; edit the stage's spec (its module in
minirag/stages/), not this file."""

KINDS = (
'''
TABLE = Path(__file__).resolve().parents[1] / "artifacts" / "kinds.py"


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m minirag.pipeline.artifact_table",
                                 description=f"Rewrite {TABLE.relative_to(TABLE.parents[2])} from the stage specs.")
    ap.add_argument("--print", action="store_true", help="print the table instead")
    args = ap.parse_args(argv)
    if args.print:
        print(render(), end="")
    else:
        from ..artifacts.io import atomic_write_text
        atomic_write_text(TABLE, render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
