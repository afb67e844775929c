"""The byte-level BPE tokenizer: lossless round trip, deterministic training, readable file."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirag.text.bpe import BPETokenizer, to_bytes
from minirag.text.bpe_merges import PROGRESS_EVERY

SAMPLE = """# Métodos

We measured the apparent diffusion coefficient in 17 newborns. It's the first
study of its kind; the results weren't expected!

El niño comió paella en la playa: ¿qué más? Ñandú, acción, corazón.
日本語のテキストも少し。中文文本也有一点。 Emoji: 😀🎉 and tabs\tand  spaces.

## Results

The coefficient decreased (p < 0.001) with age, as reported in 2023.
"""


@pytest.fixture(scope="module")
def tok() -> BPETokenizer:
    return BPETokenizer.train([SAMPLE] * 3 + [SAMPLE.upper()], vocab_size=400)


# Any Python str, lone surrogates included (hypothesis leaves them out by default).
any_text = st.text(st.characters(exclude_categories=()), max_size=200)
MIXED = list("aáeéñ ¿?.,\n\t日本語😀🎉\x00\x1b\u0301") + ["\ud800", "\udfff"]
mixed_text = st.text(st.sampled_from(MIXED), max_size=120)


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_text, mixed_text))
def test_decode_inverts_encode_for_every_string(tok, s):
    assert tok.decode(tok.encode(s)) == s


@settings(max_examples=200, deadline=None)
@given(st.one_of(any_text, mixed_text))
def test_pretokens_concatenate_to_the_text(tok, s):
    assert "".join(tok.pretokenize(s)) == s


@pytest.mark.parametrize("s", [
    "El niño comió paella: ¿qué más?",
    "日本語のテキスト。",
    "😀🎉👩‍👩‍👧",
    "bell\x07 nul\x00 esc\x1b del\x7f",
    "lone \ud800 and \udfff surrogates",
    "\ud83d\ude00",  # a surrogate pair kept as two code points stays two code points
    "",
])
def test_round_trip_named_cases(tok, s):
    assert tok.decode(tok.encode(s)) == s


def test_pretokenizer_splits_words_numbers_punctuation_and_whitespace(tok):
    assert tok.pretokenize("It's 2023, ok?\n\n## Head\nx") == [
        "It", "'s", " ", "202", "3", ",", " ok", "?\n\n", "##", " Head", "\n", "x"]
    assert tok.pretokenize("a  b\n  c") == ["a", " ", " b", "\n", " ", " c"]
    assert tok.pretokenize("¿Qué tal?") == ["¿Qué", " tal", "?"]


def test_training_compresses_its_own_text(tok):
    assert tok.vocab_size == 400
    assert len(tok.encode(SAMPLE)) < 0.5 * len(to_bytes(SAMPLE))


def test_encode_batch_matches_encode(tok):
    texts = [SAMPLE, "", "otra cosa"]
    assert tok.encode_batch(texts) == [tok.encode(t) for t in texts]


def test_decode_of_a_cut_character_gives_replacement_not_error():
    bare = BPETokenizer()  # bytes only: "é" is two tokens
    ids = bare.encode("é")
    assert ids == [0xC3, 0xA9]
    assert bare.decode(ids[:1]) == "\ufffd"
    for bad in ([256], [-1]):
        with pytest.raises(ValueError, match="token ids must be"):
            bare.decode(bad)


def test_ties_go_to_the_lowest_pair_of_ids():
    # (a, b) and (c, d) both occur twice; (a, b) has the lower ids, whatever the order.
    for texts in (["ab", "cd"] * 2, ["cd", "ab"] * 2):
        tok = BPETokenizer.train(texts, vocab_size=257)
        assert tok.merges == [(ord("a"), ord("b"))]


def test_training_is_independent_of_text_order_and_byte_identical(tmp_path):
    texts = SAMPLE.split("\n")
    shuffled = texts[:]
    random.Random(0).shuffle(shuffled)
    BPETokenizer.train(texts, 380).save(tmp_path / "a.json")
    BPETokenizer.train(shuffled, 380).save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_training_stops_when_no_pair_is_left():
    tok = BPETokenizer.train(["abc"], vocab_size=1000)
    assert tok.merges == [(ord("a"), ord("b")), (256, ord("c"))]
    assert tok.vocab_size == 258


def naive_merges(texts: list[str], vocab_size: int) -> list[tuple[int, int]]:
    """minbpe's loop over unique pre-tokens: recount every pair after every merge."""
    tok = BPETokenizer()
    words = Counter(p for t in texts for p in tok.pretokenize(t))
    seqs = {w: list(to_bytes(w)) for w in words}
    merges = []
    while 256 + len(merges) < vocab_size:
        counts = Counter()
        for w, ids in seqs.items():
            for pair in zip(ids, ids[1:]):
                counts[pair] += words[w]
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        new_id = 256 + len(merges)
        merges.append(best)
        for w, ids in seqs.items():
            out, i = [], 0
            while i < len(ids):
                if ids[i:i + 2] == list(best):
                    out.append(new_id)
                    i += 2
                else:
                    out.append(ids[i])
                    i += 1
            seqs[w] = out
    return merges


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(st.sampled_from(list("aab bc\nñ.")), max_size=40), max_size=6),
       st.integers(256, 300))
def test_incremental_training_matches_full_recount(texts, vocab_size):
    assert BPETokenizer.train(texts, vocab_size).merges == naive_merges(texts, vocab_size)


def test_progress_is_reported_every_few_hundred_merges():
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghij") for _ in range(12)) for _ in range(400)]
    lines: list[str] = []
    tok = BPETokenizer.train([" ".join(words)], vocab_size=256 + 2 * PROGRESS_EVERY + 10,
                             progress=lines.append)
    assert tok.vocab_size == 256 + 2 * PROGRESS_EVERY + 10
    assert len(lines) == 2 and lines[0].startswith(f"bpe: merge {PROGRESS_EVERY}/")


def test_save_is_readable_json_and_load_restores_the_tokenizer(tok, tmp_path):
    path = tmp_path / "tok.json"
    tok.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["vocab_size"] == 400
    assert [tuple(m) for m in data["merges"]] == tok.merges
    first = data["merges"][0]
    assert data["vocab"]["256"] == data["vocab"][str(first[0])] + data["vocab"][str(first[1])]
    loaded = BPETokenizer.load(path)
    assert loaded.encode(SAMPLE) == tok.encode(SAMPLE)
    loaded.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_load_rejects_other_json(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"merges": []}')
    with pytest.raises(ValueError, match="tokenizer file"):
        BPETokenizer.load(path)


def test_merges_must_refer_to_known_ids():
    with pytest.raises(ValueError, match="not yet defined"):
        BPETokenizer([(256, 97)])


@settings(max_examples=200, deadline=None)
@given(st.one_of(any_text, mixed_text))
def test_token_spans_are_contiguous_and_follow_the_bytes(tok, s):
    ids = tok.encode(s)
    spans = tok.token_spans(s)
    assert len(spans) == len(ids)
    edges = [0] + [end for _, end in spans]
    assert [start for start, _ in spans] == edges[:-1]
    assert edges[-1] == len(s) and edges == sorted(edges)
    # Each span ends at the last character whose bytes all lie in the tokens so far.
    nbytes = 0
    for t, (_, end) in zip(ids, spans):
        nbytes += len(tok.token_bytes(t))
        assert len(to_bytes(s[:end])) <= nbytes
        assert end == len(s) or len(to_bytes(s[:end + 1])) > nbytes
