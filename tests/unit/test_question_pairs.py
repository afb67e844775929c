import json

from support.chunks import make_chunk

from minirag.answer.reading.retrieval_questions import add_hard_negatives, best_chunk, line_span, synthesize_questions
from minirag.artifacts.integrity import write_receipt
from minirag.artifacts.io import write_jsonl
from minirag.artifacts.layout import CorpusLayout
from minirag.domains.grammar.select.terms import GrammarTerms
from minirag.stages.synth_pairs import synth_pairs
from minirag.text.chunks import chunk_id

TABLE = ("## Pretérito indefinido\n\n| Verbo | yo | tú |\n|---|---|---|\n| venir | vine | viniste |\n"
         "| decir | dije | dijiste |\n| tener | tuve | tuviste |\n")
PROSE = ("## Ser and estar\n\nSer is the verb for identity, origin and the time of day in Spanish.\n"
         "Estar is the verb for location, feelings and states that change over time.\n")
DOCS = [{"doc_id": "es/preterito.md", "title": "Pretérito indefinido", "lang": "es", "text": TABLE},
        {"doc_id": "en/ser.md", "title": "Ser and estar", "lang": "en", "text": PROSE}]


def chunks():
    """Two chunks a document, cut in the middle, as records."""
    out = []
    for d in DOCS:
        half = len(d["text"]) // 2
        for lo, hi in ((0, half), (half, len(d["text"]))):
            out.append(make_chunk(d["text"][lo:hi], d["doc_id"], lo, d["title"]).to_record())
    return out


def test_a_question_is_paired_with_the_chunk_holding_its_answer_line():
    span = line_span(TABLE, "tuve", "tener")
    assert TABLE[span[0]:span[1]] == "| tener | tuve | tuviste |"
    assert best_chunk(chunks()[:2], *span) == chunk_id("es/preterito.md", len(TABLE) // 2)


def test_generic_questions_come_from_tables_headings_and_sentences_each_with_its_chunk():
    qs = synthesize_questions(DOCS, chunks(), ["generic"], 1000, 0, 0.2)
    families = {q["family"] for q in qs}
    assert {"generic:table", "generic:heading", "generic:cloze", "generic:what", "generic:phrase"} <= families
    by_id = {c["id"]: c for c in chunks()}
    for q in qs:
        c, g = by_id[q["chunk"]], q["gold"]
        assert c["doc_id"] == g["doc_id"] and c["offset"] < g["char_end"] and g["char_start"] < c["offset"] + len(c["text"])
    assert any(q["query"] == "what is Ser?" for q in qs)
    assert len({q["query"] for q in qs}) == len(qs)


def test_a_span_question_asks_for_a_span_by_its_kind_and_is_paired_with_the_chunk_that_holds_it():
    story = ("## History\n\nThe Normans were the people who in 911 gave their name to Normandy, a region in France.\n"
             "In 1066 William the Conqueror crossed the Channel with about 7,000 men and won at Hastings.\n")
    docs = [{"doc_id": "normans.md", "title": "History", "lang": "en", "text": story}]
    cut = story.index("In 1066")
    cs = [make_chunk(story[:cut], "normans.md", 0, "History").to_record(),
          make_chunk(story[cut:], "normans.md", cut, "History").to_record()]
    spans = ("generic:name", "generic:date", "generic:number", "generic:phrase")
    qs = [q for q in synthesize_questions(docs, cs, ["generic"], 1000, 0, 0.2) if q["family"] in spans]
    by_family = {q["family"]: q for q in qs}
    assert {"generic:name", "generic:date", "generic:number"} <= set(by_family)
    for q in qs:
        g = q["gold"]
        answer = story[g["char_start"]:g["char_end"]]
        assert answer and answer not in q["query"]  # the span is what is asked, not given
        holder = next(c for c in cs if c["id"] == q["chunk"])
        assert answer in holder["text"]
    assert by_family["generic:date"]["query"].startswith("When ")
    assert by_family["generic:number"]["query"].startswith("How many ")


def test_learner_questions_are_the_answer_selectors_with_their_chunk():
    qs = synthesize_questions(DOCS, chunks(), ["learner"], 60, 0, 0.2, GrammarTerms.load())
    assert qs and all(q["family"].startswith("learner:") for q in qs)
    by_id = {c["id"]: c for c in chunks()}
    rows = [q for q in qs if q["gold"]["doc_id"] == "es/preterito.md"]
    assert rows and all("|" in by_id[q["chunk"]]["text"] for q in rows)


def test_the_held_out_share_is_seeded_and_never_the_same_question_on_both_sides():
    a = synthesize_questions(DOCS, chunks(), ["generic"], 1000, 0, 0.3)
    assert a == synthesize_questions(DOCS, chunks(), ["generic"], 1000, 0, 0.3)
    held = [q for q in a if q["split"] == "heldout"]
    assert 0 < len(held) < len(a)
    b = synthesize_questions(DOCS, chunks(), ["generic"], 1000, 1, 0.3)
    assert [q["split"] for q in a] != [q["split"] for q in b]


def test_a_hard_negative_is_the_best_ranked_chunk_not_holding_the_answer():
    cs = chunks()
    qs = synthesize_questions(DOCS, cs, ["generic"], 1000, 0, 0.2)
    ranked = add_hard_negatives(qs, cs, lambda queries, k: [list(range(len(cs)))] * len(queries))
    for q in ranked:
        g = q["gold"]
        neg = next(c for c in cs if c["id"] == q["negative"])
        assert neg["id"] != q["chunk"]
        assert not (neg["doc_id"] == g["doc_id"] and neg["offset"] < g["char_end"]
                    and g["char_start"] < neg["offset"] + len(neg["text"]))


def test_the_stage_writes_the_same_bytes_twice(tmp_path):
    lay = CorpusLayout(tmp_path / "kb")
    docs, chunk_file = lay.docs, lay.chunks
    docs.parent.mkdir(parents=True)
    write_jsonl(docs, DOCS)
    write_jsonl(chunk_file, chunks())
    write_receipt(lay.receipt("curate", None), "curate", None, {}, [], [docs])
    write_receipt(lay.receipt("chunk", None), "chunk", None, {}, [docs], [chunk_file])
    settings = {"n": 200, "families": ["generic"], "heldout": 0.2, "hard_negatives": True, "seed": 0}
    first = synth_pairs(settings, docs, chunk_file, tmp_path / "a.jsonl")[0].read_bytes()
    assert first == synth_pairs(settings, docs, chunk_file, tmp_path / "b.jsonl")[0].read_bytes()
    records = [json.loads(line) for line in first.decode().splitlines()]
    assert records and {"qid", "query", "chunk", "family", "split", "gold", "negative"} <= set(records[0])
