"""The reranker's dense features (rank/rerank_dense.py): the query-chunk cosine under an embedder, read from
the embed stage's vectors only when they are these chunks', and the `dense` option of the rerank kind."""

from __future__ import annotations

import numpy as np
import pytest
from support.chunks import make_chunk

from minirag.artifacts.integrity import write_receipt
from minirag.artifacts.layout import CorpusLayout
from minirag.config.corpus import ConfigError, corpus_config
from minirag.config.load import validate
from minirag.config.typed import Corpus
from minirag.index.hashing import HashingEmbedder
from minirag.index.vectors import AlignmentError, save_vectors, vectors_sidecar_path
from minirag.pipeline.kind_files import KindFiles
from minirag.query.sources import Sources
from minirag.rank.rerank import FEATURES
from minirag.rank.rerank_dense import DENSE_FEATURES, DenseFeatures

CHUNKS = [make_chunk(t, offset=i * 100) for i, t in enumerate(["past tense of go", "ser and estar", "por para"])]
VECTORS = np.array([[1, 0, 0], [0.6, 0.8, 0], [0, 0, 2]], dtype=np.float32)  # (3, 3); the last not of length 1


class Fixed:
    """A query side that embeds every query to one vector."""

    def __init__(self, q):
        self.q = np.asarray(q, dtype=np.float32)

    def embed(self, texts):
        return np.tile(self.q, (len(texts), 1))  # (len(texts), d)


def test_the_dense_feature_is_the_cosine():
    dense = DenseFeatures(Fixed([2, 0, 0]), VECTORS, [c.id for c in CHUNKS])
    ranking = [(CHUNKS[2].id, 3.0), (CHUNKS[0].id, 2.0), (CHUNKS[1].id, 1.0)]  # not in row order
    x = dense.features("q", ranking)  # (3, 1)
    assert DENSE_FEATURES == ("dense",)
    np.testing.assert_allclose(x[:, 0], [0.0, 1.0, 0.6])  # not the inner products 0, 2, 1.2
    np.testing.assert_allclose(dense.features("q", ranking, q=np.array([0, 0, -1.0]))[:, 0], [-1.0, 0.0, 0.0])
    assert dense.features("q", []).shape == (0, 1)


def embedded(tmp_path, chunks, vectors):
    """`vectors` saved as the embed stage saves a hashing embedder's, with its receipt; the Sources reading them."""
    layout = CorpusLayout.of(tmp_path / "results", "kb")
    emb = HashingEmbedder.fit([c.text for c in CHUNKS], dim=3)
    npy = layout.vectors("h")
    save_vectors(npy, vectors, chunks, {"params": emb.params()})
    write_receipt(layout.receipt("embed", "h"), "embed", "h", {}, [], [npy, vectors_sidecar_path(npy)])
    return emb, Sources(CHUNKS, {"vectors:h": npy})


def reranker_over(embedder):
    from minirag.rank.kinds import RetrieverKind
    return RetrieverKind.from_spec({"type": "rerank", "of": "b", "dense": embedder}, "retrievers.r")


def test_the_reranker_s_dense_features_give_the_cosine_of_the_live_query_vector_and_the_stored_chunk_vectors(tmp_path):
    emb, sources = embedded(tmp_path, CHUNKS, VECTORS)
    q = emb.embed(["past tense of go"])[0].astype(np.float64)  # (3,)
    x = reranker_over("h").dense_features(sources).features("past tense of go", [(c.id, 1.0) for c in CHUNKS])
    want = VECTORS.astype(np.float64) @ q / np.linalg.norm(VECTORS, axis=1) / np.linalg.norm(q)
    np.testing.assert_allclose(x[:, 0], want, rtol=1e-6)


def test_vectors_of_other_chunks_are_refused(tmp_path):
    edited = [CHUNKS[0], CHUNKS[2], CHUNKS[1]]  # the same texts, rows in another order
    _, sources = embedded(tmp_path, edited, VECTORS)
    with pytest.raises(AlignmentError, match="re-run embed"):
        reranker_over("h").dense_features(sources)


def corpus(rerank: dict) -> dict:
    return {"corpora": {"c": {"embedders": {"hashing": {"type": "hashing"}}, "retrievers": {
        "b": {"type": "bm25"}, "r": {"type": "rerank", "of": "b", **rerank}}}}}


def test_the_option_names_its_key_when_wrong():
    with pytest.raises(ValueError, match=r"retrievers\.r\.dense: unknown embedder 'nope' \(have: hashing\)"):
        corpus_config(corpus({"dense": "nope"}), "c")
    with pytest.raises(ConfigError, match=r"retrievers\.r\.dense"):
        validate(corpus({"dense": 3}), "config.yaml")


def test_with_the_option_the_jobs_read_the_vectors_and_the_encoder_and_the_model_has_two_more_features():
    cc = corpus_config(corpus({"dense": "hashing"}), "c")
    graph = KindFiles(cc, CorpusLayout.of("results", "c"))
    kind = Corpus.of(cc).retrievers["r"]
    assert kind.features() == FEATURES + DENSE_FEATURES and kind.embedder() == "hashing"
    assert "vectors:hashing" in kind.reads(graph) and "vectors:hashing" in kind.serves(graph)
    assert kind.training_reads(graph)["files"] == graph.vectors("hashing")
    plain = Corpus.of(corpus_config(corpus({}), "c")).retrievers["r"]
    assert plain.features() == FEATURES and plain.embedder() is None
    assert not any(k.startswith("vectors:") for k in plain.reads(graph)) and "files" not in plain.training_reads(graph)


def test_the_report_sets_it_against_the_same_reranker_without_the_cosine():
    config = corpus({"dense": "hashing"})
    config["corpora"]["c"]["retrievers"]["r0"] = {"type": "rerank", "of": "b"}
    c = Corpus.of(corpus_config(config, "c"))
    assert c.retrievers["r"].controls("r", c) == [("learned rerank of the top 100 with hashing's cosine", "b"),
                                                  ("hashing's cosine as a feature", "r0")]
    assert c.retrievers["r0"].controls("r0", c) == [("learned rerank of the top 100", "b")]
