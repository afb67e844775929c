"""Which retriever `search`, `answer` and the page use when the config names none (query/defaults.py)."""

from minirag.config.corpus import corpus_config
from minirag.config.typed import Corpus
from minirag.query.defaults import served_retriever


def figures(**hit5):
    return {r: {"chunk": {"hit@5": h, "mrr": h / 2}, "doc": {}} for r, h in hit5.items()}


def test_the_best_on_dev_is_served_and_test_is_never_looked_at_when_dev_has_questions():
    cc = Corpus.of(corpus_config({"corpora": {"c": {}}}, "c"))
    metrics = {"answerable": 40, "retrieval": figures(dense=0.9, bm25=0.1, rrf=0.1),
               "splits": {"dev": {"answerable": 20, "retrieval": figures(dense=0.2, bm25=0.7, rrf=0.5)}}}
    name, why = served_retriever(cc, metrics)
    assert name == "bm25" and why.startswith("best chunk hit@5 on the dev split (0.700")


def test_a_corpus_without_questions_serves_its_first_fusion_and_says_nothing_was_ranked():
    cc = Corpus.of(corpus_config({"corpora": {"c": {}}}, "c"))
    empty = {"questions": 0, "answerable": 0, "retrieval": figures(dense=0.0, bm25=0.0, rrf=0.0), "splits": None}
    assert served_retriever(cc, empty) == ("rrf", "no evaluation to rank by: the config's first fusion")
    dev_only_unanswerable = {**empty, "splits": {"dev": {"answerable": 0, "retrieval": figures(dense=0.0, bm25=0.0)}}}
    assert served_retriever(cc, dev_only_unanswerable)[0] == "rrf"


def test_the_page_s_example_is_a_plain_answerable_dev_question():
    from minirag.query.defaults import example_question
    typo = {"query": "she watchs?", "split": "dev", "answerable": True, "difficulty": "paraphrase"}
    plain = {"query": "What is the past participle of get?", "split": "dev", "answerable": True,
             "difficulty": "verbatim"}
    none = {"query": "Who won the World Cup?", "split": "dev", "answerable": False, "difficulty": "verbatim"}
    test = {"query": "past of eat", "split": "test", "answerable": True, "difficulty": "verbatim"}
    assert example_question([test, none, typo, plain]) is plain
    assert example_question([test, none, typo]) is typo  # no plain one: the first the corpus answers
    assert example_question([test]) is test and example_question([]) is None
