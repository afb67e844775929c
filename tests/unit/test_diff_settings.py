"""`minirag diff`'s settings rows: one row a changed value, one row a section only one build has."""

from minirag.history.diff import changed


def test_a_changed_value_is_one_row_under_its_dotted_key():
    a = {"retrievers": {"bm25": {"type": "bm25", "k1": 1.2}}, "chunk": {"target_tokens": 150}}
    b = {"retrievers": {"bm25": {"type": "bm25", "k1": 1.5}}, "chunk": {"target_tokens": 150}}
    assert changed(a, b) == [{"key": "retrievers.bm25.k1", "a": 1.2, "b": 1.5}]


def test_an_added_or_removed_retriever_is_one_row_holding_its_settings():
    dense = {"type": "rerank", "of": "lexical", "expand": {"tenses": 3.0}}
    a = {"retrievers": {"bm25": {"type": "bm25"}}}
    b = {"retrievers": {"bm25": {"type": "bm25"}, "rerank-dense": dense}}
    assert changed(a, b) == [{"key": "retrievers.rerank-dense", "a": None, "b": dense}]
    assert changed(b, a) == [{"key": "retrievers.rerank-dense", "a": dense, "b": None}]


def test_a_new_key_inside_a_kept_section_is_its_own_row_and_an_empty_section_is_no_change():
    a = {"retrievers": {"x": {"expand": {"forms": 0.5}}}, "notes": {}}
    b = {"retrievers": {"x": {"expand": {"forms": 0.5, "tenses": 0.0}}}}
    assert changed(a, b) == [{"key": "retrievers.x.expand.tenses", "a": None, "b": 0.0}]
