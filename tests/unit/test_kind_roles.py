"""What a retriever kind answers for itself, so that the retrieve stage, the live loader (`open_retriever`),
the graph and the report never ask which family or type it is: how it ranks a job's questions (`rank`),
its live retriever (`live`), and its roles in the report (`fuses`, `reorders`, `ablation_key`,
`ranking_embedder`, `dense_embedder`, a fusion's `fits_on_synthetic`) and an embedder kind's `pretrained`."""

from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from minirag.artifacts.missing import MissingArtifact
from minirag.config.corpus import corpus_config
from minirag.config.typed import Corpus
from minirag.index.embedders import EMBEDDERS
from minirag.query.sources import Sources
from minirag.rank.kinds import KINDS, RetrieverKind
from minirag.rank.kinds.base import Combining, ComposedRetriever, RetrieveJob, job_kind


def kind(spec: dict, name: str = "r") -> RetrieverKind:
    k = RetrieverKind.from_spec(spec, f"retrievers.{name}")
    k.name = name
    return k


class Fixed:
    """A live retriever that hands back one ranking, counting what it was asked."""

    def __init__(self, ranking):
        self.ranking, self.asked = ranking, []

    def search(self, query, k=5):
        self.asked.append(k)
        return self.ranking[:k]

    def search_batch(self, queries, k):
        return [self.search(q, k) for q in queries]


class Counting(Fixed):
    computations = 0

    def search_batch(self, queries, k):
        self.computations += 7 * len(queries)
        return super().search_batch(queries, k)


class ChunkList:
    chunks = ["c1", "c2", "c3"]


def job(questions, inputs=(), log=None, **kw) -> RetrieveJob:
    return RetrieveJob(list(questions), list(inputs), ChunkList(), 3, log or (lambda line: None),
                       judged=kw.pop("judged", lambda qs: {}), **kw)


QS = [{"qid": "q1", "query": "one"}, {"qid": "q2", "query": "two"}]


def test_a_channel_ranks_a_job_by_opening_itself_and_searching_every_question_in_one_batch(monkeypatch):
    bm25 = kind({"type": "bm25"})
    opened = Counting([("x", 2.0), ("y", 1.0), ("z", 0.5), ("w", 0.1)])
    monkeypatch.setattr(type(bm25), "open", lambda self, sources: opened)
    lines = []
    ranked, receipt = bm25.rank(job(QS, log=lines.append))
    assert ranked == [[("x", 2.0), ("y", 1.0), ("z", 0.5)]] * 2 and receipt is None and opened.asked == [3, 3]
    # a retriever that counts its distance computations has them logged per query, as the stage always did
    assert lines == ["retrieve: 7 distance computations per query (3 rows)"]


def test_a_channel_s_live_retriever_is_itself_opened_and_reads_no_upstream(monkeypatch):
    dense = kind({"type": "dense", "embedder": "hashing"})
    opened = Fixed([("x", 1.0)])
    monkeypatch.setattr(type(dense), "open", lambda self, sources: opened)
    assert dense.live("sources", lambda r: (_ for _ in ()).throw(AssertionError(r)), 10) is opened


def test_a_combining_kind_ranks_each_question_from_its_input_runs_and_a_missing_question_is_an_empty_ranking():
    cap = kind({"type": "cap", "base": "a", "cap": 1})
    chunks = [SimpleNamespace(id=cid, doc_id=doc) for cid, doc in (("x", "d1"), ("y", "d1"), ("z", "d2"))]
    runs = [{"q1": [("x", 3.0), ("y", 2.0), ("z", 1.0)]}]
    ranked, receipt = cap.rank(RetrieveJob(QS, runs, Sources(chunks), 3, print, judged=dict))
    # d1's second chunk goes after d2's: the cap's order, question by question; q2 has no input ranking
    assert [[c for c, _ in r] for r in ranked] == [["x", "z", "y"], []] and receipt is None


def test_a_combining_kind_s_live_retriever_composes_its_upstream_s_live_retrievers_in_order():
    rrf = kind({"type": "rrf", "of": ["a", "b"]})
    inputs = {"a": Fixed([("x", 1.0), ("y", 0.5)]), "b": Fixed([("y", 1.0)])}
    live = rrf.live(None, inputs.__getitem__, 30)
    assert isinstance(live, ComposedRetriever) and live.inputs == [inputs["a"], inputs["b"]]
    assert [c for c, _ in live.search("q", k=1)] == ["y"] and inputs["a"].asked == [30]


def dev_runs():
    """Two channels over three questions: `a` ranks the relevant chunk first on q1 (dev) only, `b` on q2 (dev)
    and q3 (test) only."""
    a = {"q1": [("r1", 1.0), ("n", 0.5)], "q2": [("n", 1.0), ("r2", 0.5)], "q3": [("n", 1.0), ("r3", 0.5)]}
    b = {"q1": [("n", 1.0), ("r1", 0.5)], "q2": [("r2", 1.0), ("n", 0.5)], "q3": [("r3", 1.0), ("n", 0.5)]}
    qs = [{"qid": "q1", "query": "1", "split": "dev"}, {"qid": "q2", "query": "2", "split": "dev"},
          {"qid": "q3", "query": "3", "split": "test"}, {"qid": "q4", "query": "4", "split": "dev", "answerable": False}]
    return qs, [a, b]


