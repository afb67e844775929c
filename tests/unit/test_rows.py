"""The one alignment check between a vectors file or BM25 index and the chunks (index/rows.py)."""

from dataclasses import replace

import numpy as np
import pytest
from support.chunks import make_chunk

from minirag.index.rows import AlignmentError, check_rows, item_rows, place_rows


def chunks():
    return [make_chunk("ate", offset=0, title="Past"), make_chunk("went", offset=10, title="Past"),
            make_chunk("vine", offset=20, title="Pretérito")]


def test_rows_name_the_item_and_hash_the_text_its_stage_saw():
    with_context, bare = item_rows(chunks()), item_rows(chunks(), with_context=False)
    assert [r[0] for r in with_context] == [c.id for c in chunks()]
    assert with_context[0][1] != bare[0][1]  # the title is part of what was indexed
    unit = make_chunk("vine", offset=20)
    unit = replace(unit, id="u1", metadata={**unit.metadata, "parent": "p"})
    assert item_rows([unit], parent=True)[0][2] == "p"


def test_a_stale_file_is_refused_naming_the_row_and_the_stage_to_rerun():
    rows = item_rows(chunks())
    check_rows("v.npy", rows, item_rows(chunks()), 3, "embed")
    edited = chunks()
    edited[1] = replace(edited[1], text="gone")  # the same id, another text
    with pytest.raises(AlignmentError, match=r"v.npy: row 1 .*different text; re-run embed"):
        check_rows("v.npy", rows, item_rows(edited), 3, "embed")
    with pytest.raises(AlignmentError, match="row 0 is chunk"):
        check_rows("v.npy", rows[::-1], item_rows(chunks()), 3, "embed")
    with pytest.raises(AlignmentError, match="2 rows for 3 chunks"):
        check_rows("v.npy", rows, item_rows(chunks()), 2, "embed")


def test_a_shards_rows_are_placed_in_the_corpus_order_or_refused():
    rows = item_rows(chunks())
    position = {r[0]: i for i, r in enumerate(rows)}
    np.testing.assert_array_equal(place_rows("s", [rows[2], rows[0]], rows, position, "embed_shard"), [2, 0])
    with pytest.raises(AlignmentError, match="row 0 .*not in chunks.jsonl.*re-run bm25_shard"):
        place_rows("s", [[rows[1][0], "0" * 64]], rows, position, "bm25_shard")
    with pytest.raises(AlignmentError, match="row 0"):
        place_rows("s", [["unknown", rows[1][1]]], rows, position, "bm25_shard")
