"""Training pairs made of questions: (a question synthesised from the corpus, the chunk it was made from).

The GenQ recipe of the BEIR paper (Thakur et al. 2021: synthetic queries train a dense retriever
for the target corpus), with the corpus's own templates instead of a T5:

- `learner`, the grammar domain's: the questions its answer selector trains on (domains/grammar/questions/):
  plain, paraphrased, fill-in-the-blank, alternatives, confirmations, cross-language, misspelt
  questions about table cells, arrows, glosses and rules (and English phrases to say in Spanish,
  given the lexicon). Each names its answer and its document; the question's gold is the line of
  that document that holds the answer (and, for a table cell, the row's key).
- `generic`: any markdown corpus: table cells asked by their column header and row key, headings
  ("what is <heading>?") (rank/synth.py); for every prose sentence a cloze (its rarest word
  blanked) and, for "X is Y" sentences, "what is X?"; and for every span of a sentence (a name,
  date, number or noun phrase) the answer selector's wh-question of it (cloze.py: who / when /
  how many / what, some words dropped), whose gold is where the span stands in its document.

Every question carries its gold span and the chunk that overlaps it most (the pair's passage).
A seeded share of the questions (by a hash of the question) is `heldout`: never trained on, it
picks the questions' share against the mined sources and, for a corpus without a dev split,
fusion weights. Hard negatives (`hard_negatives`): the top BM25 chunk of each question that does not
overlap its gold.

What it leaves out: tokenisation and training (index/biencoder_train.py), and checking that a question has
one answer only (two rows may share a key; the gold is the first line that holds it).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

import numpy as np

from ...artifacts.io import sha256_text
from ...index.pairs import sentence_spans
from ...rank.synth import candidates
from ...text.words import LETTERS_RE, fold
from .cloze import Material, cloze

GENERIC_FAMILIES = ("generic",)  # the core's; a domain names its own (minirag/domain.py)
DEFINITION_RE = re.compile(r"^(?:the |an? |el |la |los |las )?(?P<x>[^,;:.]{3,60}?) (?P<v>is|are|es|son) ", re.I)
MIN_SENTENCE_WORDS = 6


def heldout_of(query: str, seed: int, share: float) -> bool:
    """Whether a question is held out: a hash of (seed, question), so a question keeps its side."""
    return int(sha256_text(f"{seed}\x00{query}")[:8], 16) / 0xFFFFFFFF < share


def line_span(text: str, answer: str, key: str = "") -> tuple[int, int] | None:
    """(start, end) of the first line of `text` holding `answer` (and `key`, when given), folded."""
    want, key_f = fold(answer), fold(key)
    pos = 0
    for line in text.splitlines(keepends=True):
        folded = fold(line)
        if want and want in folded and (not key_f or key_f in folded):
            return pos, pos + len(line.rstrip("\r\n"))
        pos += len(line)
    return None


def families_known() -> tuple[str, ...]:
    """Every domain's question families, then the core's (the order a fusion's questions are made in)."""
    from ...domain import domains
    return tuple(f for d in domains() for f in d.question_families) + GENERIC_FAMILIES


def family_terms(families: Sequence[str], terms, lexicon: dict | None):
    """The concepts a domain's question family among `families` is phrased with, read from the `terms` file
    (None: the domain's own) and the lexicon; None when every family is the core's."""
    from ...domain import hook
    named = [f for f in families if f not in GENERIC_FAMILIES]
    return hook("questions.terms", named[0])(terms, lexicon) if named else None


def learner_questions(docs: list[dict], terms, n: int, seed: int, lexicon: dict | None,
                      family: str = "learner") -> list[dict]:
    """A domain's question family (the grammar's `learner`: the answer selector's learner questions), each with
    its gold span: (query, family, doc, start, end). The domain's synthesiser is imported only here."""
    from ...domain import hook
    texts = {d["doc_id"]: d["text"] for d in docs}
    out = []
    for q in hook("questions.synthesize", family)(docs, terms, n, seed, lexicon):
        if q.answer is None:
            continue  # unanswerable: no chunk to retrieve
        doc_id, _, rest = q.source.partition(" ")
        key = rest.removeprefix("row ").split(" · ")[0] if rest.startswith("row ") else ""
        span = line_span(texts.get(doc_id, ""), q.answer, key) or line_span(texts.get(doc_id, ""), q.answer)
        if span:
            out.append({"query": q.query, "family": f"{family}:{q.family}", "doc_id": doc_id,
                        "char_start": span[0], "char_end": span[1]})
    return out


def sentence_questions(chunks: Sequence[dict]) -> list[dict]:
    """A cloze of every prose sentence (its rarest word blanked) and "what is X?" of "X is Y" sentences."""
    df = Counter(w for c in chunks for w in set(LETTERS_RE.findall(fold(c["text"]))))
    out, seen = [], set()
    for c in chunks:
        text = c["text"]
        for s, e in sentence_spans(text):
            sentence = text[s:e]
            words = LETTERS_RE.findall(sentence)
            if sentence.lstrip().startswith("|") or len(words) < MIN_SENTENCE_WORDS:
                continue
            start = c["offset"] + s
            if (c["doc_id"], start) in seen:  # overlapping chunks share sentences
                continue
            seen.add((c["doc_id"], start))
            gold = {"doc_id": c["doc_id"], "char_start": start, "char_end": c["offset"] + e}
            rare = min((w for w in words if len(w) > 3), key=lambda w: (df.get(fold(w), 0), w), default="")
            if rare:
                cloze = re.sub(rf"\b{re.escape(rare)}\b", "___", sentence, count=1)
                out.append({"query": " ".join(cloze.split()), "family": "generic:cloze", **gold})
            m = DEFINITION_RE.match(sentence.strip())
            if m:
                verb = m.group("v").lower()
                wh = "¿qué " if verb in ("es", "son") else "what "
                query = f"{wh}{verb} {m.group('x').strip()}?"
                out.append({"query": query, "family": "generic:what", **gold})
    return out


def span_questions(docs: list[dict], seed: int) -> list[dict]:
    """The wh-question of every span of every prose sentence (cloze.py), its gold the span's place in
    its document: the occurrence whose surroundings share most words with the question."""
    rng = np.random.default_rng([seed, 11])
    texts = {d["doc_id"]: d["text"] for d in docs}
    out = []
    for doc_id, sentence, spans in Material(docs).sentences:
        text = texts[doc_id]
        for kind, span in spans:
            query = cloze(sentence, kind, span, rng)
            spots = [m.start() for m in re.finditer(re.escape(span), text)]
            if not spots:  # the span's markup was stripped: it does not stand in the text as it reads
                continue
            words = {w.lower() for w in LETTERS_RE.findall(query) if len(w) > 3}
            at = max(spots, key=lambda i: (sum(w.lower() in words for w in LETTERS_RE.findall(text[max(0, i - 200):i + 200])), -i))
            out.append({"query": query, "family": f"generic:{kind}", "doc_id": doc_id,
                        "char_start": at, "char_end": at + len(span)})
    return out


def generic_questions(docs: list[dict], chunks: Sequence[dict], seed: int = 0) -> list[dict]:
    """Every generic question of the corpus: table cells and headings (rank/synth.py), sentences, spans."""
    out = [{"query": query, "family": "generic:table" if "{heading}" not in t else "generic:heading",
            "doc_id": doc_id, "char_start": lo, "char_end": hi} for t, query, doc_id, lo, hi in candidates(docs)]
    return out + sentence_questions(chunks) + span_questions(docs, seed)


def best_chunk(chunks_of_doc: Sequence[dict], start: int, end: int) -> str | None:
    """The id of the chunk that overlaps [start, end) most (the first of equals); None when none does."""
    best, most = None, 0
    for c in chunks_of_doc:
        lo, hi = c["offset"], c["offset"] + len(c["text"])
        overlap = min(hi, end) - max(lo, start)
        if overlap > most:
            best, most = c["id"], overlap
    return best


def synthesize_questions(docs: list[dict], chunks: Sequence[dict], families: Sequence[str], n: int, seed: int,
                         heldout: float, terms=None, lexicon: dict | None = None) -> list[dict]:
    """Up to n questions per family, each once, with its gold span, its chunk and its split; seeded.

    generic: n drawn (seeded) from every question the corpus offers; a domain's family (the grammar's
    `learner`): synthesised n at a time by its generator. Records are in family order, then the generator's."""
    known = families_known()
    unknown = [f for f in families if f not in known]
    if unknown:
        raise ValueError(f"questions: unknown famil(ies) {', '.join(unknown)} (have: {', '.join(known)})")
    by_doc: dict[str, list[dict]] = {}
    for c in chunks:
        by_doc.setdefault(c["doc_id"], []).append(c)
    out, seen = [], set()
    for family in families:
        if family not in GENERIC_FAMILIES:
            found = learner_questions(docs, terms, n, seed, lexicon, family)
        else:
            pool = generic_questions(docs, chunks, seed)
            rng = np.random.default_rng([seed, 7])
            picks = sorted(rng.choice(len(pool), size=min(n, len(pool)), replace=False).tolist()) if pool else []
            found = [pool[i] for i in picks]
        for q in found:
            chunk = best_chunk(by_doc.get(q["doc_id"], []), q["char_start"], q["char_end"])
            if chunk is None or q["query"] in seen:
                continue
            seen.add(q["query"])
            qid = "sq-" + sha256_text(f"{q['query']}\x00{chunk}")[:12]
            split = "heldout" if heldout_of(q["query"], seed, heldout) else "train"
            out.append({"qid": qid, "query": q["query"], "chunk": chunk, "family": q["family"], "split": split,
                        "gold": {k: q[k] for k in ("doc_id", "char_start", "char_end")}})
    return out


def add_hard_negatives(questions: list[dict], chunks: Sequence[dict], search, depth: int = 10) -> list[dict]:
    """Each question with `negative`: the best-ranked chunk of `search(queries, depth)` (a list of chunk-index
    lists, one per query) that overlaps none of its gold span and is not its chunk; None when there is none."""
    ranked = search([q["query"] for q in questions], depth)
    out = []
    for q, idx in zip(questions, ranked):
        g = q["gold"]
        negative = None
        for i in idx:
            c = chunks[i]
            lo, hi = c["offset"], c["offset"] + len(c["text"])
            if c["id"] != q["chunk"] and not (c["doc_id"] == g["doc_id"] and lo < g["char_end"] and g["char_start"] < hi):
                negative = c["id"]
                break
        out.append({**q, "negative": negative})
    return out
