"""`Given`: files a job reads and the one path its command line gets for them.

Apart from the graph so that every stage's command line (stage.py, through stages/common.py)
can name it without importing the graph's kinds: a stage's code inputs are its import closure.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Given:
    """Files a job reads and the one path its command line gets for them: the folder that holds
    them (a BM25 index, a model folder), their first file (weights beside their sidecar), or
    none (a word list the stage finds by itself, tracked so that editing it reruns the job)."""
    arg: str | None
    files: tuple[str, ...]

    @classmethod
    def tracked(cls, files) -> "Given":
        """Word lists a stage finds by itself: tracked only, each named as a rule input is (`as_input`)."""
        from ..artifacts.io import as_input
        return cls(None, tuple(as_input(f) for f in files))
