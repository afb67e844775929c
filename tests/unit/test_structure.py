"""Document structure: heading paths, tables, chunk contexts, units, and the text an index sees of a chunk."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunks import make_chunk

from minirag.text.chunks import Chunk, check_slices, chunk_id, index_text
from minirag.text.structure import DocumentStructure, Table, reading_lines
from minirag.text.units import chunk_units, unit_id

VERBS = """# Irregular verbs

Most verbs are regular. Some are not!

## Table of common irregular verbs

| Base form | Past simple | Past participle |
|---|---|---|
| begin | began | begun |
| go | went | gone |

Learn them by heart.

- one item
* another item
2) a numbered item

## Notes
Plain.
"""


def span_of(text: str, needle: str) -> tuple[int, int]:
    start = text.index(needle)
    return start, start + len(needle)


def chunk_of(text: str, start: int, end: int, title: str = "Irregular verbs", doc: str = "d.md") -> Chunk:
    """A chunk as chunk.py writes it: an exact slice with its title, section and context."""
    s = DocumentStructure(text)
    first = start + len(text[start:end]) - len(text[start:end].lstrip())
    return Chunk(id=chunk_id(doc, start), text=text[start:end], doc_id=doc, offset=start,
                 metadata={"title": title, "section": s.section_at(first), "context": s.context(title, start, end),
                           "char_start": start, "char_end": end})


# ---------------------------------------------------------------- headings


def test_heading_path_keeps_the_last_heading_of_each_level_above():
    text = "# A\nx\n### C\ny\n## B\nz\n### D\nw\n# E\nv\n"
    s = DocumentStructure(text)
    assert s.heading_path(text.index("y")) == ["A", "C"]  # a skipped level is no gap
    assert s.heading_path(text.index("z")) == ["A", "B"]  # B closes C, a deeper heading
    assert s.heading_path(text.index("w")) == ["A", "B", "D"]
    assert s.heading_path(text.index("v")) == ["E"]  # a new top heading closes everything
    assert s.section_at(text.index("w")) == "D"


def test_nothing_is_in_force_before_the_first_heading_and_a_heading_is_in_force_on_its_own_line():
    text = "intro\n## First\nbody\n"
    s = DocumentStructure(text)
    assert s.heading_path(0) == [] and s.section_at(0) == ""
    assert s.heading_path(text.index("## First")) == ["First"]
    assert s.section_at(text.index("## First") - 1) == ""


def test_heading_titles_lose_closing_hashes_and_spaces_and_non_headings_are_ignored():
    text = "##   Spaced title  ##  \n#NoSpace\n####### seven\n    # indented code\n"
    s = DocumentStructure(text)
    assert [h[1:] for h in s.heads] == [(2, "Spaced title")]


# ---------------------------------------------------------------- tables


def test_a_table_is_a_header_a_separator_and_at_least_one_row():
    s = DocumentStructure(VERBS)
    rows_start = VERBS.index("| begin")
    assert s.tables == [Table("| Base form | Past simple | Past participle |", rows_start,
                              VERBS.index("| go | went | gone |") + len("| go | went | gone |"))]
    assert s.table_at(VERBS.index("| go")) == s.tables[0]
    assert s.table_at(VERBS.index("| Base")) is None  # the header row is not a data row
    assert s.table_at(VERBS.index("Learn")) is None


@pytest.mark.parametrize("text", [
    "| a | b |\n|---|---|\n\nprose\n",       # a header and separator with no row
    "| a | b |\n| c | d |\n| e | f |\n",     # pipes without a separator
    "a | b\n---|---\nc | d\n",               # no leading pipe: not recognised
])
def test_lines_with_pipes_are_not_always_a_table(text):
    assert DocumentStructure(text).tables == []


def test_alignment_colons_and_indentation_still_make_a_separator():
    text = "  | a | b |\n  | :-- | --: |\n  | c | d |\n"
    (table,) = DocumentStructure(text).tables
    assert table.header == "| a | b |" and text[table.rows_start:table.end] == "  | c | d |"


# ---------------------------------------------------------------- context


def test_context_is_the_title_and_heading_path_at_the_first_character():
    s = DocumentStructure(VERBS)
    start = VERBS.index("Learn")
    assert s.context("Grammar", start, len(VERBS)) == "Grammar › Irregular verbs › Table of common irregular verbs"


def test_a_title_repeated_by_the_first_heading_is_said_once_whatever_its_case():
    s = DocumentStructure(VERBS)
    assert s.context("IRREGULAR VERBS", VERBS.index("Most"), len(VERBS)) == "IRREGULAR VERBS"


def test_leading_blank_lines_do_not_decide_the_context():
    s = DocumentStructure(VERBS)
    heading = VERBS.index("## Notes")
    assert s.context("T", heading - 1, len(VERBS)) == "T › Irregular verbs › Notes"


def test_a_span_cut_from_the_middle_of_a_table_carries_its_header_on_a_second_line():
    s = DocumentStructure(VERBS)
    assert s.context("Irregular verbs", VERBS.index("| go"), len(VERBS)) == (
        "Irregular verbs › Table of common irregular verbs\n| Base form | Past simple | Past participle |")
    # a span that starts at the header row has it already
    assert "\n" not in s.context("Irregular verbs", VERBS.index("| Base"), len(VERBS))


def test_no_title_and_no_heading_make_an_empty_context():
    assert DocumentStructure("just prose.\n").context("", 0, 5) == ""


# ---------------------------------------------------------------- units


def unit_texts(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, str]]:
    return [(u.kind, text[u.start:u.end]) for u in DocumentStructure(text).units(start, len(text) if end is None
                                                                                   else end)]


def test_units_are_sentences_rows_with_their_header_and_list_items_in_document_order():
    assert unit_texts(VERBS) == [
        ("sentence", "Most verbs are regular."), ("sentence", "Some are not!"),
        ("row", "| begin | began | begun |"), ("row", "| go | went | gone |"),
        ("sentence", "Learn them by heart."),
        ("item", "- one item"), ("item", "* another item"), ("item", "2) a numbered item"),
        ("sentence", "Plain."),
    ]
    rows = [u for u in DocumentStructure(VERBS).units(0, len(VERBS)) if u.kind == "row"]
    assert {u.header for u in rows} == {"| Base form | Past simple | Past participle |"}


def test_a_sentence_keeps_its_closing_quote_and_cjk_stops_end_sentences():
    text = 'He said "stop." Then left.\n日本語の文。次の文！\n'
    assert [t for _, t in unit_texts(text)] == ['He said "stop."', "Then left.", "日本語の文。", "次の文！"]


def test_punctuation_without_a_word_is_not_a_unit():
    assert unit_texts("... !!! Word.\n— —\n") == [("sentence", "Word.")]


def test_units_of_a_span_leave_out_what_lies_outside_it():
    start, end = span_of(VERBS, "| go | went | gone |\n\nLearn them by heart.")
    assert unit_texts(VERBS, start, end) == [("row", "| go | went | gone |"), ("sentence", "Learn them by heart.")]


def test_a_row_cut_inside_a_cell_by_the_span_end_is_not_a_unit():
    start = VERBS.index("| begin")
    end = VERBS.index("went") + 2
    assert unit_texts(VERBS, start, end) == [("row", "| begin | began | begun |")]


@pytest.mark.parametrize("first,last", [
    ("Learn", "by heart"),      # ends inside a sentence: "Learn them " came back as a sentence
    ("them by", "- one"),       # starts inside a sentence: "them by heart."
    ("egin |", "| go"),         # starts inside a row: "egin | began | begun |" as a sentence
    ("Learn them by heart.\n\n- one", "item\n* another"),  # "- one " as a list item
])
def test_a_unit_cut_by_the_span_is_not_a_unit_of_the_span(first, last):
    start, end = VERBS.index(first), VERBS.index(last)
    whole = {(u.kind, VERBS[u.start:u.end]) for u in DocumentStructure(VERBS).units(0, len(VERBS))}
    assert set(unit_texts(VERBS, start, end)) <= whole


def test_a_row_cut_after_a_pipe_is_not_a_unit():
    start, end = VERBS.index("| begin"), VERBS.index("went")
    assert unit_texts(VERBS, start, end) == [("row", "| begin | began | begun |")]


WRAPPED = """# Warranty

