"""The report's one-line description of a retriever names what changes its ranking."""

from minirag.config import corpus_config
from minirag.report import describe_retriever


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
