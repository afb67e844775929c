import re

import pytest
from support.chunks import make_chunk

from minirag.evaluation.assertion_file import AssertionFileError, load_assertions
from minirag.evaluation.assertions import check, format_markdown
from minirag.evaluation.evaluate import per_query_metrics

# Three documents; each question's gold is the whole of one document (no evidence span).
A0, A1, A2 = (make_chunk(f"a{i}", "a.md", 10 * i) for i in range(3))
B0, C0 = make_chunk("b", "b.md", 0), make_chunk("c", "c.md", 0)
CHUNKS = [A0, A1, A2, B0, C0]
DOC_OF = {c.id: c.doc_id for c in CHUNKS}


def gold(doc):
    return [{"doc_id": doc, "evidence": None, "char_start": None, "char_end": None}]


QUESTIONS = [
    {"qid": "q1", "lang": "en", "difficulty": "verbatim", "tags": ["conjugation"], "answerable": True, "gold": gold("a.md")},
    {"qid": "q2", "lang": "cross", "difficulty": "paraphrase", "tags": [], "answerable": True, "gold": gold("b.md")},
    {"qid": "q3", "lang": "cross", "difficulty": "verbatim", "tags": ["conjugation"], "answerable": True, "gold": gold("c.md")},
    {"qid": "q4", "lang": "en", "difficulty": "verbatim", "tags": [], "answerable": False, "gold": []},
]


def run_of(*chunks):
    return [(c.id, float(len(chunks) - i)) for i, c in enumerate(chunks)]


RUNS = {
    # one document hogs bm25's top 5; the cap spreads it
    "bm25": {"q1": run_of(A0, A1, B0, A2, C0), "q2": run_of(A0, A1, A2, B0, C0),
             "q3": run_of(A0, A1, A2, B0, C0), "q4": run_of(A0, A1, A2)},
    "cap": {"q1": run_of(A0, A1, B0, C0, A2), "q2": run_of(B0, A0, A1, C0, A2),
            "q3": run_of(A0, C0, A1, B0, A2), "q4": run_of(A0, A1, A2)},
}


def write(tmp_path, text):
    path = tmp_path / "assertions.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def run_checks(tmp_path, text, runs=RUNS):
    assertions = load_assertions(write(tmp_path, text))
    return check(assertions, runs, DOC_OF, QUESTIONS, per_query_metrics(QUESTIONS, CHUNKS, runs))


def test_contains_doc_pass_and_fail_show_the_top_docs(tmp_path):
    results = run_checks(tmp_path, """
assertions:
  - {query_id: q1, retriever: bm25, contains_doc: c.md, k: 5}
  - {query_id: q1, retriever: bm25, contains_doc: c.md, k: 4}
  - {query_id: q1, retriever: bm25, contains_doc: [x.md, b.md], k: 3}
""")
    assert [r.status for r in results] == ["PASS", "FAIL", "PASS"]
    assert results[0].text == "bm25 q1: top 5 contains c.md"
    assert results[0].observed == "top 5 docs: a.md, a.md, b.md, a.md, c.md"
    assert results[2].text == "bm25 q1: top 3 contains x.md or b.md"


def test_excludes_doc_catches_a_pointer_page_in_the_gold_place(tmp_path):
    results = run_checks(tmp_path, """
assertions:
  - {query_id: q2, retriever: bm25, excludes_doc: a.md, k: 1}
  - {query_id: q2, retriever: cap, excludes_doc: a.md, k: 1}
""")
    assert [r.status for r in results] == ["FAIL", "PASS"]


def test_distinct_docs_and_max_per_doc(tmp_path):
    results = run_checks(tmp_path, """
assertions:
  - {query_id: q2, retriever: bm25, min_distinct_docs: 2, k: 3}
  - {query_id: q2, retriever: cap, min_distinct_docs: 2, k: 3}
  - {query_id: q2, retriever: bm25, max_per_doc: 2, k: 4}
  - {query_id: q2, retriever: cap, max_per_doc: 2, k: 4}
""")
    assert [r.status for r in results] == ["FAIL", "PASS", "FAIL", "PASS"]
    assert results[0].observed == "top 3 docs: a.md, a.md, a.md (1 distinct)"
    assert results[2].observed.endswith("(most: a.md × 3)")


def test_wildcards_expand_over_runs_and_questions(tmp_path):
    results = run_checks(tmp_path, """
assertions:
  - {retriever: "*", query_id: "*", max_per_doc: 2, k: 4}
""")
    assert [r.text.split(":")[0] for r in results] == ["bm25 q1", "bm25 q2", "bm25 q3", "bm25 q4",
                                                       "cap q1", "cap q2", "cap q3", "cap q4"]
    assert [r.status for r in results] == ["FAIL"] * 4 + ["PASS"] * 3 + ["FAIL"]


def test_missing_run_or_question_fails_instead_of_passing(tmp_path):
    results = run_checks(tmp_path, """
assertions:
  - {query_id: q1, retriever: rrf, min_distinct_docs: 1}
  - {query_id: q9, retriever: bm25, min_distinct_docs: 1}
  - {retriever: rrf, metric: hit@5, at_least: 0}
""")
    assert [(r.status, r.observed) for r in results] == [
        ("FAIL", "no run named rrf"), ("FAIL", "query q9 not in run bm25"), ("FAIL", "no metrics for run rrf")]


