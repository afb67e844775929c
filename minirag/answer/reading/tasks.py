"""Reading tasks: training and evaluation data for a small reader, synthesized from the corpus itself.

A reader is shown a question and a few evidence lines, each with a marker, and must answer
with a short span of one line and that line's marker, or "I don't know":

    question: I forgot how 'write' looks in the past participle
    Table of common irregular verbs: write · Past participle: written [#1]
    Table of common irregular verbs: write · Past simple: wrote [#2]
    answer: written [#1]

Facts come from facts.py (a table cell is shown as the prompt shows the cell the answer
selector picks), and questions are phrased by a domain's asker (minirag/domain.py "questions.asker": the
grammar's phrases them as learners do, plain, paraphrased, fill-in-the-blank, alternatives, confirmations,
cross-language, misspelt — the same generator its answer selector is trained with; the generic core has
none yet). Each fact becomes tasks of three kinds. "true":
the evidence line among distractors (contexts.py: the same table's other cells — the hard
case — lines sharing the question's words, random lines), first in `lead` of the tasks, as the
selector's pick leads a prompt, else in the order the prompt stage ranks lines (`evidence.
line_scores`, ties shuffled). "swapped": the line's answer replaced by another value of the same
column (or another arrow target, gloss, definition of the document), so the target is the
swapped-in value: the reader must read, not remember. "absent": only distractors, none holding the
answer; the target is "I don't know". Facts are split: a seeded share of the documents and of the
row keys (by hash) is held out, so evaluation has unseen rows and unseen documents, and no held-out
fact or line is ever the evidence of a training task.

What it leaves out: tokens (budgets are in characters, as in `select_evidence`), training
the reader, and questions needing more than one line (comparisons, "why" questions).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from ...artifacts.io import read_jsonl, write_jsonl
from ...domain import hook
from ..evidence import line_scores
from .contexts import LinePool, distractors, line_count, swap_value
from .facts import Fact, row_facts, sentence_facts
from .span_facts import span_facts

IDK = "I don't know"
KINDS = ("true", "swapped", "absent")
SPLITS = ("train", "heldout")
MIN_FACTS = 20  # fewer table and prose facts than this: the sentences' spans join them (span_facts.py)


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


def task_id(question: str, lines: tuple[tuple[int, str], ...], answer: str | None, cite: int | None) -> str:
    body = "\x1f".join([question, *(f"{n}\x1e{t}" for n, t in lines), answer or "", str(cite)])
    return "rt-" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def make_task(fact: Fact, kind: str, split: str, pool: LinePool, rng: np.random.Generator, asker,
              max_lines: int, max_chars: int, lead: float) -> ReadingTask | None:
    """One task of `kind` about `fact`, or None when the fact cannot make one (no swap, no room)."""
    question = fact.question or asker.fact_question(fact)
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
    if evidence is not None and rng.random() < lead:  # the answer selector's pick comes first, as prompts show it
        order = [len(shown) - 1] + [i for i in order if i != len(shown) - 1]
    lines = tuple((n, shown[i]) for n, i in enumerate(order, start=1))
    cite = None if evidence is None else 1 + order.index(len(shown) - 1)
    return ReadingTask(task_id(question, lines, answer, cite), question, lines, answer, cite, kind, split,
                       f"{fact.doc_id} {fact.origin}")


def draw(facts: list[Fact], kinds: list[str], split: str, pool: LinePool, rng: np.random.Generator,
         seen: set[str], asker, max_lines: int, max_chars: int, lead: float) -> list[ReadingTask]:
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
            task = make_task(facts[cursor[kind].pop()], kind, split, pool, rng, asker, max_lines, max_chars, lead)
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
               lead: float = 0.7) -> list[ReadingTask]:
    """`n_train` training tasks (kinds mixed by the shares), then `n_eval` held-out tasks of each kind
    (true, swapped, absent, in that order). Same documents and seed: the same tasks in the same order.
    Questions are phrased by the domain's asker (the grammar's: as learners do, in either language); in `lead`
    of the tasks with evidence its line comes first, as the answer selector's pick leads a prompt."""
    facts = row_facts(docs) + sentence_facts(docs)
    if len(facts) < MIN_FACTS:  # a corpus without many tables or shaped prose: its sentences' typed spans too
        facts += span_facts(docs, seed)
    train, held = split_facts(facts, docs, heldout_share, seed)
    pool = LinePool(docs, facts)
    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    args = (pool, rng, seen, hook("questions.asker")(docs, rng), max_lines, max_chars, lead)
    tasks = draw(train, train_kinds(n_train, swapped_share, absent_share, rng), "train", *args)
    for kind in KINDS:
        tasks += draw(held, [kind] * n_eval, "heldout", *args)
    return tasks
