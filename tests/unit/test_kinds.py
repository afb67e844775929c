"""Retriever kinds: the registry the config, the graph, the live loader and the report loop over."""

from dataclasses import dataclass

import pytest

from minirag.artifacts.layout import CorpusLayout
from minirag.config.corpus import ConfigError, corpus_config
from minirag.config.schema import config_schema
from minirag.config.typed import Corpus
from minirag.pipeline.graph import CorpusGraph
from minirag.query.sources import open_retriever
from minirag.rank.kinds import KINDS, Combining
from minirag.settings import setting
from minirag.stages.retrieve import retrieve_reads


def describe_retriever(cc, name):
    corpus = Corpus.of(cc)
    return corpus.retrievers[name].describe(corpus)


def kb_like_config(analyzer: dict) -> dict:
    raw = {"corpora": {"c": {
        "source": {"format": "markdown", "path": "docs"},
        "bm25": {"plain": {"variant": "lucene", "k1": 1.2, "b": 0.75},
                 "tuned": {"variant": "lucene", "k1": 1.5, "b": 0.75, "title_weight": 1.0, "analyzer": analyzer}},
        "retrievers": {"plain": {"type": "bm25", "index": "plain"}, "tuned": {"type": "bm25", "index": "tuned"}},
    }}}
    return corpus_config(raw, "c")


def test_bm25_description_names_every_analyzer_step_beyond_the_seed():
    cc = kb_like_config({"stopwords": ["en", "es"], "stemmer": "spanish", "fold_accents": True})
    assert describe_retriever(cc, "plain") == "BM25 lucene k1=1.2 b=0.75"
    assert describe_retriever(cc, "tuned") == ("BM25 lucene k1=1.5 b=0.75, title field 1, stopwords en+es, "
                                              "stem spanish, accents folded")


def test_bm25_description_shows_tokenizer_case_and_cjk_choices():
    cc = kb_like_config({"tokenizer": "standard", "lowercase": False, "cjk_bigrams": True})
    assert describe_retriever(cc, "tuned") == ("BM25 lucene k1=1.5 b=0.75, title field 1, standard tokenizer, "
                                              "CJK bigrams, case kept")


# ------------------------------------------------------------------ the registry


@pytest.fixture
def borda():
    """A kind written the way a new one would be: one class, registered by subclassing."""
    @dataclass(frozen=True)
    class BordaSettings:
        of: tuple[str, ...] = setting(min_items=2)

    class Borda(Combining):
        """Borda count: a run of n chunks gives its i-th chunk n - i points."""
        type, Settings, upstream_key = "borda-test", BordaSettings, "of"

        def upstream(self):
            return list(self.s.of)

        def combine(self, query, rankings, sources, depth):
            points = {}
            for ranking in rankings:
                for i, (cid, _) in enumerate(ranking):
                    points[cid] = points.get(cid, 0.0) + len(ranking) - i
            return sorted(points.items(), key=lambda x: -x[1])[:depth]

        def describe(self, cc):
            return f"Borda of {' + '.join(self.s.of)}"
    yield Borda
    del KINDS["borda-test"]


class FixedRetriever:
    def __init__(self, ranking):
        self.ranking = ranking

    def search(self, query, k=5):
        return self.ranking[:k]


def test_a_new_kind_is_checked_described_wired_and_ranked_by_the_registry_alone(borda, monkeypatch):
    raw = {"corpora": {"c": {"retrievers": {"a": {"type": "bm25"}, "b": {"type": "dense"},
                                            "v": {"type": "borda-test", "of": ["a", "b"]}}}}}
    cc = corpus_config(raw, "c")
    assert cc["retrievers"]["v"] == {"type": "borda-test", "of": ["a", "b"]}
    assert describe_retriever(cc, "v") == "Borda of a + b"
    schema = config_schema()["properties"]["corpora"]["additionalProperties"]["properties"]["retrievers"]
    assert "borda-test" in schema["additionalProperties"]["properties"]["type"]["enum"]
    graph = CorpusGraph(cc, CorpusLayout.of("results", "c"))
    assert retrieve_reads(graph, "v") == {"runs": ["results/c/runs/a.trec", "results/c/runs/b.trec"], "files": {}}
    with pytest.raises(ConfigError, match=r"retrievers.v.of: unknown retriever 'z'"):
        corpus_config({"corpora": {"c": {"retrievers": {"a": {"type": "bm25"},
                                                        "v": {"type": "borda-test", "of": ["a", "z"]}}}}}, "c")

    # its inputs' channels open themselves (here, as fixed rankings); the new kind composes them
    monkeypatch.setattr(KINDS["bm25"], "open", lambda self, sources: FixedRetriever([("x", 3.0), ("y", 2.0), ("z", 1.0)]))
    monkeypatch.setattr(KINDS["dense"], "open", lambda self, sources: FixedRetriever([("z", 0.9), ("y", 0.8)]))
    live = open_retriever(None, Corpus.of(cc), "v")
    # x 3 + 0, y 2 + 1, z 1 + 2: all tie, and trec_eval order breaks ties by id, descending, as a run file does
    assert [cid for cid, _ in live.search("q", k=3)] == ["z", "y", "x"]


def test_every_registered_kind_holds_its_defaults_in_its_settings_dataclass():
    for kind in KINDS.values():
        assert hasattr(kind, "Settings") and kind.family in ("channel", "fusion", "diversifier")
        assert (kind.family == "channel") == (kind.upstream_key == "")
