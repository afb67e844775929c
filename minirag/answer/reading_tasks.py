"""Reading tasks: training and evaluation data for a small reader, synthesized from the corpus itself.

A reader is shown a question and a few evidence lines, each with a marker, and must answer
with a short span of one line and that line's marker, or "I don't know":

    question: What is the past participle of write?
    Table of common irregular verbs: Base form: throw; Past simple: threw; Past participle: thrown [#1]
    Table of common irregular verbs: Base form: write; Past simple: wrote; Past participle: written [#2]
    answer: written [#2]


Facts come from reading_facts.py; each becomes tasks of three kinds. "true": the evidence
line among distractors (rows of the same table — the hard case — lines sharing the
question's words, random lines of the corpus), in the order the prompt stage would show them
(`evidence.line_scores`, ties shuffled). "swapped": the line's answer replaced by another value of the same column (or
another arrow target, gloss, definition of the document), so the target is the swapped-in
value: the reader must read, not remember. "absent": only distractors, none holding the
answer; the target is "I don't know". Facts are split: a seeded share of the documents and
of the row keys (by hash) is held out, so evaluation has unseen rows and unseen documents,
and no held-out fact or line is ever the evidence of a training task.

What it leaves out: tokens (budgets are in characters, as in `select_evidence`), training
the reader, and questions needing more than one line (comparisons, "why" questions).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from ..io import read_jsonl, write_jsonl
from .evidence import format_row, line_scores, words_of
from .reading_facts import (
    Fact,
    contains,
    content_stems,
    doc_lines,
    holds,
    row_facts,
    sentence_facts,
    table_rows,
)
from .reading_questions import ask

IDK = "I don't know"
KINDS = ("true", "swapped", "absent")
SPLITS = ("train", "heldout")


@dataclass(frozen=True)
class ReadingTask:
    qid: str                             # stable id: a hash of its content
    question: str
    lines: tuple[tuple[int, str], ...]   # (marker n, evidence line text), in the order shown, markers 1..k
    answer: str | None                   # None = the evidence does not answer: "I don't know"
    cite: int | None                     # the marker of the line that answers (None when answer is None)
    kind: str                            # "true" | "swapped" | "absent"
    split: str                           # "train" | "heldout"
    source: str                          # doc_id + what row/line it was made from (for reports)

    @property
    def target(self) -> str:
        """What the reader should write: "written [#2]", or "I don't know"."""
        return IDK if self.answer is None else f"{self.answer} [#{self.cite}]"

    def render(self, with_answer: bool = True) -> str:
        """The task as the reader is trained on it (see the module docstring)."""
        out = [f"question: {self.question}"] + [f"{text} [#{n}]" for n, text in self.lines]
        out.append(f"answer: {self.target}" if with_answer else "answer:")
        return "\n".join(out)

    def to_record(self) -> dict:
        return {"qid": self.qid, "question": self.question, "lines": [[n, t] for n, t in self.lines],
                "answer": self.answer, "cite": self.cite, "kind": self.kind, "split": self.split,
                "source": self.source}

    @classmethod
    def from_record(cls, rec: dict) -> "ReadingTask":
        task = cls(qid=rec["qid"], question=rec["question"], lines=tuple((int(n), str(t)) for n, t in rec["lines"]),
                   answer=rec["answer"], cite=rec["cite"], kind=rec["kind"], split=rec["split"],
                   source=rec["source"])
        if task.kind not in KINDS or task.split not in SPLITS or (task.answer is None) != (task.cite is None):
            raise ValueError(f"inconsistent reading task {task.qid}: kind {task.kind!r}, split {task.split!r}, "
                             f"answer {task.answer!r}, cite {task.cite!r}")
        return task


def save_tasks(path: str | Path, tasks: Iterable[ReadingTask]) -> None:
    """JSON Lines, written atomically (temporary file beside it, then os.replace)."""
    write_jsonl(path, (t.to_record() for t in tasks))


def load_tasks(path: str | Path) -> list[ReadingTask]:
    """The tasks of `save_tasks`; a bad record raises ValueError naming the file and record."""
    out = []
    for i, rec in enumerate(read_jsonl(path), start=1):
        try:
            out.append(ReadingTask.from_record(rec))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: record {i}: not a reading task ({type(exc).__name__}: {exc})") from None
    return out


def unit_hash(text: str, seed: int) -> float:
    """A number in [0, 1) fixed by the text and the seed."""
    return int(hashlib.sha256(f"{seed}:{text}".encode("utf-8")).hexdigest()[:12], 16) / 16 ** 12


def heldout_docs(doc_ids: list[str], share: float, seed: int) -> list[str]:
    """A seeded `share` of the documents (rounded), in their given order."""
    k = int(round(share * len(doc_ids)))
    picked = set(np.random.default_rng([seed, 7]).permutation(len(doc_ids))[:k].tolist())
    return [d for i, d in enumerate(doc_ids) if i in picked]


def split_facts(facts: list[Fact], docs: list[dict], heldout_share: float, seed: int) -> tuple[list[Fact], list[Fact]]:
    """(training facts, held-out facts). Held out: the document is held out, or the key's hash
    falls in the share. A training fact is dropped when its line is a held-out fact's line (the
    other cells of a held-out row, another arrow of its sentence) or when it states a held-out
    fact again elsewhere (same key, relation and value), so none is seen in training."""
    docs_out = set(heldout_docs([d["doc_id"] for d in docs], heldout_share, seed))
    is_out = [f.doc_id in docs_out or unit_hash(f.key.casefold(), seed) < heldout_share for f in facts]
    held = [f for f, o in zip(facts, is_out) if o]
    held_lines = {f.line for f in held}
    held_stated = {(f.key.casefold(), f.relation.casefold(), f.value.casefold()) for f in held}
    train = [f for f, o in zip(facts, is_out)
             if not o and f.line not in held_lines and (*f.signature, f.value.casefold()) not in held_stated]
    return train, held


# ---------------------------------------------------------------- contexts

class LinePool:
    """Every line of the corpus, where it comes from, which questions it answers, and its words."""

    def __init__(self, docs: list[dict], facts: list[Fact]):
        self.texts: list[str] = []
        self.index: dict[str, list[int]] = {}  # stem -> ids of the lines holding it
        seen: set[str] = set()
        for doc in docs:
            for text in doc_lines(doc):
                if text and text not in seen:
                    seen.add(text)
                    self.texts.append(text)
        for i, text in enumerate(self.texts):
            for s in sorted(words_of(text)):
                self.index.setdefault(s, []).append(i)
        self.signatures: dict[str, set[tuple[str, str]]] = {}
        self.groups: dict[str, list[str]] = {}
        for f in facts:
            self.signatures.setdefault(f.line, set()).add(f.signature)
        for doc in docs:  # the hard distractors: a table's other rows, a document's other prose lines
            rows = {}
            for t, _, heading, header, row in table_rows(doc):
                rows.setdefault(f"{doc['doc_id']}#table{t}", []).append(format_row(heading, header, row))
            self.groups.update(rows)
            row_lines = {ln for group in rows.values() for ln in group}
            self.groups[doc["doc_id"]] = [ln for ln in dict.fromkeys(doc_lines(doc)) if ln not in row_lines]

    def related(self, fact: Fact) -> list[str]:
        """Lines sharing a word with the fact's key or column: what retrieval would bring next to the
        evidence (the key, not the question, whose template words — "become", "mean" — say nothing)."""
        about = f"{fact.key} {fact.relation}" if fact.kind == "row" else fact.key
        ids = sorted({i for s in content_stems(about) for i in self.index.get(s, [])})
        return [self.texts[i] for i in ids]


def line_count(max_lines: int, rng: np.random.Generator) -> int:
    """How many lines a context has: 1..max_lines, weighted towards full contexts as prompts mostly are."""
    weights = np.arange(1, max_lines + 1, dtype=float)
    return int(rng.choice(np.arange(1, max_lines + 1), p=weights / weights.sum()))


def distractors(pool: LinePool, fact: Fact, answer: str | None, n: int, room: int,
                rng: np.random.Generator) -> list[str]:
    """Up to n lines (total length ≤ room) that do not answer the question: drawn from the fact's
    table or document (hard), lines sharing the key's words, and random lines. None states
    the fact's signature; with no answer (absent) none even contains the value; otherwise none
    holds the key together with the value or the answer."""
    def ok(text: str) -> bool:
        if text == fact.line or fact.signature in pool.signatures.get(text, ()):
            return False
        if answer is None:
            return not contains(text, fact.value)
        return not (holds(text, fact.key) and (contains(text, fact.value) or contains(text, answer)))

    sources = [list(pool.groups.get(fact.group, [])), pool.related(fact),
               [pool.texts[int(i)] for i in rng.integers(len(pool.texts), size=min(40, len(pool.texts)))]]
    orders = [iter(rng.permutation(len(s)).tolist()) for s in sources]
    chosen: list[str] = []
    weights = np.array([0.5, 0.3, 0.2])
    live = [True, True, True]
    while len(chosen) < n and any(live):
        p = weights * np.array(live)
        k = int(rng.choice(3, p=p / p.sum()))
        i = next(orders[k], None)
        if i is None:
            live[k] = False
            continue
        text = sources[k][i]
        if text not in chosen and len(text) <= room and ok(text):
            chosen.append(text)
            room -= len(text)
    return chosen


def swap_value(fact: Fact, rng: np.random.Generator) -> tuple[str, str] | None:
    """(the line with its value replaced by another of its column / kind, the swapped-in value), or
    None when no swap leaves a line that holds the new value once and the old one nowhere."""
    lo, hi = fact.span
    rest = fact.line[:lo] + fact.line[hi:]
    if contains(rest, fact.value):
        return None  # "bet | bet | bet": the old value would still be in the line
    options = [v for v in fact.alternatives if not contains(fact.line, v) and not contains(v, fact.value)]
    if not options:
        return None
    new = options[int(rng.integers(len(options)))]
    return fact.line[:lo] + new + fact.line[hi:], new


def task_id(question: str, lines: tuple[tuple[int, str], ...], answer: str | None, cite: int | None) -> str:
    body = "\x1f".join([question, *(f"{n}\x1e{t}" for n, t in lines), answer or "", str(cite)])
    return "rt-" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def make_task(fact: Fact, kind: str, split: str, pool: LinePool, rng: np.random.Generator,
              max_lines: int, max_chars: int, cross_share: float) -> ReadingTask | None:
    """One task of `kind` about `fact`, or None when the fact cannot make one (no swap, no room)."""
    lang = fact.lang if rng.random() >= cross_share else ("es" if fact.lang == "en" else "en")
    question = ask(fact, lang, rng)
    evidence, answer = fact.line, fact.value
    if kind == "swapped":
        swapped = swap_value(fact, rng)
        if swapped is None:
            return None
        evidence, answer = swapped
    if kind == "absent":
        answer, evidence = None, None
    if evidence is not None and len(evidence) > max_chars:
        return None
    total = line_count(max_lines, rng)
    room = max_chars - (len(evidence) if evidence else 0)
    others = distractors(pool, fact, answer, total - (evidence is not None), room, rng)
    shown = others + ([evidence] if evidence else [])
    if not shown:
        return None
    # in the order the prompt stage shows lines (select_evidence: most of the question's rare words
    # first), ties in a seeded shuffle: the reader learns on what it will read
    scores = line_scores(question, shown)
    order = sorted(rng.permutation(len(shown)).tolist(), key=lambda i: -scores[i])
    lines = tuple((n, shown[i]) for n, i in enumerate(order, start=1))
    cite = None if evidence is None else 1 + order.index(len(shown) - 1)
    return ReadingTask(task_id(question, lines, answer, cite), question, lines, answer, cite, kind, split,
                       f"{fact.doc_id} {fact.origin}")


def draw(facts: list[Fact], kinds: list[str], split: str, pool: LinePool, rng: np.random.Generator,
         seen: set[str], max_lines: int, max_chars: int, cross_share: float) -> list[ReadingTask]:
    """One task per entry of `kinds`, the facts taken in seeded passes (every fact once before any
    twice); a task whose id was already made is drawn again."""
    out: list[ReadingTask] = []
    cursor: dict[str, list[int]] = {k: [] for k in KINDS}
    budget = 50 * len(kinds) + 1000
    for kind in kinds:
        while True:
            budget -= 1
            if budget < 0 or not facts:
                raise ValueError(f"cannot make {len(kinds)} {split} tasks from {len(facts)} facts "
                                 f"(made {len(out)}; stuck on a {kind!r} task): too few facts or too little variety")
            if not cursor[kind]:
                cursor[kind] = rng.permutation(len(facts)).tolist()
            task = make_task(facts[cursor[kind].pop()], kind, split, pool, rng, max_lines, max_chars, cross_share)
            if task is not None and task.qid not in seen:
                seen.add(task.qid)
                out.append(task)
                break
    return out


def train_kinds(n: int, swapped_share: float, absent_share: float, rng: np.random.Generator) -> list[str]:
    """n kinds: `absent_share` absent, `swapped_share` of the rest swapped, shuffled."""
    n_absent = int(round(n * absent_share))
    n_swapped = int(round((n - n_absent) * swapped_share))
    kinds = ["absent"] * n_absent + ["swapped"] * n_swapped + ["true"] * (n - n_absent - n_swapped)
    return [kinds[i] for i in rng.permutation(n).tolist()]


def make_tasks(docs: list[dict], n_train: int, n_eval: int, seed: int = 0, heldout_share: float = 0.2,
               swapped_share: float = 0.7, absent_share: float = 0.1, max_lines: int = 4, max_chars: int = 480,
               cross_share: float = 0.2) -> list[ReadingTask]:
    """`n_train` training tasks (kinds mixed by the shares), then `n_eval` held-out tasks of each kind
    (true, swapped, absent, in that order). Same documents and seed: the same tasks in the same order.
    `cross_share` of the questions are asked in the other language than the document's."""
    facts = row_facts(docs) + sentence_facts(docs)
    train, held = split_facts(facts, docs, heldout_share, seed)
    pool = LinePool(docs, facts)
    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    args = (pool, rng, seen, max_lines, max_chars, cross_share)
    tasks = draw(train, train_kinds(n_train, swapped_share, absent_share, rng), "train", *args)
    for kind in KINDS:
        tasks += draw(held, [kind] * n_eval, "heldout", *args)
    return tasks