def test_metric_on_a_slice_by_hand(tmp_path):
    # cross questions q2 (gold b.md) and q3 (gold c.md). hit@1 at chunk level:
    # bm25 0 and 0 -> 0.0; cap 1 (B0 first) and 0 -> 0.5
    results = run_checks(tmp_path, """
assertions:
  - {retriever: cap, metric: hit@1, slice: {lang: cross}, level: chunk, at_least: 0.5}
  - {retriever: bm25, metric: hit@1, slice: {lang: cross}, at_least: 0.5}
  - {retriever: cap, metric: hit@1, slice: {lang: cross, tags: conjugation}, at_least: 0.5}
  - {retriever: cap, metric: hit@1, slice: {lang: [en, cross]}, level: doc, at_least: 0.66}
  - {retriever: cap, metric: hit@1, slice: {lang: fr}, at_least: 0.0}
""")
    assert [r.status for r in results] == ["PASS", "FAIL", "FAIL", "PASS", "FAIL"]
    assert results[0].text == "cap: hit@1 (chunk) on lang=cross at least 0.5"
    assert results[0].observed == "hit@1 = 0.500 over 2 questions"
    assert results[2].observed == "hit@1 = 0.000 over 1 questions"  # q3 only
    assert results[3].observed == "hit@1 = 0.667 over 3 questions"  # q1, q2 hit; the unanswerable q4 not counted
    assert results[4].observed == "no answerable question in the slice"


def test_per_query_metrics_shape():
    metrics = per_query_metrics(QUESTIONS, CHUNKS, RUNS)
    assert set(metrics) == {"bm25", "cap"} and set(metrics["cap"]) == {"chunk", "doc"}
    assert set(metrics["cap"]["chunk"]) == {"q1", "q2", "q3"}
    assert metrics["cap"]["doc"]["q3"]["mrr"] == 0.5  # documents a, c, b: c second
    assert metrics["bm25"]["chunk"]["q2"]["mrr"] == 0.25  # B0 fourth


def test_format_markdown_lines_and_summary(tmp_path):
    results = run_checks(tmp_path, """
assertions:
  - {query_id: q1, retriever: bm25, contains_doc: c.md}
  - {query_id: q2, retriever: bm25, min_distinct_docs: 2, k: 3}
""")
    assert format_markdown(results) == (
        "- PASS bm25 q1: top 5 contains c.md — top 5 docs: a.md, a.md, b.md, a.md, c.md\n"
        "- FAIL bm25 q2: top 3 from at least 2 distinct documents — top 3 docs: a.md, a.md, a.md (1 distinct)\n"
        "\n"
        "1 of 2 passed\n")
    assert format_markdown([]) == "0 of 0 passed\n"


def test_numeric_ids_are_read_as_strings(tmp_path):
    (a,) = load_assertions(write(tmp_path, "assertions:\n  - {query_id: 1, retriever: bm25, contains_doc: 4983}\n"))
    assert (a.query_id, a.docs, a.k) == (("1",), ("4983",), 5)


@pytest.mark.parametrize("entry, message", [
    ("{query_id: q1, retriever: bm25, contain_doc: a.md}", r"assertions\[1\]: contain_doc: unknown key"),
    ("{query_id: q1, contains_doc: a.md}", r"assertions\[1\]: retriever: missing"),
    ("{retriever: bm25, contains_doc: a.md}", r"assertions\[1\]: query_id: missing"),
    ("{query_id: q1, retriever: bm25, contains_doc: a.md, min_distinct_docs: 2}", r"assertions\[1\]: needs exactly one of"),
    ("{query_id: q1, retriever: bm25, min_distinct_docs: 2, k: 0}", r"assertions\[1\]: k: expected a positive integer"),
    ("{query_id: q1, retriever: bm25, max_per_doc: two}", r"assertions\[1\]: max_per_doc: expected a positive integer"),
    ("{query_id: '*', retriever: bm25, contains_doc: a.md}", r"assertions\[1\]: query_id: '\*' cannot be used"),
    ("{retriever: rrf, metric: hit@4, at_least: 0.5}", r"assertions\[1\]: metric: unknown metric 'hit@4'"),
    ("{retriever: rrf, metric: hit@5, at_least: high}", r"assertions\[1\]: at_least: expected a number"),
    ("{retriever: rrf, metric: hit@5, at_least: 0.5, k: 5}", r"assertions\[1\]: k: does not apply"),
    ("{retriever: rrf, metric: hit@5, at_least: 0.5, level: passage}", r"assertions\[1\]: level: expected chunk or doc"),
    ("{query_id: q1, retriever: bm25, contains_doc: a.md, at_least: 1}", r"assertions\[1\]: at_least: applies only"),
    ("just text", r"assertions\[1\]: expected a mapping"),
])
def test_malformed_entry_error_names_file_entry_and_key(tmp_path, entry, message):
    path = write(tmp_path, f"assertions:\n  - {{query_id: q1, retriever: bm25, contains_doc: a.md}}\n  - {entry}\n")
    with pytest.raises(AssertionFileError, match=message) as info:
        load_assertions(path)
    assert str(info.value).startswith(f"{path}: ")


@pytest.mark.parametrize("text", ["assertions: {a: 1}\n", "- {retriever: bm25}\n", "assertions: [\n"])
def test_malformed_file_is_named(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(AssertionFileError, match=re.escape(str(path))):
        load_assertions(path)
