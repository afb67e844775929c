"""A byte-level BPE tokenizer trained on the project's own documents (GPT-2 / minbpe style).

text -> pre-tokens (a regex) -> UTF-8 bytes of each pre-token -> the learned merges,
applied in training order -> ids. Ids 0..255 are the raw bytes, so any string encodes
(byte fallback); id 256 + i is the token made by the i-th merge. Merges never cross a
pre-token, so a line start, a word start or a punctuation mark is always a token edge.

Policies:

- Pre-tokenizer (`PATTERN`): English contractions; words, with one leading space or
  punctuation mark; numbers in groups of up to three digits; punctuation runs, with the
  line breaks that follow them; whitespace ending in a line break; other whitespace runs,
  leaving the last space to the next word (as GPT-4's pattern does). Python's `re` has
  no \\p{L}, so a letter is `[^\\W\\d_]` (a word character that is not a decimal digit
  or `_`; this also admits numeric symbols like ² and Ⅻ), and punctuation is anything
  that is neither a word character nor whitespace, plus `_`. Combining marks (U+0301...)
  are not word characters, so decomposed accents split from their letter; NFC text is
  unaffected. Every character matches some alternative, so the pre-tokens concatenate
  back to the text. Runs are capped at 64 characters so that encoding cost stays
  linear on pathological input (a megabyte of text without a space or punctuation).
- Strings are encoded with UTF-8 'surrogatepass': a lone surrogate such as U+D800
  becomes the three bytes ED A0 80, and decoding maps them back, so decode(encode(s))
  == s for every Python str. `decode` of an arbitrary id sequence that is not valid
  UTF-8 (e.g. cut in the middle of a character) gives U+FFFD for each bad byte run
  instead of raising.
- Training counts pairs over unique pre-tokens weighted by their frequency, and after
  each merge updates the counts of only the pre-tokens that contain the merged pair.
  The most frequent pair wins; among pairs of equal count the lowest (left id, right
  id) wins, so the merges do not depend on the order of the texts. Overlapping pairs
  count as in minbpe ("aaa" counts (a, a) twice). Training stops early if no pair is
  left; `vocab_size` reports the size actually reached.
- `token_spans`: a character whose bytes are split between two tokens belongs to the
  token holding its last byte; a token that holds only part of a character gets an
  empty span (s, s). Spans are contiguous and cover the text, so every token edge is
  a character position.

Left out: special tokens, normalization (NFC, case), BPE dropout, multiprocessing, and
the GPT-2 byte-to-unicode table (the vocab view in the saved file uses backslash escapes).
"""

from __future__ import annotations

import bisect
import codecs
import json
import re
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Callable, Iterable, Sequence

from ..artifacts.integrity import verified
from ..artifacts.io import atomic_write_text, read_json
from ..settings import setting
from .bpe_merges import _merge, _render, learn_merges, to_bytes


@dataclass(frozen=True)
class TokenizerSettings:
    """The byte-level BPE tokenizer's vocabulary size."""
    vocab_size: int = setting(2000, minimum=257, maximum=65536)  # 256 byte tokens + learned merges


FORMAT = "minirag-bpe/1"
CACHE_LIMIT = 1 << 20  # pre-tokens kept in the encode cache before it is cleared

_LETTER = r"[^\W\d_]"
_PUNCT = r"(?:[^\w\s]|_)"
PATTERN = "|".join([
    r"'(?i:[sdmt]|ll|ve|re)",  # contractions: 's 't 'll ...
    rf"[^\r\n\w]?{_LETTER}{{1,64}}",  # a word, with one leading space or punctuation mark
    r"\d{1,3}",  # numbers, three digits at a time
    rf" ?{_PUNCT}{{1,64}}[\r\n]{{0,64}}",  # punctuation, with the line breaks after it
    r"\s{0,64}[\r\n]",  # whitespace up to a line break: line ends, blank lines
    r"\s{1,64}(?!\S)",  # whitespace before more whitespace or the end of the text
    r"\s{1,64}",  # whitespace before a word: its last space goes to the word
])


def _decode_errors(exc: UnicodeDecodeError) -> tuple[str, int]:
    """'surrogatepass' where the bytes are an encoded surrogate, U+FFFD elsewhere."""
    try:
        return _SURROGATEPASS(exc)
    except UnicodeDecodeError:
        return "\ufffd", exc.end


_SURROGATEPASS = codecs.lookup_error("surrogatepass")
codecs.register_error("minirag-bpe", _decode_errors)


def _utf8_len(ch: str) -> int:
    o = ord(ch)
    return 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4


