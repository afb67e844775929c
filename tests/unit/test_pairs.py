"""Training pairs mined from chunks, and BEIR train-split pairs (never the test split)."""

from __future__ import annotations

import re

import pytest

from minirag.index.pairs import (
    mine_pairs,
    pairs_sha256,
    sentence_spans,
    table_row_pairs,
    table_rows,
)

PROSE = ("The past simple describes finished actions. Regular verbs add -ed to the base form. "
         "Irregular verbs must be learned one by one!\nSome learners find this hard. "
         "Practice helps a great deal over time.")

GLOSSARY = """## Tenses

| English | Español |
|---|---|
| past tense | pretérito |
| to have | tener |
"""

VERBS = """| Base form | Past simple | Past participle |
|---|---|---|
| go | went | gone |
| eat | ate | eaten |
"""


def chunk(text: str, cid: str = "c1", title: str = "Past simple", section: str = "") -> dict:
    return {"id": cid, "doc_id": "en/x.md", "offset": 0, "text": text,
            "metadata": {"title": title, "section": section}}


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_title_pairs_use_title_and_a_distinct_section_heading():
    pairs = mine_pairs([chunk(PROSE, section="Regular verbs"), chunk(PROSE, cid="c2", section="Past simple")],
                       ["title"], seed=0)
    assert pairs == [("title", "Past simple", PROSE), ("title", "Regular verbs", PROSE)]


def test_ict_pairs_a_sentence_with_the_rest_of_its_chunk():
    chunks = [chunk(PROSE, cid=f"c{i}") for i in range(20)]
    pairs = mine_pairs(chunks, ["ict"], seed=0, ict_per_chunk=2)
    assert pairs and all(src == "ict" for src, _, _ in pairs)
    sentences = {PROSE[s:e] for s, e in sentence_spans(PROSE)}
    removed = 0
    for _, a, b in pairs:
        assert a in sentences
        assert set(words(b)) <= set(words(PROSE))
        if a not in b:
            removed += 1
            assert " ".join(b.split()) == " ".join(PROSE.replace(a, " ").split())
    assert removed >= len(pairs) // 2  # the sentence usually leaves its context (kept 10% of the time)


def test_sentence_spans_skip_headings_and_separators_and_keep_table_rows_whole():
    text = "# Title\nFirst one. Second one?\n| a | b |\n|---|---|\n| go | went |\n"
    units = [text[s:e] for s, e in sentence_spans(text)]
    assert units == ["First one.", "Second one?", "| a | b |", "| go | went |"]


def test_crops_are_overlapping_spans_of_the_chunk():
    text = " ".join(f"w{i}" for i in range(60))
    pairs = mine_pairs([chunk(text, cid=f"c{i}") for i in range(10)], ["crops"], seed=3, crops_per_chunk=3)
    assert len(pairs) == 30
    for _, a, b in pairs:
        assert a in text and b in text
        wa, wb = words(a), words(b)
        assert set(wa) & set(wb)
        assert 12 <= len(wa) <= 30 and 12 <= len(wb) <= 30  # 20%-50% of 60 words


def test_two_column_rows_pair_both_directions_and_wider_rows_label_cells_with_the_header():
    assert table_row_pairs(chunk(GLOSSARY)) == [("past tense", "pretérito"), ("pretérito", "past tense"),
                                                ("to have", "tener"), ("tener", "to have")]
    assert table_row_pairs(chunk(VERBS)) == [("go", "Past simple: went | Past participle: gone"),
                                             ("eat", "Past simple: ate | Past participle: eaten")]


def test_table_rows_without_their_header_or_cut_by_the_chunk_edge():
    text = "ne |\n| go | went | gone |\n| eat | ate | eaten |\n| tak"  # header in an earlier chunk
    assert list(table_rows(text)) == [(None, ["go", "went", "gone"]), (None, ["eat", "ate", "eaten"])]
    assert table_row_pairs(chunk(text)) == [("go", "went | gone"), ("eat", "ate | eaten")]


def test_mining_is_deterministic_per_seed_and_per_chunk():
    chunks = [chunk(PROSE, cid=f"c{i}") for i in range(8)]
    first = mine_pairs(chunks, ["ict", "crops"], seed=0)
    assert first == mine_pairs(chunks, ["ict", "crops"], seed=0)
    assert first != mine_pairs(chunks, ["ict", "crops"], seed=1)
    # a chunk's pairs do not depend on the other chunks
    alone = mine_pairs(chunks[3:4], ["ict", "crops"], seed=0)
    assert set(alone) <= set(first)


def test_pairs_come_source_by_source_and_duplicates_are_dropped():
    overlapping = [chunk(VERBS, cid="c1"), chunk(VERBS, cid="c2")]  # the same rows in two chunks
    pairs = mine_pairs(overlapping, ["table_rows", "title"], seed=0)
    assert [src for src, _, _ in pairs] == ["table_rows", "table_rows", "title"]


def test_unknown_source_is_an_error():
    with pytest.raises(ValueError, match="unknown source"):
        mine_pairs([chunk(PROSE)], ["titles"], seed=0)


def test_pairs_hash_depends_on_content_and_order():
    p = [("title", "a", "b"), ("ict", "c", "d")]
    assert pairs_sha256(p) == pairs_sha256(list(p))
    assert pairs_sha256(p) != pairs_sha256(p[::-1])
    assert pairs_sha256(p) != pairs_sha256([("title", "a", "b"), ("ict", "c", "e")])