def test_a_fitted_fusion_fits_on_the_answerable_dev_questions_logs_its_weights_and_hands_them_to_the_receipt():
    qs, runs = dev_runs()
    rrf, asked, lines = kind({"type": "rrf", "of": ["a", "b"], "fit": True}, "h"), [], []

    def judged(questions):
        asked.append([q["qid"] for q in questions])
        return {"q2": {"r2": 1}}  # b alone ranks it first: the fit weighs b up
    ranked, fitted = rrf.rank(job(qs, runs, log=lines.append, judged=judged))
    assert asked == [["q1", "q2"]]  # the test split and an unanswerable dev question are never fitted on
    assert fitted["fitted_on"] == "dev" and fitted["weights"][1] > fitted["weights"][0]
    assert lines == [f"retrieve: h: weights {fitted['weights']} fitted on dev"]
    assert ranked[2][0][0] == "r3" and rrf.weights(None) == fitted["weights"]  # ranked with the fitted weights


def test_an_unfitted_fusion_ranks_with_its_given_weights_logs_nothing_and_fits_nothing():
    qs, runs = dev_runs()
    rrf, lines = kind({"type": "rrf", "of": ["a", "b"], "weights": [1.0, 0.0]}), []
    ranked, fitted = rrf.rank(job(qs, runs, log=lines.append, judged=lambda q: 1 / 0))
    assert fitted is None and lines == [] and [r[0][0] for r in ranked[:3]] == ["r1", "n", "n"]


def test_bound_to_a_synthetic_fit_a_fusion_fits_on_its_questions_file_ranked_live_by_what_feeds_it(tmp_path,
                                                                                                   monkeypatch):
    from minirag.artifacts import integrity
    from minirag.artifacts.io import write_jsonl
    monkeypatch.setattr(integrity, "verified", lambda path, what="": path)  # the file has no job's receipt here
    feeding = {"a": {"type": "bm25", "index": "plain"}, "b": {"type": "bm25", "index": "other"}}
    lin = job_kind({"type": "linear", "of": ["a", "b"], "fit": True, "depth": 3, "feeding": feeding,
                    "fit_questions": {"shrink": 0}}, "l")
    live = {"a": Fixed([("n", 1.0), ("s1", 0.5)]), "b": Fixed([("s1", 1.0), ("n", 0.5)])}
    synthetic = [{"qid": "s1", "query": "x", "chunk": "s1", "family": "generic:table"}]
    write_jsonl(tmp_path / "fit.jsonl", synthetic)
    opened = []

    def open_live(settings, name):  # the retrieve stage's `live`: a retriever from the bound feeding settings
        opened.append((settings, name))
        return live[name]
    qs, runs = dev_runs()
    given = job(qs, runs, judged=lambda q: 1 / 0, live=open_live)
    given.sources = Sources([], {"fit_questions:l": str(tmp_path / "fit.jsonl")})
    ranked, fitted = lin.rank(given)
    assert opened == [(feeding, "a"), (feeding, "b")]
    assert fitted["fitted_on"] == "synthetic: 1 held-out questions (families generic)"
    assert fitted["weights"][1] > fitted["weights"][0] and live["a"].asked == [3] and len(ranked) == 4
    assert lin.synthetic_inputs(synthetic, live.__getitem__, 2)[:2] == (
        [{"s1": [("n", 1.0), ("s1", 0.5)]}, {"s1": [("s1", 1.0), ("n", 0.5)]}], {"s1": {"s1": 1}})


def test_a_fusion_with_fit_fits_on_synthetic_questions_where_there_are_no_dev_ones_and_only_fusions_fuse():
    without, with_dev = SimpleNamespace(source=SimpleNamespace(format="squad", dev_docs=[])), \
        SimpleNamespace(source=SimpleNamespace(format="squad", dev_docs=["Normans"]))
    assert kind({"type": "rrf", "of": ["a", "b"], "fit": True}).fits_on_synthetic(without)
    assert kind({"type": "linear", "of": ["a", "b"], "fit": True}).fits_on_synthetic(without)
    assert not kind({"type": "linear", "of": ["a", "b"], "fit": True}).fits_on_synthetic(with_dev)
    assert not kind({"type": "linear", "of": ["a", "b"]}).fits_on_synthetic(without)
    assert {t for t, k in KINDS.items() if k.fuses} == {"rrf", "linear"}


