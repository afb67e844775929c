"""An artifact that is not there: the error, and the check that raises it with the command that builds it.

Below both the content checks (content.py asks for the files a run is checked against) and the
receipts (integrity.py asks for the file before it hashes it), so neither imports the other for it.

What it leaves out: whether a file that is there is the one its job wrote (integrity.py).
"""

from __future__ import annotations

from pathlib import Path


class MissingArtifact(FileNotFoundError):
    """An artifact that is not there; the message names the command that builds it."""


def require(path: str | Path, what: str) -> Path:
    path = Path(path)
    if not path.exists():
        raise MissingArtifact(f"{path} is missing ({what}); build it with: snakemake -c1 '{path}' "
                              "(or snakemake -c1 results/report.md)")
    return path
