"""The seed's public API runs from a plain `import minirag`: its four-line call site end to end."""

import minirag

DOCS = [
    {"doc_id": "en/irregular.md", "title": "Irregular verbs",
     "text": "# Irregular verbs\n\n| Base form | Past simple | Past participle |\n|---|---|---|\n"
             "| write | wrote | written |\n| eat | ate | eaten |\n"},
    {"doc_id": "en/articles.md", "title": "Articles", "text": "# Articles\n\nUse an before a vowel sound: an apple.\n"},
]


def test_the_seed_api_answers_from_a_plain_import():
    chunks = [c for d in DOCS for c in minirag.chunk_document(d, "none")]
    store = minirag.FlatVectorStore(minirag.HashingEmbedder.fit([c.text for c in chunks], dim=64))
    store.add(chunks)
    hybrid = minirag.HybridRetriever(minirag.DenseRetriever(store), minirag.BM25.from_chunks(chunks))
    ranked, prompt, answer = minirag.rag_answer("What is the past participle of write?", hybrid,
                                                minirag.ExtractiveReader(), chunks, k=1)
    assert ranked[0][0] == chunks[0].id
    assert "[#1]" in prompt.text and prompt.citations == [chunks[0].id]
    assert "written" in answer.text and answer.citations == [chunks[0].id]


def test_names_load_on_first_use_and_unknown_names_fail():
    assert "rag_answer" in dir(minirag) and minirag.build_prompt("q", []).citations == []
    try:
        minirag.no_such_thing
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
