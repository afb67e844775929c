"""Fetch a BEIR dataset zip, check its md5, and unpack it atomically.

Used only by the explicit `download_beir` rule (a user asks for it by naming its output);
nothing else in minirag touches the network. The zip is downloaded to a temporary file,
its md5 compared with the published one, and the dataset folder is moved into place only
after every file is extracted, so an interrupted download leaves nothing that looks complete.

What it leaves out: retries, mirrors, and datasets without a published checksum.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path

# name -> (url, md5) as published by the BEIR benchmark (Thakur et al., NeurIPS 2021).
BEIR_DATASETS = {
    "scifact": ("https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
                "5f7d1de60b170fc8027bb7898e2efca1"),
}


def md5_file(path: Path) -> str:
    h = hashlib.md5()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download_beir(url: str, md5: str, out_dir: str | Path, progress=print) -> Path:
    """Download `url`, check `md5`, unpack the dataset's folder to `out_dir`."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir.parent, prefix=f".{out_dir.name}.") as tmp:
        zip_path = Path(tmp) / "dataset.zip"
        progress(f"downloading {url}")
        with urllib.request.urlopen(url) as resp, open(zip_path, "wb") as fh:
            shutil.copyfileobj(resp, fh)
        got = md5_file(zip_path)
        if got != md5:
            raise ValueError(f"{url}: md5 {got} does not match the published {md5}; nothing was unpacked")
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(Path(tmp) / "x")
        found = sorted(Path(tmp, "x").rglob("corpus.jsonl"))
        if not found:
            raise ValueError(f"{url}: the archive holds no corpus.jsonl")
        if out_dir.exists():
            shutil.rmtree(out_dir)
        shutil.move(str(found[0].parent), out_dir)
    progress(f"unpacked to {out_dir}")
    return out_dir
