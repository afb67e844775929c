"""Questions: every field type-checked, gold located by its evidence, errors naming file, line and field."""

import json

import pytest

from minirag.text.corpus import CorpusError
from minirag.text.questions import load_questions


def question(**over):
    q = {"qid": "q1", "query": "past of go", "lang": "en", "difficulty": "verbatim",
         "gold": [{"doc_id": "a.md", "evidence": "go went gone"}], "answer": "went", "answerable": True}
    q.update(over)
    return q


DOCS = [{"doc_id": "a.md", "title": "A", "lang": "en", "text": "Irregular: go went gone.", "sha256": ""}]


@pytest.mark.parametrize("bad, message", [
    (question(gold=[{"doc_id": "a.md", "evidence": "go wented"}]), r"q\.jsonl:2: q1: gold: evidence not found verbatim in a\.md"),
    (question(answer="gone!"), r"q\.jsonl:2: q1: answer: 'gone!' is not in its evidence"),
    (question(gold=[{"doc_id": "zz.md", "evidence": "go"}]), r"q\.jsonl:2: q1: gold: unknown doc id 'zz\.md'"),
    (question(lang="French"), r"q\.jsonl:2: q1: lang: 'French' is not a language code"),
    (question(difficulty="hard"), r"difficulty: 'hard' is not one of verbatim, paraphrase"),
    (question(tags=5), r"q\.jsonl:2: q1: tags: expected a list of strings, got 5"),
    (question(gold=[{"doc_id": "a.md", "evidence": 5}]), r"q1: evidence: expected a non-empty string, got 5"),
    (question(gold=[{"doc_id": ["a.md"], "evidence": "go"}]), r"q1: doc_id: expected a non-empty string"),
    (question(gold=[{"doc_id": "a.md", "evidence": "go", "extra": 1}]), r"q1: gold: each entry needs exactly"),
    (question(qid=7), r"q\.jsonl:2: qid: expected a non-empty string, got 7"),
    (question(answerable="yes"), r"q1: answerable: expected true or false"),
    (question(answer=None), r"q1: answer: expected a non-empty string, got None"),
    ({"qid": "q1", "query": "x"}, r"q\.jsonl:2: missing field\(s\): gold, answer, answerable"),
    (question(qid="q0"), r"q\.jsonl:2: q0: duplicate qid \(first on line 1\)"),
])
def test_bad_questions_fail_naming_file_and_line(tmp_path, bad, message):
    path = tmp_path / "q.jsonl"
    first = question(qid="q0")
    path.write_text(json.dumps(first) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=message):
        load_questions(path, DOCS)


def test_valid_question_gets_its_evidence_span(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(question()) + "\n", encoding="utf-8")
    (q,) = load_questions(path, DOCS)
    g = q["gold"][0]
    assert DOCS[0]["text"][g["char_start"]:g["char_end"]] == "go went gone"


def test_questions_that_are_not_utf8_name_the_file_and_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes(json.dumps(question()).encode() + b"\n" + b'{"qid": "\xff"}\n')
    with pytest.raises(ValueError, match=r"q\.jsonl:2: not valid UTF-8"):
        load_questions(path, DOCS)


def test_a_question_without_lang_takes_its_detected_language_else_its_gold_documents(tmp_path):
    docs = DOCS + [{"doc_id": "b.md", "title": "B", "lang": "es", "text": "El pasado de ir: fue.", "sha256": ""}]
    said = question(qid="q1", query="¿Cuál es el pasado de la forma que se usa con el verbo ir en la frase?")
    short = question(qid="q2", query="pasado de ir", gold=[{"doc_id": "b.md", "evidence": "fue"}], answer="fue")
    none = question(qid="q3", query="xyz", gold=[], answer=None, answerable=False)
    for q in (said, short, none):
        del q["lang"]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in (said, short, none)), encoding="utf-8")
    langs = {q["qid"]: q["lang"] for q in load_questions(path, docs)}
    assert langs == {"q1": "es", "q2": "es", "q3": "en"}  # q3: the corpus's commonest (a tie: the first by name)
    assert load_questions(path, docs, langs=("en",))[2]["lang"] == "en"
