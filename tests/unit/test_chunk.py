"""Chunking: exact slices that cover the document, token limits, boundary preference."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirag.text.bpe import BPETokenizer
from minirag.text.chunker import chunk_document
from minirag.text.chunks import Chunk, chunk_id
from minirag.text.structure import DocumentStructure

REPO = Path(__file__).resolve().parents[2]

TRAIN = """# Guide

Alpha beta gamma delta. Epsilon zeta eta theta!
Iota kappa lambda mu nu xi omicron pi rho sigma tau.

## Install

Run the installer, then check the version: 3.14 or later?
El niño comió. 日本語の文。

### Notes
- one item
- another item
"""

ASCII_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
               "kappa", "x", "a1", "3.14", "e.g."]
WORDS = ASCII_WORDS + ["niño", "日本語", "😀", "Ωmega", "caf\u0301e"]


@pytest.fixture(scope="module")
def tok() -> BPETokenizer:
    return BPETokenizer.train([TRAIN] * 4, vocab_size=400)


@st.composite
def markdown(draw, words=WORDS) -> str:
    """Markdown-like text: headings, paragraphs of sentences, odd whitespace between blocks."""
    word = st.sampled_from(words)
    sentence = st.builds(lambda ws, end: " ".join(ws) + end,
                         st.lists(word, min_size=1, max_size=12), st.sampled_from([".", "!", "?", "", ","]))
    paragraph = st.builds(lambda ss, sep: sep.join(ss), st.lists(sentence, min_size=1, max_size=6),
                          st.sampled_from([" ", "\n", "  "]))
    heading = st.builds(lambda level, ws: "#" * level + " " + " ".join(ws),
                        st.integers(1, 6), st.lists(word, min_size=1, max_size=5))
    blocks = draw(st.lists(st.one_of(paragraph, heading), max_size=12))
    seps = draw(st.lists(st.sampled_from(["\n", "\n\n", "\n\n\n", " \n\n", "\n  \n", "\r\n\r\n"]),
                         min_size=len(blocks), max_size=len(blocks)))
    lead = draw(st.sampled_from(["", "\n", "  "]))
    return lead + "".join(b + s for b, s in zip(blocks, seps))


def doc_of(text: str, doc_id: str = "docs/a.md") -> dict:
    return {"doc_id": doc_id, "title": "A title", "lang": "en", "text": text, "sha256": ""}


def check_exact_cover(doc: dict, chunks: list[Chunk]) -> None:
    """Exact slices with stable ids; dropping each chunk's overlap with the previous one
    and joining gives the document back."""
    text = doc["text"]
    sections = DocumentStructure(text)
    rebuilt, prev_end = "", 0
    for c in chunks:
        start, end = c.metadata["char_start"], c.metadata["char_end"]
        assert c.text == text[start:end] and c.offset == start
        assert c.id == chunk_id(doc["doc_id"], start) and len(c.id) == 12
        assert start <= prev_end < end, "a gap, or a chunk that does not move forward"
        assert c.metadata["title"] == "A title"
        first = start + len(c.text) - len(c.text.lstrip())
        assert c.metadata["section"] == sections.section_at(first)
        rebuilt += c.text[prev_end - start:]
        prev_end = end
    assert rebuilt == text
    assert len({c.id for c in chunks}) == len(chunks)


STRATEGIES = {
    "tokens": st.fixed_dictionaries({"target_tokens": st.integers(1, 40)}).flatmap(
        lambda p: st.fixed_dictionaries({"target_tokens": st.just(p["target_tokens"]),
                                         "overlap": st.integers(0, p["target_tokens"] - 1)})),
    "sections": st.fixed_dictionaries({"max_tokens": st.integers(1, 60)}),
    "chars": st.integers(2, 200).flatmap(
        lambda size: st.fixed_dictionaries({"size": st.just(size), "overlap": st.integers(1, size - 1)})),
    "none": st.just({}),
}


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_chunks_are_exact_slices_that_reassemble_the_document(tok, strategy):
    @settings(max_examples=150, deadline=None)
    @given(markdown(), STRATEGIES[strategy])
    def prop(text, params):
        doc = doc_of(text)
        chunks = chunk_document(doc, strategy=strategy, tokenizer=tok, **params)
        assert (chunks == []) == (text == "")
        check_exact_cover(doc, chunks)

    prop()


def token_starts(tok: BPETokenizer, text: str) -> list[int]:
    return [s for s, _ in tok.token_spans(text)]


def last_line(text: str, start: int, end: int) -> str:
    """The whole line holding the last non-blank character of text[start:end]."""
    stop = start + len(text[start:end].rstrip())
    return text[text.rfind("\n", 0, stop) + 1:stop]


@settings(max_examples=200, deadline=None)
@given(markdown(ASCII_WORDS), st.integers(3, 40), st.data())
def test_token_chunks_respect_target_overlap_and_headings(tok, text, target, data):
    overlap = data.draw(st.integers(0, target - 1))
    chunks = chunk_document(doc_of(text), "tokens", tok, target_tokens=target, overlap=overlap)
    starts = token_starts(tok, text)  # ASCII: no token has an empty span
    for c in chunks:
        s, e = c.metadata["char_start"], c.metadata["char_end"]
        assert c.metadata["n_tokens"] == sum(s <= p < e for p in starts)
        assert c.metadata["n_tokens"] <= target + target // 10
    for prev, nxt in zip(chunks, chunks[1:]):
        shared = sum(nxt.offset <= p < prev.metadata["char_end"] for p in starts)
        if prev.metadata["n_tokens"] <= overlap or overlap == 0:
            assert shared == 0
        else:
            # the overlap moves to a line or sentence start within `overlap` more tokens back,
            # or forward; it is exactly `overlap` tokens only when neither is there
            at_boundary = "\n" in text[nxt.offset - 1:nxt.offset + 1] or text[:nxt.offset].rstrip()[-1:] in ".!?"
            assert 1 <= shared <= 2 * overlap and (at_boundary or shared == overlap)
    # A chunk ends on a heading only when all it adds to the chunk before is headings.
    is_heading = re.compile(r"#{1,6}[ \t]+\S").match
    for before, c in zip([None] + chunks, chunks[:-1]):
        if is_heading(last_line(text, c.offset, c.metadata["char_end"])):
            new_from = before.metadata["char_end"] if before else 0
            added = text[text.rfind("\n", 0, new_from) + 1:c.metadata["char_end"]]
            assert all(not line.strip() or is_heading(line) for line in added.splitlines())


@settings(max_examples=150, deadline=None)
@given(markdown(ASCII_WORDS), st.integers(3, 60))
def test_section_chunks_stay_in_their_section_under_the_budget(tok, text, max_tokens):
    chunks = chunk_document(doc_of(text), "sections", tok, max_tokens=max_tokens)
    heading_starts = DocumentStructure(text).starts
    for c in chunks:
        assert c.metadata["n_tokens"] <= max_tokens
        assert not any(c.offset < h < c.metadata["char_end"] for h in heading_starts)


def sentences_until(tok: BPETokenizer, n_tokens: int) -> str:
    """Sentences of the training vocabulary, stopping once they make `n_tokens` tokens."""
    words = "alpha beta gamma delta epsilon zeta eta theta".split()
    text, i = "", 0
    while len(tok.encode(text)) < n_tokens:
        text += f"{words[i % 8].capitalize()} {words[(i + 3) % 8]} {words[(i + 5) % 8]}. "
        i += 1
    return text


def test_cut_lands_on_the_paragraph_break_inside_the_window(tok):
    target = 60  # window 54..66 tokens
    para = sentences_until(tok, 55).rstrip() + "\n\n"
    assert 54 <= len(tok.encode(para)) <= 66 and len(tok.encode(para)) != target
    text = para + sentences_until(tok, 200)
    chunks = chunk_document(doc_of(text), "tokens", tok, target_tokens=target, overlap=5)
    assert chunks[0].text == para


def test_sentence_end_beats_line_end(tok):
    line = "alpha beta gamma delta epsilon\n"
    body = line * 20
    starts = token_starts(tok, body)
    # A sentence end after about 61 tokens, in the middle of a line.
    cut = starts[61]
    text = body[:cut] + "Stop. " + body[cut:]
    chunks = chunk_document(doc_of(text), "tokens", tok, target_tokens=60, overlap=0)
    assert chunks[0].text.endswith("Stop.")


def test_fixed_window_when_no_boundary_is_near(tok):
    word = "alphabetagammadelta" * 40  # one long word: nowhere to cut but inside it
    chunks = chunk_document(doc_of(word), "tokens", tok, target_tokens=20, overlap=4)
    assert len(chunks) > 2
    assert all(c.metadata["n_tokens"] == 20 for c in chunks[:-1])
    check_exact_cover(doc_of(word), chunks)


def test_a_cut_inside_a_long_heading_moves_before_it(tok):
    intro = "alpha beta gamma delta " * 5
    heading = "## " + "zeta eta theta iota " * 20
    text = intro + "\n" + heading + "\n\n" + "alpha beta. " * 30
    chunks = chunk_document(doc_of(text), "tokens", tok, target_tokens=40, overlap=0)
    assert chunks[0].text == intro + "\n"
    assert chunks[1].text.startswith("## ") and chunks[1].metadata["section"] == heading[3:].strip()


def test_blank_line_after_a_heading_is_not_a_cut(tok):
    para = sentences_until(tok, 40).rstrip()
    heading = "## Results"
    text = para + "\n" + heading + "\n\n" + "alpha beta gamma delta epsilon " * 30
    n_before = len(tok.encode(para + "\n" + heading + "\n\n"))
    chunks = chunk_document(doc_of(text), "tokens", tok, target_tokens=n_before, overlap=0)
    assert heading not in chunks[0].text
    assert chunks[1].text.startswith(heading)


def test_long_section_splits_at_its_last_paragraph_break_within_budget(tok):
    p1, p2, p3 = sentences_until(tok, 12), sentences_until(tok, 15), sentences_until(tok, 20)
    text = "# Head\n\n" + p1 + "\n\n" + p2 + "\n\n" + p3 + "\n\n## Next\n\nalpha.\n"
    budget = len(tok.encode("# Head\n\n" + p1 + "\n\n" + p2 + "\n\n")) + 2
    chunks = chunk_document(doc_of(text), "sections", tok, max_tokens=budget)
    assert [c.text for c in chunks] == ["# Head\n\n" + p1 + "\n\n" + p2 + "\n\n", p3 + "\n\n",
                                        "## Next\n\nalpha.\n"]
    assert [c.section for c in chunks] == ["Head", "Head", "Next"]


@pytest.mark.parametrize("strategy,params", [
    ("tokens", {"target_tokens": 8, "overlap": 2}), ("sections", {"max_tokens": 8}),
    ("chars", {"size": 20, "overlap": 5}), ("none", {})])
@pytest.mark.parametrize("text", [
    "",  # empty: no chunk
    "Short.",  # shorter than the target: one chunk
    "Pneumonoultramicroscopicsilicovolcanoconiosis" * 3,  # one word longer than the target
    "# A\n## B\n### C\n" * 6,  # nothing but headings
    "   \n\n  ",  # nothing but whitespace
])
def test_edge_cases_give_sensible_chunks(tok, strategy, params, text):
    doc = doc_of(text)
    chunks = chunk_document(doc, strategy=strategy, tokenizer=tok, **params)
    check_exact_cover(doc, chunks)
    if text == "":
        assert chunks == []
    if text == "Short.":
        assert [c.text for c in chunks] == ["Short."]


def test_chunk_ids_are_stable_across_processes(tok, tmp_path):
    text = "# T\n\n" + sentences_until(tok, 120)
    tok.save(tmp_path / "tok.json")
    here = [c.id for c in chunk_document(doc_of(text), "tokens", tok, target_tokens=30, overlap=5)]
    code = ("import json, sys\n"
            "from minirag.text.bpe import BPETokenizer\n"
            "from minirag.text.chunker import chunk_document\n"
            "tok = BPETokenizer.load(sys.argv[1])\n"
            "doc = {'doc_id': 'docs/a.md', 'title': 'A title', 'text': sys.stdin.read()}\n"
            "chunks = chunk_document(doc, 'tokens', tok, target_tokens=30, overlap=5)\n"
            "print(json.dumps([c.id for c in chunks]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "tok.json")], input=text,
                         capture_output=True, text=True, check=True, cwd=REPO,
                         env={"PYTHONHASHSEED": "123", "PYTHONPATH": str(REPO)})
    assert json.loads(out.stdout) == here and len(here) > 3


def test_records_round_trip(tok):
    chunks = chunk_document(doc_of("# T\n\n" + sentences_until(tok, 50)), "tokens", tok,
                            target_tokens=20, overlap=3)
    assert [Chunk.from_record(json.loads(json.dumps(c.to_record()))) for c in chunks] == chunks


def test_strategy_errors_are_explicit(tok):
    with pytest.raises(ValueError, match="needs the trained tokenizer"):
        chunk_document(doc_of("text"))  # `tokens` is the default strategy
    with pytest.raises(ValueError, match="chunk.strategy: 'paragraphs' is not one of tokens, sections, chars, none"):
        chunk_document(doc_of("text"), "paragraphs", tok)
    with pytest.raises(ValueError, match=r"chunk.overlap: 10 must be less than target_tokens \(10\)"):
        chunk_document(doc_of("text"), "tokens", tok, target_tokens=10, overlap=10)
    with pytest.raises(ValueError, match=r"chunk.overlap: 300 must be less than size \(300\)"):
        chunk_document(doc_of("text"), "chars", size=300, overlap=300)


def test_a_character_window_may_have_no_overlap():
    text = "abcdefghij" * 5
    chunks = chunk_document(doc_of(text), "chars", size=20, overlap=0)
    assert "".join(c.text for c in chunks) == text and [c.offset for c in chunks] == [0, 20, 40]


def test_a_table_cut_in_two_starts_the_next_chunk_on_a_row_with_the_header_in_its_context(tok):
    rows = "".join(f"| verb{i} | p{i} | pp{i} |\n" for i in range(60))  # rows shorter than the cut's tolerance
    text = "# Verbs\n\n## Table\n\n| Base form | Past simple | Past participle |\n|---|---|---|\n" + rows
    doc = {**doc_of(text), "title": "Irregular verbs"}
    chunks = chunk_document(doc, "tokens", tok, target_tokens=200, overlap=10)
    assert len(chunks) > 2
    for c in chunks[1:]:
        assert c.text.lstrip("\n").startswith("| verb"), c.text[:30]  # never inside a row
        assert c.metadata["context"] == "Irregular verbs › Verbs › Table\n| Base form | Past simple | Past participle |"
    assert chunks[0].metadata["context"] == "Irregular verbs › Verbs"  # its rows come with their header
