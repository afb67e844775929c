"""How well a pretrained encoder's tokenizer represents a corpus, per language.

A WordPiece vocabulary learned on English text has few pieces for other scripts: Arabic words
fall apart into single letters or [UNK], and the model then sees letters, not words. Long
texts are cut at the model's max_seq_length. The embed stage measures both on the texts it
embeds and records them in the vectors' sidecar (`tokens`), as counts per document language
(counts, so that shards' figures add up; `shares` turns them into shares):

    {"ar": {"texts": 255, "tokens": 61512, "unknown": 43, "single_char": 58418, "truncated": 191}}

- `tokens`: word-piece tokens of the texts as the model reads them (after truncation);
- `unknown`: those that are the unknown token;
- `single_char`: those that are one letter (a "##" continuation counts by its letter), the mark
  of a word the vocabulary could only spell out;
- `truncated`: texts longer than max_seq_length tokens, whose end the model never sees.

Special tokens ([CLS], [SEP]) are not counted. The report warns from these figures
(report/pretrained.py), whatever the number of languages in the corpus.

What it leaves out: the query side (queries are short and rarely truncated) and any guess of a
text's language (the document's `lang` field says it).
"""

from __future__ import annotations

from typing import Sequence

BLOCK = 4096  # texts tokenized at once


COUNTS = ("texts", "tokens", "unknown", "single_char", "truncated")


def token_coverage(encoder, texts: Sequence[str], langs: Sequence[str]) -> dict[str, dict]:
    """Per language: texts, tokens, unknown tokens, single-letter tokens, truncated texts (counts)."""
    tok = encoder.tokenizer  # `tokenizers.Tokenizer`, truncating at max_seq_length
    unk = unknown_id(tok)
    counts: dict[str, list[int]] = {}
    for start in range(0, len(texts), BLOCK):
        block = list(texts[start:start + BLOCK])
        if encoder.lowercase:
            block = [t.lower() for t in block]
        for enc, lang in zip(tok.encode_batch(block), langs[start:start + BLOCK]):
            c = counts.setdefault(lang, [0, 0, 0, 0, 0])  # texts, tokens, unknown, single letter, truncated
            c[0] += 1
            c[4] += bool(enc.overflowing)
            for token, token_id, special in zip(enc.tokens, enc.ids, enc.special_tokens_mask):
                if special:
                    continue
                piece = token.removeprefix("##")
                c[1] += 1
                c[2] += token_id == unk
                c[3] += token_id != unk and len(piece) == 1 and piece.isalpha()
    return {lang: dict(zip(COUNTS, c)) for lang, c in sorted(counts.items())}


def added(parts: Sequence[dict[str, dict]]) -> dict[str, dict]:
    """Several shards' counts as one corpus's."""
    out: dict[str, dict] = {}
    for part in parts:
        for lang, c in part.items():
            total = out.setdefault(lang, dict.fromkeys(COUNTS, 0))
            for k in COUNTS:
                total[k] += c[k]
    return dict(sorted(out.items()))


def shares(c: dict) -> dict[str, float]:
    """A language's counts as shares: unknown and single-letter of its tokens, truncated of its texts."""
    t, n = max(c["tokens"], 1), max(c["texts"], 1)
    return {"unknown": c["unknown"] / t, "single_char": c["single_char"] / t, "truncated": c["truncated"] / n}


def unknown_id(tok) -> int | None:
    """The id of the tokenizer's unknown token ([UNK] for WordPiece), None if it has none."""
    model = tok.model
    name = getattr(model, "unk_token", None) or "[UNK]"
    return tok.token_to_id(name)
