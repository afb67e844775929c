"""One key, `domain: grammar`: without it a corpus resolves to the generic core's defaults (the generic reader,
analyzers of its own languages), and a setting only the grammar has is refused in one line naming its key."""

import subprocess
import sys

import pytest
import yaml

from minirag.config.corpus import ConfigError, corpus_config
from minirag.rank.rerank import DEFAULT_ANALYZER
from minirag.settings import settings_to_dict

# A markdown corpus with questions, a trained encoder on synthesised questions and a reranker naming no analyzer.
CORPUS = {"source": {"format": "markdown", "path": "docs", "questions": "q.jsonl", "langs": ["en"]},
          "embedders": {"hashing": {"type": "hashing"}, "enc": {"type": "biencoder", "questions": {"n": 100}}},
          "retrievers": {"bm25": {"type": "bm25"}, "rerank": {"type": "rerank", "of": "bm25"}}}


def resolved(**changes) -> dict:
    return corpus_config({"corpora": {"c": {**CORPUS, **changes}}}, "c")


def test_without_the_domain_the_corpus_gets_the_generic_reader_and_questions():
    cc = resolved()
    assert cc["domain"] is None
    assert cc["readers"]["extractive"]["features"] == ["generic"]
    assert cc["embedders"]["enc"]["questions"]["families"] == ["generic"]


def test_with_the_domain_the_corpus_gets_the_grammar_defaults():
    cc = resolved(domain="grammar", source={**CORPUS["source"], "langs": ["en", "es"]})
    assert cc["readers"]["extractive"]["features"] == ["grammar"]
    assert cc["embedders"]["enc"]["questions"]["families"] == ["learner"]
    assert cc["retrievers"]["rerank"]["analyzer"] == settings_to_dict(DEFAULT_ANALYZER)


@pytest.mark.parametrize("langs, filler, stemmer", [
    (["en"], ["en"], "english"), (["es"], ["es"], "spanish"), (["en", "es"], ["en", "es"], "spanish"),
    (["ar"], [], None), ([], [], None)])
def test_without_the_domain_the_reranker_analyzes_as_the_corpus_languages_do(langs, filler, stemmer):
    analyzer = resolved(source={**CORPUS["source"], "langs": langs})["retrievers"]["rerank"]["analyzer"]
    assert (analyzer["query_stopwords"], analyzer["stemmer"], analyzer["fold_accents"]) == (filler, stemmer, True)
    # a corpus that names no language: the languages its documents are found in, settled once curated
    assert analyzer["languages"] == ("" if langs else "documents")


def test_a_corpus_language_given_as_its_default_lang_counts_and_a_named_analyzer_is_kept():
    source = {"format": "markdown", "path": "docs", "questions": "q.jsonl", "default_lang": "es"}
    assert resolved(source=source)["retrievers"]["rerank"]["analyzer"]["stemmer"] == "spanish"
    named = {"type": "rerank", "of": "bm25", "analyzer": {"stemmer": "porter"}}
    analyzer = resolved(retrievers={"bm25": {"type": "bm25"}, "rerank": named})["retrievers"]["rerank"]["analyzer"]
    assert (analyzer["stemmer"], analyzer["query_stopwords"]) == ("porter", [])


def test_the_selector_trains_with_its_corpus_languages_unless_it_has_the_grammar_features():
    from minirag.answer.train_selector import training_analyzer
    assert training_analyzer(("generic",), {"en"}).stemmer == "english"
    assert training_analyzer(("generic",), {"en"}).query_stopwords == ("en",)
    assert training_analyzer(("grammar",), {"en"}) == training_analyzer(("generic",), {"en", "es"})


GRAMMAR_ONLY = [
    ({"retrievers": {"x": {"type": "bm25", "expand": {"translations": 0.5}}}}, "retrievers.x.expand.translations"),
    ({"retrievers": {"x": {"type": "bm25", "expand": {"forms": 0.5, "tenses": 3}}}}, "retrievers.x.expand.forms"),
    ({"retrievers": {"x": {"type": "bm25"}, "r": {"type": "rerank", "of": "x", "expand": {"forms": 0.5}}}},
     "retrievers.r.expand.forms"),
    ({"readers": {"ex": {"type": "extractive", "features": ["generic", "grammar"]}}}, "readers.ex.features"),
    ({"embedders": {"hashing": {"type": "hashing"},
                    "enc": {"type": "biencoder", "questions": {"n": 10, "families": ["learner"]}}}},
     "embedders.enc.questions.families"),
    ({"retrievers": {"a": {"type": "bm25"}, "b": {"type": "dense"},
                     "f": {"type": "rrf", "of": ["a", "b"], "fit": True, "fit_questions": {"families": ["learner"]}}}},
     "retrievers.f.fit_questions.families"),
    ({"candidates": {"terms": "my_terms.tsv"}}, "candidates.terms"),
]


@pytest.mark.parametrize("changes, key", GRAMMAR_ONLY)
def test_a_grammar_setting_without_the_domain_is_refused_naming_its_key(changes, key):
    with pytest.raises(ConfigError) as e:
        resolved(**changes)
    assert str(e.value).startswith(f"corpora.c.{key}: ") and "needs `domain: grammar`" in str(e.value)
    resolved(domain="grammar", **changes)  # the same setting with the domain is a valid config


def test_the_config_check_refuses_it_in_one_line_without_a_traceback(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"corpora": {"c": {**CORPUS, **GRAMMAR_ONLY[0][0]}}}), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "minirag.config.load", str(config)], capture_output=True, text=True)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: {config}: corpora.c.retrievers.x.expand.translations: query expansion through the grammar's "
        "lexicon needs `domain: grammar` on the corpus"]


def test_the_domain_is_a_key_of_the_schema():
    from minirag.config.schema import config_schema
    corpus = config_schema()["properties"]["corpora"]["additionalProperties"]["properties"]
    assert corpus["domain"] == {"enum": ["grammar", None]}


def test_only_a_grammar_corpus_has_the_conjugation_column_and_slice():
    import pandas as pd

    from minirag.evaluation.losses import columns, loss_rows
    from minirag.report.answering import slices
    q = {"qid": "q1", "answerable": True, "answer": "vine", "lang": "es", "tags": ["conjugation"]}
    candidates = {"bm25": {"q1": {"keys": ["vine"], "answers": [{"text": "vine"}]}}}
    answers = {"extractive/bm25": {"q1": {"answer": "vine [#1]", "abstained": False}}}
    from minirag.domain import load
    for tags in ((), load("grammar").tags):
        grammar = bool(tags)
        rows = loss_rows([q], {}, {"bm25": {}}, candidates, answers, 5, tags)
        assert list(rows[0]) == columns(tags) and ("conjugation" in columns(tags)) == grammar
        names = [name for name, _ in slices(pd.DataFrame(rows))]
        assert ("conjugation" in names) == grammar


def test_the_grammar_is_found_by_its_name_and_fills_only_known_extension_points():
    from minirag.domain import POINTS, Domain, load, names, of_corpus
    assert "grammar" in names() and of_corpus(None) is None
    grammar = of_corpus("grammar")
    assert grammar is load("grammar") and set(grammar.hooks) <= set(POINTS)
    assert all(grammar.hook(point) is not None for point in grammar.hooks)  # each "module:attribute" resolves
    assert [s.rule for s in grammar.stage_specs()] == ["lexicon"]
    with pytest.raises(ValueError, match="no extension point 'select.typo'"):
        Domain("second", hooks={"select.typo": "x:y"})
    with pytest.raises(ValueError, match="no domain 'recipes'"):
        load("recipes")
