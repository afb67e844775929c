from helpers import make_chunk

from minirag.answer.prompt import IDK, build_prompt
from minirag.answer.readers import ExtractiveReader, candidates


def test_build_prompt_without_chunks_instructs_i_dont_know():
    p = build_prompt("What is the past of go?", [])
    assert IDK in p.text and "no context was retrieved" in p.text
    assert p.citations == []


def test_markers_follow_rank_order_and_map_to_chunk_ids():
    c1, c2 = make_chunk("First rule.", offset=0), make_chunk("Second rule.", offset=50)
    p = build_prompt("q?", [c1, c2])
    assert "[#1] First rule.\n[#2] Second rule." in p.text
    assert p.citations == [c1.id, c2.id]
    assert p.text.index("Question: q?") > p.text.index("[#2]")


def test_table_rows_are_matched_with_their_header_and_heading():
    ctx = "## Tener\n\n| Persona | Tener |\n|---|---|\n| yo | tuve |\n| tú | tuviste |"
    rows = candidates(ctx)
    assert [t for t, _ in rows] == ["yo | tuve (Persona | Tener)", "tú | tuviste (Persona | Tener)"]
    assert "tener" in rows[0][1]


def test_reader_extracts_the_row_that_answers_and_cites_it():
    prose = make_chunk("Irregular verbs do not add -ed. Learn the past simple by heart.", offset=0)
    table = make_chunk("| Base form | Past simple | Past participle |\n|---|---|---|\n| eat | ate | eaten |\n| go | went | gone |", offset=100)
    ans = ExtractiveReader(threshold=0.5).generate(build_prompt("What is the past simple of eat?", [prose, table]))
    assert not ans.abstained
    assert ans.text.startswith("eat | ate | eaten") and ans.text.endswith("[#2]")
    assert ans.citations == [table.id]


def test_reader_abstains_when_the_context_lacks_the_question():
    ctx = make_chunk("Use estar for location: Estoy en casa.", offset=0)
    ans = ExtractiveReader(threshold=0.5).generate(build_prompt("How do French nouns get their gender?", [ctx]))
    assert ans.abstained and ans.text == IDK and ans.citations == []


def test_reader_abstains_without_context():
    ans = ExtractiveReader().generate(build_prompt("past of go?", []))
    assert ans.abstained and ans.text == IDK


def test_a_table_cut_by_chunking_has_no_header_row():
    # A chunk that starts mid-table: its first row is an answer, not a header.
    rows = candidates("| eat | ate | eaten |\n| go | went | gone |")
    assert [t for t, _ in rows] == ["eat | ate | eaten", "go | went | gone"]