Orvell guarantees the grinder against defects in material and workmanship
for two years from the date of purchase.
A line that ends a sentence and runs on is joined.

- an item long enough to be wrapped by its writer onto the line
  below it
- a short item
Weight: 3.1 kg
Colour: red
| a | b |
|---|---|
| 1 | 2 |
Code  Meaning                     What to do
W01   No cable in the WAN port    Plug the cable in.
A hard break ends the line here, not a wrap at all{HARD_BREAK}
Next line
```
code long enough to be taken for a wrapped line of prose
stays as it is
```
""".format(HARD_BREAK="  ")  # two spaces end a line in Markdown


def test_reading_lines_join_soft_wrapped_prose_and_keep_every_other_line_as_written():
    assert reading_lines(WRAPPED) == [
        "# Warranty", "",
        "Orvell guarantees the grinder against defects in material and workmanship for two years from the date "
        "of purchase. A line that ends a sentence and runs on is joined.", "",
        "- an item long enough to be wrapped by its writer onto the line below it",
        "- a short item", "Weight: 3.1 kg", "Colour: red",
        "| a | b |", "|---|---|", "| 1 | 2 |",
        "Code  Meaning                     What to do",
        "W01   No cable in the WAN port    Plug the cable in.",
        "A hard break ends the line here, not a wrap at all  ", "Next line",
        "```", "code long enough to be taken for a wrapped line of prose", "stays as it is", "```", ""]


def test_a_line_in_lower_case_continues_even_a_short_line():
    assert reading_lines("Keep it\nunder 35 °C.") == ["Keep it under 35 °C."]


def test_a_row_without_a_closing_pipe_is_still_a_row():
    text = "| a | b |\n|---|---|\n| x | y\n| z | w |\n"
    assert unit_texts(text) == [("row", "| x | y"), ("row", "| z | w |")]


WORDS = st.sampled_from(["alpha", "beta", "Gamma", "niño", "3.14", "x", "日本語"])
SENTENCE = st.builds(lambda ws, end: " ".join(ws) + end, st.lists(WORDS, min_size=1, max_size=6),
                     st.sampled_from([".", "!", "?", "", "。"]))
PARAGRAPH = st.builds(" ".join, st.lists(SENTENCE, min_size=1, max_size=4))
HEADING = st.builds(lambda n, ws: "#" * n + " " + " ".join(ws), st.integers(1, 4), st.lists(WORDS, min_size=1,
                                                                                                 max_size=3))
ITEMS = st.builds(lambda ws, m: "\n".join(f"{m} {w}" for w in ws), st.lists(WORDS, min_size=1, max_size=3),
                  st.sampled_from(["-", "*", "1."]))
# A table ends in a blank line: two tables with nothing between them are one (as in GFM).
TABLE = st.builds(lambda rows: "| k | v |\n|---|---|\n" + "".join(f"| {a} | {b} |\n" for a, b in rows),
                  st.lists(st.tuples(WORDS, WORDS), min_size=1, max_size=4))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(PARAGRAPH, HEADING, ITEMS, TABLE), max_size=8), st.sampled_from(["\n", "\n\n"]))
def test_units_of_a_whole_document_are_exact_ordered_single_line_slices(blocks, sep):
    text = sep.join(blocks) + "\n"
    s = DocumentStructure(text)
    units = s.units(0, len(text))
    for prev, u in zip(units, units[1:]):
        assert prev.end <= u.start
    for u in units:
        piece = text[u.start:u.end]
        assert piece and piece == piece.strip() and "\n" not in piece
        assert (u.kind == "row") == bool(u.header)
        if u.kind == "row":
            assert s.table_at(u.start).header == u.header
    rows = [text[u.start:u.end] for u in units if u.kind == "row"]
    assert len(rows) == sum(len(text[t.rows_start:t.end].split("\n")) for t in s.tables)
    items = [ln for ln in text.split("\n") if ln[:2] in ("- ", "* ", "1.")]
    assert [text[u.start:u.end] for u in units if u.kind == "item"] == items


# ---------------------------------------------------------------- chunk_units


def test_every_unit_is_an_exact_slice_with_its_parent_section_and_context():
    start, end = span_of(VERBS, "| go | went | gone |\n\nLearn them by heart.\n\n- one item")
    chunk = chunk_of(VERBS, start, end)
    units = chunk_units([chunk], {"d.md": {"text": VERBS}})
    assert [u.text for u in units] == ["| go | went | gone |", "Learn them by heart.", "- one item"]
    for u in units:
        assert u.text == VERBS[u.metadata["char_start"]:u.metadata["char_end"]] and u.offset == u.metadata["char_start"]
        assert u.metadata["parent"] == chunk.id and u.id == unit_id(chunk.id, u.offset) and u.doc_id == "d.md"
        assert u.title == "Irregular verbs" and u.section == "Table of common irregular verbs"
    row, sentence, item = units
    path = "Irregular verbs › Table of common irregular verbs"
    assert row.context == path + "\n| Base form | Past simple | Past participle |"
    assert sentence.context == path and item.context == path  # the chunk's table header is a row's only
    assert [u.metadata["kind"] for u in units] == ["row", "sentence", "item"]
    check_slices(units, {"d.md": VERBS}, "units.jsonl")  # units pass the slice check by their parent


def test_a_row_unit_is_indexed_with_the_path_and_the_header_of_its_table():
    chunk = chunk_of(VERBS, VERBS.index("| Base"), VERBS.index("Learn"))
    row = next(u for u in chunk_units([chunk], {"d.md": {"text": VERBS}}) if u.text.startswith("| begin"))
    assert index_text(row) == ("Irregular verbs › Table of common irregular verbs\n"
                               "| Base form | Past simple | Past participle |\n| begin | began | begun |")


def test_a_unit_shared_by_two_overlapping_chunks_belongs_to_both_and_one_crossing_them_to_neither():
    a = chunk_of(VERBS, 0, VERBS.index("not!") + 4)
    b = chunk_of(VERBS, VERBS.index("Some"), VERBS.index("| begin"))
    c = chunk_of(VERBS, VERBS.index("| begin"), VERBS.index("| go") + 5)  # ends inside the second row
    units = chunk_units([a, b, c], {"d.md": {"text": VERBS}})
    some = [u for u in units if u.text == "Some are not!"]
    assert [u.metadata["parent"] for u in some] == [a.id, b.id] and some[0].id != some[1].id
    assert [u.text for u in units if u.metadata["parent"] == c.id] == ["| begin | began | begun |"]


def test_a_chunk_without_a_context_gives_its_units_its_title():
    chunk = make_chunk(VERBS[:VERBS.index("##")], doc="d.md", title="Old title")
    units = chunk_units([chunk], {"d.md": {"text": VERBS}})
    assert [u.context for u in units] == ["Old title", "Old title"]


def test_a_title_less_chunk_cut_from_a_table_does_not_repeat_the_header():
    text = "| a | b |\n|---|---|\n| x | y |\n| z | w |\nSome prose here.\n"
    chunk = chunk_of(text, text.index("| z"), len(text), title="")
    row, sentence = chunk_units([chunk], {"d.md": {"text": text}})
    assert row.context == "| a | b |" and sentence.context == ""


# ---------------------------------------------------------------- Chunk and index_text


def test_index_text_puts_the_context_before_the_text_only_when_asked():
    chunk = chunk_of(VERBS, VERBS.index("| go"), VERBS.index("Learn"))
    assert index_text(chunk) == chunk.context + "\n" + chunk.text
    assert chunk.context.endswith("| Base form | Past simple | Past participle |")
    assert index_text(chunk, with_context=False) == chunk.text


def test_an_empty_context_adds_nothing():
    chunk = Chunk("id", "body", "d.md", 0, {"title": "T", "section": "S", "context": ""})
    assert index_text(chunk) == "body"


@pytest.mark.parametrize("title,section,expected", [
    ("Guide", "Install", "Guide\nInstall\nbody"),
    ("Guide", "Guide", "Guide\nbody"),  # a section that repeats the title is said once
    ("", "Install", "Install\nbody"),
    ("", "", "body"),
])
def test_chunks_written_before_contexts_get_title_and_section(title, section, expected):
    assert index_text(make_chunk("body", title=title, section=section)) == expected


def test_a_chunk_record_round_trips_and_missing_metadata_reads_as_empty():
    chunk = chunk_of(VERBS, VERBS.index("| go"), len(VERBS))
    assert Chunk.from_record(chunk.to_record()) == chunk
    bare = Chunk.from_record({"id": "x", "text": "t", "doc_id": "d", "offset": 0})
    assert (bare.title, bare.section, bare.context, bare.metadata) == ("", "", "", {})


def test_an_edited_chunk_fails_the_slice_check_naming_it():
    chunk = chunk_of(VERBS, 0, 40)
    check_slices([chunk], {"d.md": VERBS}, "chunks.jsonl")
    edited = Chunk(chunk.id, chunk.text.upper(), chunk.doc_id, chunk.offset, chunk.metadata)
    with pytest.raises(ValueError, match=rf"chunks.jsonl:1: chunk {chunk.id} is not the slice \[0:40\]"):
        check_slices([edited], {"d.md": VERBS}, "chunks.jsonl")

