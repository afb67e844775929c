"""The Arabic analyzer (normalization, stopwords, Snowball Arabic) and what the embed stage
measures of a pretrained tokenizer on text it cannot represent, with the report's warning."""

import json

import pytest

from minirag.config.corpus import corpus_config
from minirag.config.typed import Corpus
from minirag.text.analyze import DATA_DIR, Analyzer, AnalyzerConfig
from minirag.text.arabic import normalize_arabic

ARABIC = AnalyzerConfig(stopwords=("ar",), stemmer="arabic", arabic_normalize=True)


def test_normalization_unifies_alef_yaa_taa_marbuta_and_drops_marks():
    assert normalize_arabic("أَحمد إلى آخر القرآن") == "احمد الي اخر القران"
    assert normalize_arabic("مكتبةٌ كبرى") == "مكتبه كبري"
    assert normalize_arabic("مكتبة", taa_marbuta=False) == "مكتبة"
    assert normalize_arabic("العـــربية") == "العربيه"  # tatweel
    assert normalize_arabic("Café 3.5") == "Café 3.5"  # other scripts pass unchanged


def test_questions_typed_without_hamza_meet_passages_written_with_it():
    a = Analyzer(ARABIC)
    question = a.query("ما هى اهمية مكة المكرمة؟")
    passage = a("وتكمن أهمية مكة المكرمة في أنها")
    assert {"ما", "هي", "هى"}.isdisjoint(question)  # stopwords in either spelling
    assert set(question) <= set(passage), (question, passage)


def test_with_a_stemmer_taa_marbuta_is_mapped_after_stemming():
    # Snowball strips ة as a suffix; mapping it to ه first would leave the word whole
    assert Analyzer(ARABIC)("المدينة") == ["مدين"]
    assert Analyzer(AnalyzerConfig(stemmer="arabic"))("مكة") == ["مكة"]
    assert Analyzer(ARABIC)("مكة") == ["مكه"] == Analyzer(ARABIC)("مكه")
    assert Analyzer(AnalyzerConfig(arabic_normalize=True))("المدينة") == ["المدينه"]  # no stemmer: before


def test_the_word_lists_an_analyzer_reads_are_named_for_the_graph():
    assert ARABIC.data_files() == [str(DATA_DIR / "stopwords_ar.txt")]
    assert AnalyzerConfig(stopwords=("en",), query_stopwords=("es",)).data_files() == [
        str(DATA_DIR / "stopwords_en.txt"), str(DATA_DIR / "filler_es.txt")]
    assert "Arabic normalized" in ARABIC.describe()


# ------------------------------------------------------------------ a pretrained tokenizer's view


def test_coverage_counts_unknown_single_letter_and_truncated_per_language(tmp_path):
    pytest.importorskip("tokenizers")
    pytest.importorskip("safetensors")
    from support.bert_model import make_model

    from minirag.index.bert import SentenceEncoder
    from minirag.index.coverage import added, shares, token_coverage
    enc = SentenceEncoder.from_folder(make_model(tmp_path / "m"))  # max_seq_length 12
    got = token_coverage(enc, ["the cat sat on a mat", "القط على الحصيرة", "the dog " * 8],
                         ["en", "ar", "en"])
    # "a" is a one-letter piece; each Arabic word is [UNK]; the third text is cut at 12 tokens
    assert got == {"ar": {"texts": 1, "tokens": 3, "unknown": 3, "single_char": 0, "truncated": 0},
                   "en": {"texts": 2, "tokens": 16, "unknown": 0, "single_char": 1, "truncated": 1}}
    assert shares(got["ar"])["unknown"] == 1.0 and shares(got["en"])["truncated"] == 0.5
    assert added([got, got])["en"]["tokens"] == 32


def test_the_report_warns_on_a_one_language_corpus_the_model_cannot_read(tmp_path, monkeypatch):
    from minirag.report import pretrained
    sidecar = tmp_path / "minilm.json"
    sidecar.write_text(json.dumps({"tokens": {"ar": {"texts": 255, "tokens": 61512, "unknown": 43,
                                                     "single_char": 58418, "truncated": 191}}}))

    class Tables:
        corpus = Corpus.of(corpus_config({"corpora": {"c": {
            "embedders": {"minilm": {"type": "pretrained", "path": "pkg:m/model"}, "hashing": {"type": "hashing"}},
            "retrievers": {"minilm": {"type": "dense", "embedder": "minilm"},
                           "bm25": {"type": "bm25", "index": "plain"}}}}}, "c"))
        main = ["minilm", "bm25"]

        class layout:
            @staticmethod
            def vectors_sidecar(name):
                return sidecar
    monkeypatch.setattr(pretrained, "load_json", lambda path, what: json.loads(path.read_text()))
    warning, note = pretrained.coverage_notes(Tables())
    assert warning.startswith("**Warning:** `minilm` (`pkg:m/model`) cannot represent the corpus's `ar` text: 95%")
    assert "(`minilm`)" in warning and note.startswith("**Note:** 75% of the corpus's `ar` texts")
    sidecar.write_text(json.dumps({"tokens": {"en": {"texts": 10, "tokens": 1000, "unknown": 0,
                                                     "single_char": 60, "truncated": 0}}}))
    assert pretrained.coverage_notes(Tables()) == []  # English as all-MiniLM reads it: nothing to say