class BPETokenizer:
    def __init__(self, merges: Sequence[tuple[int, int]] = (), pattern: str = PATTERN):
        self.pattern = pattern
        self.merges = [tuple(m) for m in merges]
        self._regex = re.compile(pattern)
        self._vocab = [bytes([i]) for i in range(256)]  # id -> bytes
        self._merge_ids: dict[tuple[int, int], int] = {}  # (a, b) -> id of the merged token
        for a, b in self.merges:
            new_id = len(self._vocab)
            if not (0 <= a < new_id and 0 <= b < new_id):
                raise ValueError(f"merge {new_id - 256} ({a}, {b}) uses an id not yet defined")
            self._merge_ids[(a, b)] = new_id
            self._vocab.append(self._vocab[a] + self._vocab[b])
        self._cache: dict[str, tuple[int, ...]] = {}

    @property
    def vocab_size(self) -> int:
        return len(self._vocab)

    def pretokenize(self, text: str) -> list[str]:
        return self._regex.findall(text)

    # -- training ------------------------------------------------------------------

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int,
              progress: Callable[[str], None] | None = None) -> "BPETokenizer":
        """Learn `vocab_size - 256` merges from `texts`."""
        assert vocab_size >= 256, f"vocab_size must be at least 256, got {vocab_size}"
        regex = re.compile(PATTERN)
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(regex.findall(text))
        return cls(learn_merges(counts, vocab_size - 256, progress))

    # -- encoding ------------------------------------------------------------------

    def _encode_pretoken(self, piece: str) -> tuple[int, ...]:
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        ids = list(to_bytes(piece))
        merge_ids = self._merge_ids
        while len(ids) > 1:
            # The lowest-ranked merge present is the next one training applied here.
            pair = min(zip(ids, ids[1:]), key=lambda p: merge_ids.get(p, 1 << 62))
            new_id = merge_ids.get(pair)
            if new_id is None:
                break
            ids = _merge(ids, pair, new_id)
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        out = self._cache[piece] = tuple(ids)
        return out

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for piece in self._regex.findall(text):
            ids.extend(self._encode_pretoken(piece))
        return ids

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [self.encode(t) for t in texts]

    def decode(self, ids: Sequence[int]) -> str:
        try:
            data = b"".join([self._vocab[i] for i in ids])
        except (IndexError, TypeError):
            data = None
        if data is None or any(i < 0 for i in ids):
            raise ValueError(f"token ids must be integers in [0, {len(self._vocab)}), "
                             f"got {list(ids)[:20]}...")
        return data.decode("utf-8", "minirag-bpe")

    def token_bytes(self, token_id: int) -> bytes:
        return self._vocab[token_id]

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """(char_start, char_end) in `text` of each token of `encode(text)`; see the module docstring."""
        spans: list[tuple[int, int]] = []
        pos = 0
        for piece in self._regex.findall(text):
            ids = self._encode_pretoken(piece)
            if piece.isascii():  # one byte per character
                for t in ids:
                    end = pos + len(self._vocab[t])
                    spans.append((pos, end))
                    pos = end
                continue
            char_ends = list(accumulate(_utf8_len(ch) for ch in piece))  # byte offset where each char ends
            nbytes, start = 0, pos
            for t in ids:
                nbytes += len(self._vocab[t])
                end = pos + bisect.bisect_right(char_ends, nbytes)
                spans.append((start, end))
                start = end
            pos += len(piece)
        return spans

    # -- files ---------------------------------------------------------------------

    def save(self, path) -> None:
        """Readable JSON: the merges in order, one per line, and an id -> token text view."""
        lines = ["{",
                 f'  "format": {json.dumps(FORMAT)},',
                 f'  "pattern": {json.dumps(self.pattern)},',
                 f'  "vocab_size": {self.vocab_size},',
                 '  "merges": [']
        lines.append(",\n".join(f"    [{a}, {b}]" for a, b in self.merges))
        lines.append("  ],")
        lines.append('  "vocab": {')  # derived from the merges; load ignores it
        lines.append(",\n".join(f'    "{i}": {json.dumps(_render(tok), ensure_ascii=False)}'
                                for i, tok in enumerate(self._vocab)))
        lines.append("  }")
        lines.append("}")
        atomic_write_text(path, "\n".join(line for line in lines if line) + "\n")

    @classmethod
    def load(cls, path) -> "BPETokenizer":
        data = read_json(path)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{path}: not a {FORMAT} tokenizer file")
        return cls([tuple(m) for m in data["merges"]], pattern=data["pattern"])


def load_tokenizer(path) -> BPETokenizer:
    """A train_tokenizer job's tokenizer, checked against the job's receipt."""
    return BPETokenizer.load(verified(path, "tokenizer"))
