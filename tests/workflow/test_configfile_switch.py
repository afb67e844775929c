"""A --configfile given after the fixture's config switches its chunk strategy and a retriever's
type: the workflow plans with the later file's sections, not a merge of two kinds' keys."""

import sys
from pathlib import Path

from support.project import run


def test_a_later_configfile_switching_the_strategy_and_a_type_plans_with_its_own_sections(project):
    (project / "over.yaml").write_text(
        "corpora:\n  mini:\n    chunk: {strategy: chars, size: 300, overlap: 40}\n"
        "    retrievers:\n      bm25: {type: dense, embedder: hashing}\n", encoding="utf-8")
    exe = str(Path(sys.executable).with_name("snakemake"))
    proc = run([exe, "-n", "-p", "--configfile", "mini.yaml", "over.yaml"], project, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert '--settings={"overlap":40,"size":300,"strategy":"chars"}' in proc.stdout
    assert '--name=bm25 \'--settings={"depth":100,"embedder":"hashing","type":"dense"}\'' in proc.stdout
