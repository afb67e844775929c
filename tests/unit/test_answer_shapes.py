"""Why, how and what-do-I-do questions are answered by the sentence that holds the best span (select/selector.py)."""

import numpy as np

from minirag.answer.select.candidates import Candidate
from minirag.answer.select.generic import GenericQuestion, SpanBlock
from minirag.answer.select.pooling import Answer
from minirag.answer.select.selection import Read, Selection, as_sentences

WHY = "Add the lemon juice at the end, off the heat: boiled lemon juice loses its fresh taste."
OTHER = "Rinse the lentils until the water runs clear."


def selection(cands: list[Candidate], answers: list[Answer]) -> Selection:
    read = Read("Why add the lemon juice at the end?", None, [(SpanBlock(cands), 1)], np.zeros((len(cands), 1)),
                np.zeros(1), ("x",))
    return Selection(read, np.array([a.p for a in answers]), 0.1, answers)


def test_a_span_becomes_the_sentence_that_holds_it_and_each_sentence_answers_once():
    cands = [Candidate("c", 1, "phrase", "heat", WHY), Candidate("c", 1, "clause", "off the heat", WHY),
             Candidate("c", 1, "phrase", "lentils", OTHER)]
    shaped = as_sentences(selection(cands, [Answer("heat", 0.5, 0), Answer("off the heat", 0.3, 1),
                                            Answer("lentils", 0.1, 2)]))
    assert [(a.text, a.p, a.best) for a in shaped.answers] == [(WHY, 0.5, 0), (OTHER, 0.1, 2)]
    assert [r["text"] for r in shaped.answer_records(2)] == [WHY, OTHER]  # what the candidates and prompt hold


def test_a_table_cell_stays_the_cell():
    row = "Error codes: Code: E3; What to do: Let it cool for 30 minutes"
    cands = [Candidate("c", 1, "cell", "Let it cool for 30 minutes", row, "E3", "What to do")]
    shaped = as_sentences(selection(cands, [Answer("Let it cool for 30 minutes", 0.9, 0)]))
    assert [a.text for a in shaped.answers] == ["Let it cool for 30 minutes"]


def test_which_questions_want_a_sentence():
    wants = {q: GenericQuestion(q, {}, 1.0).wants_sentence for q in (
        "Why add the lemon juice at the end?", "How do I cancel my membership?", "What should I do on E3?",
        "How long is the warranty?", "How much does it cost?", "What does E3 mean?", "Who approves it?")}
    assert [q for q, w in wants.items() if w] == ["Why add the lemon juice at the end?",
                                                  "How do I cancel my membership?", "What should I do on E3?"]
