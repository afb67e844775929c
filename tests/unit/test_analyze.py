import unicodedata

import pytest

from minirag.text.analyze import Analyzer, AnalyzerConfig, load_stopwords, tokenize


def test_tokenize_accented():
    assert tokenize("ÉL trabajó") == ["él", "trabajó"]


def test_default_analyzer_is_the_seed_tokenizer():
    text = "Él trabajó en 2023-11: ¿Qué_pasa? 3.5 mg, don't"
    assert Analyzer()(text) == tokenize(text)


def test_decomposed_accents_stay_inside_the_word():
    nfd = unicodedata.normalize("NFD", "trabajó")  # o + U+0301, which \w alone would split off
    assert Analyzer()(nfd) == ["trabajó"]


def test_accents_kept_by_default_and_folded_on_request():
    assert Analyzer()("Canción ÑANDÚ") == ["canción", "ñandú"]
    assert Analyzer(AnalyzerConfig(fold_accents=True))("Canción ÑANDÚ") == ["cancion", "nandu"]


def test_lowercase_off_keeps_case():
    assert Analyzer(AnalyzerConfig(lowercase=False))("BM25 Index") == ["BM25", "Index"]


def test_english_stopwords_are_lucenes_33():
    words = load_stopwords("en")
    assert len(words) == 33 and {"the", "of", "such", "will"} <= words and "them" not in words
    analyzer = Analyzer(AnalyzerConfig(stopwords=("en",)))
    assert analyzer("The cat is on the mat with them") == ["cat", "mat", "them"]


def test_spanish_stopwords_snowball_list():
    words = load_stopwords("es")
    assert len(words) == 308 and {"él", "más", "sido", "siendo"} <= words
    assert Analyzer(AnalyzerConfig(stopwords=("es",)))("Él trabajó más que nadie") == ["trabajó", "nadie"]


def test_stopwords_follow_accent_folding():
    # "mas" is not in the list, "más" is: once text is folded, the list must be folded too
    assert Analyzer(AnalyzerConfig(stopwords=("es",), fold_accents=True))("más canciones") == ["canciones"]


def test_unknown_stopword_language():
    with pytest.raises(ValueError, match="xx"):
        Analyzer(AnalyzerConfig(stopwords=("xx",)))


def test_stemming_english_and_spanish():
    porter = Analyzer(AnalyzerConfig(stemmer="porter"))
    assert porter("studies running claims") == ["studi", "run", "claim"]
    assert porter("claims claims") == ["claim", "claim"]  # second call served from the cache
    spanish = Analyzer(AnalyzerConfig(stemmer="spanish", stopwords=("es",)))
    assert spanish("las canciones y la canción") == ["cancion", "cancion"]


def test_unknown_stemmer():
    with pytest.raises(ValueError, match="klingon"):
        Analyzer(AnalyzerConfig(stemmer="klingon"))


def test_cjk_bigrams():
    analyzer = Analyzer(AnalyzerConfig(cjk_bigrams=True))
    assert analyzer("如何初") == ["如何", "何初"]
    assert analyzer("dify插件 中 v2") == ["dify", "插件", "中", "v2"]  # lone CJK char stays a unigram
    assert analyzer("ひらがな") == ["ひら", "らが", "がな"]
    assert Analyzer()("如何初") == ["如何初"]  # off by default: one \w+ run


def test_standard_tokenizer_keeps_numbers_and_abbreviations_whole():
    analyzer = Analyzer(AnalyzerConfig(tokenizer="standard"))
    assert analyzer("3.5 mg, 1,000 cells; don't e.g. a-b") == ["3.5", "mg", "1,000", "cells", "don't", "e.g", "a", "b"]
    assert Analyzer(AnalyzerConfig(tokenizer="standard", cjk_bigrams=True))("如何初 3.5") == ["如何", "何初", "3.5"]
    with pytest.raises(ValueError, match="tokenizer"):
        Analyzer(AnalyzerConfig(tokenizer="whitespace"))


def test_config_from_dict():
    config = AnalyzerConfig.from_dict({"stopwords": ["en"], "stemmer": "porter"})
    assert config == AnalyzerConfig(stopwords=("en",), stemmer="porter")
    assert AnalyzerConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="stemming"):
        AnalyzerConfig.from_dict({"stemming": "porter"})


def test_an_analyzer_following_the_documents_takes_the_filler_and_stemmer_of_their_languages():
    from minirag.text.analyze import settled
    follows = AnalyzerConfig(fold_accents=True, languages="documents", char_ngrams=3)
    english = settled(follows, ["en", "en", ""])
    assert (english.stemmer, english.query_stopwords, english.languages) == ("english", ("en",), "")
    assert english.char_ngrams == 3 and english.fold_accents  # what it does not choose is kept
    assert settled(follows, {"en", "es"}).stemmer == "spanish"
    assert settled(follows, {"fr"}) == AnalyzerConfig(fold_accents=True, char_ngrams=3)  # no list, no stemmer
    fixed = AnalyzerConfig(stemmer="porter")
    assert settled(fixed, {"es"}) is fixed
    # every filler list is an input of its jobs, since the documents may pick any of them
    assert {p.rsplit("/", 1)[1] for p in follows.data_files()} == {"filler_en.txt", "filler_es.txt"}
    assert "documents' languages" in follows.describe()


def test_a_bm25_index_following_the_documents_is_saved_with_the_analyzer_they_chose(tmp_path):
    import json

    from minirag.artifacts.integrity import write_receipt
    from minirag.artifacts.io import write_jsonl
    from minirag.artifacts.layout import CorpusLayout
    from minirag.stages.bm25 import index_settings
    layout = CorpusLayout(tmp_path / "results" / "c")
    docs = layout.docs
    write_jsonl(docs, [{"doc_id": "a.md", "lang": "es", "text": "x"}, {"doc_id": "b.md", "lang": "es", "text": "y"}])
    write_receipt(layout.receipt("curate", None), "curate", None, {}, [], [docs])
    settings = {"analyzer": {"languages": "documents", "fold_accents": True}}
    s = index_settings(settings, docs)
    assert (s.analyzer.stemmer, s.analyzer.query_stopwords, s.analyzer.languages) == ("spanish", ("es",), "")
    assert json.dumps(settings) == '{"analyzer": {"languages": "documents", "fold_accents": true}}'  # not edited
