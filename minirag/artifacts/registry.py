"""Every artifact kind a corpus's jobs write: its path, its producing job, its check.

An `Artifact` is a file pattern under `results/<corpus>/` with the wildcards of the job that
writes it, the job (stage and name pattern) whose receipt vouches for it, and the name of
its content check in content.py. Each stage declares the kinds it makes in its spec (its module
in minirag/stages/); the table of them all, `KINDS` in kinds.py, is generated from the specs
(`python -m minirag.pipeline.artifact_table`, a test fails until it is current), so that the
loaders below the stages read it without importing them. From it follow the layout's paths
(layout.py), which job wrote a file (`producer_of`, how a loader finds the receipt to check
against) and which content check `verify` and the loaders run:

    producer_of("results/kb/runs/bm25.trec")
    -> (Path("results/kb"), ARTIFACTS["run"], {"name": "bm25"})

What it leaves out: which artifacts a corpus has (the config and the specs decide), reading
them (the loaders) and receipts themselves (integrity.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .kinds import KINDS

WILDCARD = re.compile(r"\{(\w+)\}")
# what a wildcard may hold inside a path: a shard is a number, a reader name has no dot
WILDCARD_RE = {"shard": r"\d+", "reader": r"[A-Za-z0-9][A-Za-z0-9_-]*", "n": r"\d+"}


@dataclass(frozen=True)
class Artifact:
    """One kind of file a job writes: its path pattern, the job that writes it, how its content is checked."""
    kind: str                # what it is: "run", "vectors", "bm25_index", ...
    pattern: str             # relative to results/<corpus>, wildcards in braces
    job: str                 # the stage whose receipt vouches for it
    name: str | None = None  # that job's name from the wildcards ("{shard}.{name}"), None: one job per corpus
    check: str | None = None  # the content check (a function of content.py), None: hash only

    def at(self, root: str | Path, **wildcards) -> Path:
        return Path(root) / self.pattern.format(**wildcards)

    def job_name(self, wildcards: dict) -> str | None:
        return self.name.format(**wildcards) if self.name else None

    @cached_property
    def regex(self) -> re.Pattern:
        parts, at = [], 0
        for m in WILDCARD.finditer(self.pattern):
            parts.append(re.escape(self.pattern[at:m.start()]))
            parts.append(f"(?P<{m.group(1)}>{WILDCARD_RE.get(m.group(1), r'[^/]+')})")
            at = m.end()
        parts.append(re.escape(self.pattern[at:]))
        return re.compile("".join(parts))

    @cached_property
    def ends(self) -> tuple[str, str]:
        """The pattern's text before its first wildcard and after its last: a path it matches starts and
        ends with them, so a path that does not is told apart without compiling the regex."""
        found = list(WILDCARD.finditer(self.pattern))
        return (self.pattern[:found[0].start()], self.pattern[found[-1].end():]) if found else (self.pattern, "")

    def match(self, rest: str) -> dict[str, str] | None:
        """The wildcards of `rest` (a path below the corpus root) when it is this artifact's, else None."""
        head, tail = self.ends
        if not (rest.startswith(head) and rest.endswith(tail)):
            return None
        m = self.regex.fullmatch(rest)
        return m.groupdict() if m else None


def check_of(file: str) -> str | None:
    """The content check of a file in a multi-file artifact, by what it holds."""
    return {".json": "json_file", ".jsonl": "records"}.get(Path(file).suffix)


ARTIFACTS: dict[str, Artifact] = {row[0]: Artifact(*row) for row in KINDS}


def files_of(prefix: str) -> list[Artifact]:
    """The artifacts of a multi-file kind ("bm25", "eval", ...), in their declared order."""
    return [a for k, a in ARTIFACTS.items() if k.startswith(prefix + ":")]


def file_names(prefix: str) -> tuple[str, ...]:
    """The files of a multi-file kind in its folder, in their declared order: file_names("bm25")."""
    return tuple(a.pattern.rsplit("/", 1)[1] for a in files_of(prefix))


BM25_FILES, SHARD_BM25_FILES, IVF_FILES = file_names("bm25"), file_names("shard_bm25"), file_names("ivf")
EVAL_FILES, DIAGNOSIS_FILES = file_names("eval"), file_names("diagnosis")


def producer_of(path: str | Path) -> tuple[Path, Artifact, dict[str, str]]:
    """(the corpus root, the artifact, its wildcards) of a file a corpus's job writes;
    ValueError for a file no stage writes."""
    path = Path(path)
    parts = path.parts
    # the nearest root under which the rest is a declared pattern (a corpus named like a folder
    # of another corpus's results is still told apart), but never a shard's own folder
    for cut in range(len(parts) - 1, 0, -1):
        if cut >= 2 and parts[cut - 2] == "shards" and parts[cut - 1].isdigit():
            continue
        rest = "/".join(parts[cut:])
        for artifact in ARTIFACTS.values():
            wildcards = artifact.match(rest)
            if wildcards is not None:
                return Path(*parts[:cut]), artifact, wildcards
    raise ValueError(f"{path}: not an artifact of a corpus's results folder")
