"""The Mini-GPT's reading tasks on a corpus of prose alone: its sentences' typed spans are the facts."""

import pytest

from minirag.answer.reading.facts import row_facts, sentence_facts
from minirag.answer.reading.span_facts import span_facts
from minirag.answer.reading.tasks import make_tasks

RECIPES = [
    ("bread.md", "Country loaf", "Mix the flour and water and leave it for 30 minutes before adding salt. "
     "Bake the loaf at 230 °C for 40 minutes until the crust is dark. Let it cool for 2 hours before slicing."),
    ("soup.md", "Lentil soup", "Simmer the lentils for 25 minutes in 1.5 litres of stock until soft. "
     "Season with 2 teaspoons of cumin and serve with bread from the bakery in Lyon."),
    ("cake.md", "Banana cake", "Heat the oven to 180 °C and grease a 900 g loaf tin with butter. "
     "Bake the cake for 55 minutes, then leave it in the tin for 10 minutes before turning it out."),
    ("pickles.md", "Quick pickles", "Slice 500 g of cucumbers thinly and salt them for one hour. "
     "Pour the hot vinegar over them and keep the jar in the fridge for up to 3 weeks."),
]
DOCS = [{"doc_id": d, "title": t, "lang": "en", "text": f"# {t}\n\n{body}\n"} for d, t, body in RECIPES]


def test_prose_without_tables_or_shaped_lines_gives_span_facts_with_their_questions():
    assert row_facts(DOCS) == [] and sentence_facts(DOCS) == []  # the facts the grammar's corpus has: none here
    facts = span_facts(DOCS)
    assert facts and all(f.kind.startswith("span-") and f.question.endswith("?") for f in facts)
    for f in facts:
        assert f.line[f.span[0]:f.span[1]] == f.value and f.value not in f.question  # asked, not given away
        assert f.value not in f.alternatives
    by_value = {f.value: f for f in facts}
    assert by_value["40 minutes"].question.startswith("How long")  # a duration asked by its attribute
    assert span_facts(DOCS) == facts  # seeded


def test_the_reading_tasks_are_made_from_them_where_facts_were_too_few():
    tasks = make_tasks(DOCS, 60, 5, seed=0)
    kinds = {(t.split, t.kind) for t in tasks}
    assert {("train", "true"), ("train", "swapped"), ("train", "absent")} <= kinds
    true = [t for t in tasks if t.kind == "true"]
    assert all(t.answer in dict(t.lines)[t.cite] for t in true)
    assert make_tasks(DOCS, 60, 5, seed=0) == tasks


def test_a_corpus_with_no_sentence_to_ask_about_still_fails_with_what_it_found():
    docs = [{"doc_id": "a.md", "title": "A", "lang": "en", "text": "# A\n\nShort.\n"}]
    with pytest.raises(ValueError, match="from 0 facts"):
        make_tasks(docs, 10, 2, seed=0)
