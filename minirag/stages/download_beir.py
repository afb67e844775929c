"""download_beir: a published BEIR zip -> data/beir/<dataset>/ (md5-checked, unpacked atomically)."""

from __future__ import annotations

from pathlib import Path

from ..datasets.beir import download_beir as fetch
from .common import log, run_stage


def download_beir(url: str, md5: str, out_dir: Path) -> list[Path]:
    """The only stage that reaches the network, and only when a user asks for its output."""
    fetch(url, md5, out_dir, progress=log)
    return []


if __name__ == "__main__":
    run_stage(download_beir)
