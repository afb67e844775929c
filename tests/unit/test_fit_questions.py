"""The fit_questions stage: which fusions it makes questions for, what it reads, what its settings hold
(the families, what each trained retriever feeding the fusion trained on), and which questions it keeps."""

import yaml
from support.project import MINI_CORPUS, ablations_graph, config_with

from minirag.artifacts.layout import CorpusLayout
from minirag.config.corpus import corpus_config
from minirag.pipeline.graph import CorpusGraph
from minirag.stages.fit_questions import STAGES, fit_families, fit_reads, fit_settings, synthetic_fits


def test_the_families_a_fusion_fits_on_default_to_its_encoders_and_the_fit_set_leaves_out_what_trained():
    _, g = ablations_graph()
    assert synthetic_fits(g) == []  # the KB has dev questions: its fusions fit there, reading nothing more
    assert fit_families(g, "hybrid-fit") == ["learner"]       # the bi-encoder trains on learner questions
    assert fit_families(g, "rerank-forms") == ["generic"]     # no encoder feeds it
    settings = fit_settings(g, "rerank-forms")
    assert settings["heldout_of"] == [] and [r["reranker"] for r in settings["rerankers"]] == ["lexical-rerank"]
    assert fit_settings(g, "hybrid-fit")["heldout_of"] == [{"encoder": "biencoder", "seed": 0, "share": 0.2}]
    assert "shrink" not in fit_settings(g, "hybrid-fit")  # the retrieve job reads it, not this one


def test_a_fitted_fusion_without_dev_questions_gets_a_job_that_reads_the_documents_and_chunks():
    config = yaml.safe_load(config_with({"retrievers": {
        "dense": {"type": "dense", "embedder": "hashing"}, "bm25": {"type": "bm25", "index": "plain"},
        "rrf": {"type": "rrf", "of": ["dense", "bm25"]}, "rrf-fit": {"type": "rrf", "of": ["dense", "bm25"], "fit": True}}},
        base=MINI_CORPUS))
    g = CorpusGraph(corpus_config(config, "mini"), CorpusLayout.of("results", "mini"))
    (spec,) = STAGES
    assert spec.names(g) == [{"name": "rrf-fit"}]
    assert fit_reads(g, "rrf-fit") == {"docs": "results/mini/docs.jsonl", "chunks": "results/mini/chunks.jsonl"}
    assert [str(p) for p in spec.outputs(g.layout, {"name": "rrf-fit"})["out"]] == ["results/mini/fit/rrf-fit.jsonl"]


def test_a_question_is_kept_only_when_every_encoder_holds_it_out_and_no_reranker_made_it():
    from minirag.answer.reading.retrieval_questions import heldout_of
    from minirag.stages.fit_questions import held_out
    qs = [{"query": f"question {i}"} for i in range(400)]
    a, b = {"seed": 0, "share": 0.2}, {"seed": 1, "share": 0.5}
    kept = {q["query"] for q in held_out(qs, [a, b], {"question 7"})}
    expected = {q["query"] for q in qs
                if heldout_of(q["query"], 0, 0.2) and heldout_of(q["query"], 1, 0.5)} - {"question 7"}
    assert kept == expected and 10 < len(kept) < 80
