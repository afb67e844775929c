"""results/<report>.manifest.json: what a report was built from, byte for byte.

The config as the report saw it, the versions of Python and the packages, and the sha256
of every input (documents, questions, assertions files) and every output under each
corpus's results folder. Two builds with equal manifests stand on equal bytes.

What it leaves out: logs and benchmark files' timings are hashed like any output, so
they differ between builds; compare `files.*.outputs` without them to check a rebuild.
"""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

from ..artifacts.io import sha256_file
from ..text.corpus import FOLDERS

PACKAGES = ("numpy", "pandas", "snakemake", "pyyaml", "matplotlib", "pystemmer")


def package_versions() -> dict:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def manifest(corpora: dict, results: str | Path, config_path: str | None) -> dict:
    """`corpora`: each corpus's config/typed.py `Corpus`, by name; the manifest echoes its checked config."""
    files = {}
    for name, corpus in corpora.items():
        source = corpus.source
        pattern = source.glob if source.format in FOLDERS else "**/*"
        sources = sorted(p for p in Path(source.path).glob(pattern) if p.is_file())
        if source.format in FOLDERS and source.questions:
            sources.append(Path(source.questions))
        if corpus.assertions:
            sources.append(Path(corpus.assertions))
        root = Path(results) / name
        outputs = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
        # sha256_file: the files the report's tables read were hashed once already, when verified
        files[name] = {"inputs": {str(p): sha256_file(p) for p in sources},
                       "outputs": {str(p): sha256_file(p) for p in outputs}}
    return {"config": config_path, "corpora": {name: dict(c.config) for name, c in corpora.items()}, "packages": package_versions(), "files": files}
