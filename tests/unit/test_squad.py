"""The squad source (one document per article, every crowd answer, dev by article) and SQuAD's EM/F1."""

import pytest

from minirag.datasets.squad import iter_squad_documents, load_squad_questions
from minirag.evaluation import squad
from minirag.text.corpus import CorpusError

TINY = "tests/fixtures/squad/tiny-v2.0.json"


def test_one_document_per_article_paragraphs_in_order():
    docs = list(iter_squad_documents(TINY, "en"))
    assert [d["doc_id"] for d in docs] == ["Tiny_Town", "Other_Place"]
    assert docs[0]["title"] == "Tiny Town"
    assert docs[0]["text"].split("\n\n") == ["Tiny Town was founded in 1850 by Mary Smith. It has 300 people.",
                                             "The river Blue runs through Tiny Town."]


def test_questions_keep_every_answer_locate_gold_and_mark_unanswerable():
    docs = list(iter_squad_documents(TINY, "fr"))
    qs = {q["qid"]: q for q in load_squad_questions(TINY, docs, dev_docs=("Tiny Town",))}
    assert qs["q1"]["answers"] == ["1850", "in 1850"] and qs["q1"]["answer"] == "1850"
    assert qs["q1"]["lang"] == "fr" and qs["q1"]["split"] == "dev" and qs["q4"]["split"] == "test"
    text = docs[0]["text"]
    g = qs["q3"]["gold"][0]
    assert text[g["char_start"]:g["char_end"]] == "Blue"  # the second paragraph's offset is added
    assert not qs["q2"]["answerable"] and qs["q2"]["answer"] is None and qs["q2"]["gold"] == []


def test_a_dev_article_that_does_not_exist_is_refused():
    docs = list(iter_squad_documents(TINY, "en"))
    with pytest.raises(CorpusError, match="Atlantis"):
        load_squad_questions(TINY, docs, dev_docs=("Atlantis",))


def official_f1(pred: str, gold: str) -> float:
    """The official v2.0 script's compute_f1, transcribed by hand as the reference."""
    import collections
    import re
    import string

    def norm(s):
        s = s.lower()
        s = "".join(ch for ch in s if ch not in set(string.punctuation))
        s = re.sub(r"\b(a|an|the)\b", " ", s)
        return " ".join(s.split())
    g, p = norm(gold).split(), norm(pred).split()
    common = collections.Counter(g) & collections.Counter(p)
    same = sum(common.values())
    if len(g) == 0 or len(p) == 0:
        return float(g == p)
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


@pytest.mark.parametrize("pred,gold,em,f1", [
    ("The Normans", "Normans", 1.0, 1.0),                       # articles removed
    ("normans.", "Normans", 1.0, 1.0),                          # case and punctuation
    ("in the 10th century", "10th and 11th centuries", 0.0, 2 / 7),  # P 1/3, R 1/4
    ("Rollo [#2]", "Rollo", 1.0, 1.0),                          # citations are not the answer
    ("", "", 1.0, 1.0),                                         # abstaining on an unanswerable question
    ("France", "", 0.0, 0.0),                                   # answering one
    ("", "France", 0.0, 0.0),                                   # abstaining on an answerable one
    ("an apple a day", "apple day", 1.0, 1.0),
    ("U.S. Army", "US Army", 1.0, 1.0),
])
def test_em_and_f1_as_the_official_script(pred, gold, em, f1):
    assert squad.exact(pred, [gold]) == em
    assert squad.f1(pred, [gold]) == pytest.approx(f1)
    assert squad.f1(pred, [gold]) == pytest.approx(official_f1(squad.spoken(pred), gold))


def test_best_over_accepted_answers_and_abstention_columns():
    q_ans = {"qid": "a", "answerable": True, "answer": "1850", "answers": ["1850", "in 1850"]}
    q_un = {"qid": "u", "answerable": False, "answer": None}
    assert squad.f1("founded in 1850", q_ans["answers"]) == pytest.approx(0.8)
    rows = {"a": {**squad.question_scores(q_ans, "", True, "in 1850"), "abstained": True},
            "u": {**squad.question_scores(q_un, "", True, "1850"), "abstained": True}}
    s = squad.summary([q_ans, q_un], rows)
    assert s["answerable"]["f1"] == 0.0 and s["unanswerable"]["f1"] == 1.0 and s["overall"]["f1"] == 0.5
    assert s["unanswerable"]["abstained"] == 1.0
    assert s["answerable_no_abstention"]["em"] == 1.0


def test_answer_length_summary_leaves_out_citations():
    assert squad.length_summary(["Rollo [#1]", "the Duke of Normandy [#2]"]) == {
        "answers": 2, "mean": 2.5, "median": 2.5, "p90": 4, "max": 4}


def test_a_question_in_any_language_with_a_list_of_accepted_answers():
    from minirag.text.questions import Where, validate_question
    docs = {"p.md": {"doc_id": "p.md", "text": "Le Mont-Saint-Michel est en Normandie."}}
    q = {"qid": "fr1", "query": "Où est le Mont-Saint-Michel ?", "lang": "fr", "difficulty": "verbatim",
         "gold": [{"doc_id": "p.md", "evidence": "Le Mont-Saint-Michel est en Normandie."}],
         "answer": ["Normandie", "en Normandie"], "answerable": True}
    rec = validate_question(q, docs, Where("q.jsonl", 1))
    assert rec["lang"] == "fr" and rec["answer"] == "Normandie" and rec["answers"] == ["Normandie", "en Normandie"]
    with pytest.raises(CorpusError, match="language code"):
        validate_question({**q, "lang": "French!"}, docs, Where("q.jsonl", 1))
    with pytest.raises(CorpusError, match="not one of"):
        validate_question(q, docs, Where("q.jsonl", 1), ("en", "es", "cross"))


def test_each_reader_and_run_gets_squad_columns_beside_contains_answer():
    from minirag.evaluation.answer_scores import answer_metrics, answer_rows_of
    qs = [{"qid": "a", "answerable": True, "answer": "1850", "answers": ["1850", "in 1850"], "gold": []},
          {"qid": "u", "answerable": False, "answer": None, "gold": []}]
    recs = {"a": {"answer": "in 1850 [#1]", "abstained": False, "citations": [], "latency_ms": 1.0, "reader": "x"},
            "u": {"answer": "I don't know.", "abstained": True, "citations": [], "latency_ms": 1.0, "reader": "x"}}
    rows = answer_rows_of(qs, recs, {}, {}, {"a": "in 1850", "u": "1850"})
    m = answer_metrics(qs, recs, rows)
    assert m["contains_answer"] == 1.0 and m["abstention_accuracy"] == 1.0  # the keys scripts read stay
    assert m["squad"]["overall"]["em"] == 1.0 and m["squad"]["unanswerable"]["abstained"] == 1.0
    assert m["answer_words"]["answers"] == 1 and m["answer_words"]["mean"] == 2.0
