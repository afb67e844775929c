"""Candidates that are no answer whatever their features: what the question already says, and, when it asks
for the counterpart of a term in the other language, the term's own side.

    ruled_out_of(analyze("¿Cómo se dice 'broken' en español?", vocab), blocks)
    -> True for "broken" (it is quoted), "broke" and "break" (its own row), "gone" (no Spanish page writes it)

- **What it quotes** is never its answer, whatever the scorer learnt of cells that sit in the row and the
  column the quote names: "broken" is not how to say 'broken' in Spanish, "gave" not how to say 'I gave'.
  Two exceptions: an option the question offers ('sank' or 'sunk'? — the answer is one of them), and a
  candidate that writes an accent the question does not («te» lleva acento? -> té: what the learner did
  not write is new to them). The comparison folds case and punctuation (answer_key).
- **A term to say in the other language** (analysis.py: `source_lang`, "how do you say X in Spanish?" or a
  quoted term in the language the question does not ask for): a form of the term's own lemmas ("broke",
  "hablé"), those lemmas, or the key of their row ("comer (to eat)") — a row named in both languages
  ("ir (to go)") keeps the counterpart's forms ("ve"); and a candidate most of whose words no page in the
  language asked for uses: no Spanish page writes "gone" (English pages about Spanish quote Spanish words,
  so the test says less the other way, and the scorer's language features are left to it).

Unquoted words of the question stay candidates: "If I bought something last week, what form of buy do I
use?" is answered "bought", and the past of cost is cost.

What it leaves out: scoring (features.py, scorer.py); the selector drops these rows before the scorer sees
them, in training as in answering (selector.py).
"""

from __future__ import annotations

import numpy as np

from minirag.text.words import TERM_RE

from .analysis import QuestionAnalysis
from .features import ChunkBlock, QuestionView, index_of, mask_of
from .vocabulary import Vocabulary


def ruled_out(q: QuestionView, b: ChunkBlock, vocab: Vocabulary) -> np.ndarray:
    """(n,) the candidates of one chunk that cannot answer the question (module docstring)."""
    n = b.n
    out = np.zeros(n, dtype=bool)
    if q.a.quoted:
        own = mask_of(b.text_idx, (t for t in b.text_idx if t in q.quoted_grams), n)
        if q.options:
            own &= ~mask_of(b.text_idx, (t for t in b.text_idx if any(t in g for g in q.option_grams)), n)
        for i in np.flatnonzero(own):  # "té" answers «te»: an accent the question did not write is new
            written = " ".join(TERM_RE.findall(b.candidates[i].text.casefold()))
            own[i] = written == b.texts[i] or written in q.written
        out |= own
    if q.a.source_lang:  # the term's own forms, lemmas and row keys; words no page of the target language uses
        form_idx, key_cell, used_in = sides(b, vocab)
        key_cell = key_cell & (mask_of(b.key_idx, q.a.own, n) | mask_of(b.column_idx, q.a.own, n))
        out |= mask_of(form_idx, q.a.own, n) | mask_of(b.text_idx, q.a.own, n) | key_cell
        out |= np.array([bool(u) and u.get(q.a.target_lang, 0.0) < 0.5 for u in used_in], dtype=bool).reshape(n)
    return out


def sides(b: ChunkBlock, vocab: Vocabulary) -> tuple[dict[str, np.ndarray], np.ndarray, list[dict[str, float]]]:
    """(lemma -> the candidates that are its forms, which candidates are their row's key, per candidate the
    share of its words each language's pages use), read once per chunk (the selector keeps its blocks)."""
    if getattr(b, "sides", None) is None:
        b.sides = (index_of((lemma, i) for i, t in enumerate(b.texts) for lemma in vocab.forms.get(t, ())),
                   np.array([c.kind == "cell" and c.text == c.key for c in b.candidates], dtype=bool),
                   [vocab.used_in(c.text) for c in b.candidates])
    return b.sides



def ruled_out_of(a: QuestionAnalysis, blocks: list[tuple[ChunkBlock, int]], vocab: Vocabulary) -> np.ndarray:
    """(m,) which candidates of the blocks cannot answer the question, in block order."""
    q = QuestionView(a)
    parts = [ruled_out(q, b, vocab) for b, _ in blocks if b.n]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)
