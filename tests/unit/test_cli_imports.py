"""A cold `python -m minirag answer` loads what answering reads and nothing more: the modules only other
commands use (training, evaluation, the schema, the build graph, the history's statistics) and numpy's
masked arrays and random generators stay unloaded, each having cost a cold answer milliseconds; and
the command's garbage-collector setting does not outlive it in a process that runs the module."""

import gc
import json
import runpy
import subprocess
import sys

import pytest

# The answer path's modules, then the calls of it that reach numpy lazily: the reranker's features
# over a table chunk (np.unique there imported numpy.ma) and the answer selector's linear scorer
# (its constructor drew random weights even when loading).
ANSWER_PATH = """
import json, sys
import minirag.cli, minirag.query.defaults, minirag.config.load, minirag.config.corpus
import minirag.query.built_corpus, minirag.query.sources, minirag.query.citations, minirag.answer.rag
from minirag.answer.select.scorer import AnswerScorer
from minirag.domains.grammar.select.features import FEATURES
from minirag.domains.grammar.select.none_option import NULL_FEATURES
from minirag.answer.select.pooling import pool
from minirag.rank.rerank import DEFAULT_ANALYZER, FeatureMaker
from minirag.text.analyze import Analyzer
from minirag.text.chunks import Chunk, chunk_id
import numpy as np
text = "| verb | past |\\n|---|---|\\n| swim | swam |\\n| sing | sang |"
chunk = Chunk(id=chunk_id("d.md", 0), text=text, doc_id="d.md", offset=0,
              metadata={"title": "Irregular verbs", "section": "", "char_start": 0, "char_end": len(text)})
maker = FeatureMaker(Analyzer(DEFAULT_ANALYZER), [chunk])
maker.features("past of swim", [(chunk.id, 1.0)], {chunk.id: chunk})
scorer = AnswerScorer(len(FEATURES), len(NULL_FEATURES))
p, _ = scorer.probabilities(np.zeros((2, len(FEATURES)), np.float32), np.zeros(len(NULL_FEATURES), np.float32))
pool(["swam", "sang"], p, ["swam", "sang"])
from minirag.artifacts.layout import CorpusLayout
from minirag.config.corpus import corpus_config
from minirag.pipeline.kind_files import KindFiles
cc = corpus_config({"corpora": {"c": {"retrievers": {"bm25": {"type": "bm25"}, "dense": {"type": "dense"},
                                                     "rrf": {"type": "rrf", "of": ["bm25", "dense"], "fit": True}}}}}, "c")
assert KindFiles(cc, CorpusLayout.of("results", "c")).retriever_files()  # what a built corpus's sources open
print(json.dumps(sorted(sys.modules)))
"""

NOT_FOR_ANSWERING = (
    "numpy.ma", "numpy.random",
    "minirag.answer.minigpt.model", "minirag.answer.minigpt.train",
    "minirag.evaluation.evaluate", "minirag.evaluation.answer_scores", "minirag.evaluation.significance",
    "minirag.history.diff", "minirag.config.schema", "minirag.datasets.synth_corpus",
    "minirag.pipeline.graph", "minirag.pipeline.stage",
    "jsonschema", "snakemake", "pandas", "matplotlib", "scipy", "uvicorn", "fastapi",
    "tempfile", "random", "csv", "statistics", "urllib.request", "yaml", "minirag.artifacts.safe_yaml",
)


def test_the_answer_path_loads_no_module_only_other_commands_use():
    proc = subprocess.run([sys.executable, "-c", ANSWER_PATH], capture_output=True, text=True, check=True)
    loaded = set(json.loads(proc.stdout))
    assert "minirag.answer.select.selector" in loaded and "numpy" in loaded  # the path itself was loaded
    assert sorted(m for m in NOT_FOR_ANSWERING if m in loaded) == []


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # runpy: the module was imported by its package
def test_running_the_module_leaves_the_garbage_collector_as_it_found_it(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["minirag", "history", "--results", "no-such-folder"])
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with pytest.raises(SystemExit):
        runpy.run_module("minirag", run_name="__main__", alter_sys=True)
    capsys.readouterr()
    assert gc.isenabled() and gc.get_freeze_count() == frozen  # frozen only when started as `python -m minirag`