def test_the_kinds_that_reorder_one_run_are_the_ablation_table_s_and_mmr_sorts_by_its_lambda():
    reordering = {t for t, k in KINDS.items() if k.reorders}
    assert {"cap", "mmr", "rerank"} <= reordering and not {"rrf", "linear", "bm25", "dense", "ivf"} & reordering
    mmr3, mmr9 = kind({"type": "mmr", "base": "a", "lambda": 0.3}), kind({"type": "mmr", "base": "a", "lambda": 0.9})
    cap = kind({"type": "cap", "base": "a"})
    rerank = kind({"type": "rerank", "of": "a"})
    assert sorted([rerank, mmr9, cap, mmr3], key=lambda k: k.ablation_key()) == [cap, mmr3, mmr9, rerank]


def test_the_embedder_a_run_ranks_by_is_a_dense_or_ivf_channel_s_and_exact_cosine_is_dense_alone():
    dense, ivf = kind({"type": "dense", "embedder": "e"}), kind({"type": "ivf", "embedder": "e"})
    assert (dense.ranking_embedder(), dense.dense_embedder()) == ("e", "e")
    assert (ivf.ranking_embedder(), ivf.dense_embedder()) == ("e", None)
    # re-ranking with an embedder's vectors is not ranking by them
    for other in ({"type": "bm25"}, {"type": "mmr", "base": "a", "embedder": "e"},
                  {"type": "rerank", "of": "a", "dense": "e"}, {"type": "rrf", "of": ["a", "b"]}):
        assert (kind(other).ranking_embedder(), kind(other).dense_embedder()) == (None, None)


def test_only_the_pretrained_embedder_kind_is_pretrained():
    assert {t for t, k in EMBEDDERS.items() if k.pretrained} == {"pretrained"}
    cc = corpus_config({"corpora": {"c": {"embedders": {"m": {"type": "pretrained", "path": "x"},
                                                         "hashing": {"type": "hashing"}}}}}, "c")
    corpus = Corpus.of(cc)
    assert corpus.embedders["m"].pretrained and not corpus.embedders["hashing"].pretrained


def test_every_kind_that_reads_runs_combines_them_and_every_other_opens_itself():
    for k in KINDS.values():
        assert issubclass(k, Combining) == bool(k.upstream_key), k.type


@pytest.fixture
def noted():
    """A kind that ranks with a part of the config beyond its settings (`notes`), as a feedback run does."""
    @dataclass(frozen=True)
    class NotedSettings:
        of: str = "b"

    class Noted(Combining):
        type, Settings, upstream_key, config_keys = "noted-test", NotedSettings, "of", ("notes",)
        notes = None

        def config_reads(self, cc):
            return {"notes": cc["notes"]}

        def bind(self, part):
            self.notes = part.get("notes")
    yield Noted
    del KINDS["noted-test"]


def test_a_job_s_kind_takes_its_own_settings_and_is_bound_to_the_config_keys_its_class_names(noted):
    kind = job_kind({"type": "noted-test", "of": "a", "depth": 100, "notes": {"k": 3}}, "n")
    assert (kind.name, kind.s.of, kind.notes) == ("n", "a", {"k": 3})
    bm25 = job_kind({"type": "bm25", "index": "plain", "depth": 100}, "b")  # the job's depth is not a setting
    assert bm25.name == "b" and bm25.s.index == "plain"


def test_sources_build_what_a_kind_loads_once_per_key_and_say_which_files_they_were_not_given():
    sources, built = Sources([], {"units": "u.jsonl"}), []
    first = sources.cached(("vectors_by_id", "e"), lambda: built.append(1) or {"c": 1})
    assert sources.cached(("vectors_by_id", "e"), lambda: built.append(2)) is first and built == [1]
    assert str(sources.given("units")) == "u.jsonl" and sources.given("lexicon") is None


def test_a_kind_loads_its_own_files_by_their_keys_and_names_the_one_it_was_not_given():
    sources = Sources([])
    loads = [(kind({"type": "mmr", "base": "a", "embedder": "e"}).vectors_by_id, "vectors of embedder 'e'", "vectors:e"),
             (kind({"type": "rerank", "of": "a"}, "r").model, "reranker model of 'r'", "reranker:r"),
             (kind({"type": "rerank", "of": "a", "dense": "e"}, "r").dense_features, "vectors of embedder 'e'",
              "vectors:e"),
             (kind({"type": "rrf", "of": ["a", "b"], "fit": True}, "h").fitted_weights,
              "receipt of the fitted fusion 'h'", "fitted:h"),
             (kind({"type": "dense", "embedder": "e"}).open, "vectors of embedder 'e'", "vectors:e"),
             (kind({"type": "ivf", "embedder": "e"}).open, "vectors of embedder 'e'", "vectors:e"),
             (kind({"type": "bm25", "index": "plain"}).open, "BM25 index 'plain'", "bm25:plain")]
    for load, what, key in loads:
        with pytest.raises(MissingArtifact, match=f"no {what} was given to this stage \\(file key '{key}'\\)"):
            load(sources)
