"""Reading contexts: the lines a reading task shows beside (or instead of) its evidence.

`LinePool(docs, facts)` holds every line of the corpus as a reader sees it — prose lines, table rows, and
each table cell as the prompt shows a selected cell ("Irregular verbs: write · Past participle: written")
— indexed by word, with the hard distractors of each fact (its table's other cells, its document's other
lines). `distractors` draws lines that do not answer a fact's question; `swap_value` replaces a fact's
value in its line by another of its column, so a reader must read rather than remember.

What it leaves out: the tasks themselves (tasks.py).
"""

from __future__ import annotations

import numpy as np

from ...text.words import prefix_stems
from ..evidence import format_row
from ..select.candidates import cell_line, plain
from .facts import Fact, contains, content_stems, doc_lines, holds, table_rows


def table_cell_lines(doc: dict) -> dict[str, list[str]]:
    """Each table's cells as the lines that state them (candidates.cell_line), by table."""
    out: dict[str, list[str]] = {}
    for t, _, heading, header, row in table_rows(doc):
        for column, value in zip(header[1:], row[1:]):
            if column and plain(value):
                out.setdefault(f"{doc['doc_id']}#table{t}", []).append(cell_line(heading, plain(row[0]), column,
                                                                                   plain(value)))
    return out


class LinePool:
    """Every line of the corpus, where it comes from, which questions it answers, and its words."""

    def __init__(self, docs: list[dict], facts: list[Fact]):
        cells = {doc["doc_id"]: table_cell_lines(doc) for doc in docs}
        self.texts: list[str] = []
        self.index: dict[str, list[int]] = {}  # stem -> ids of the lines holding it
        seen: set[str] = set()
        for doc in docs:
            for text in doc_lines(doc) + [ln for group in cells[doc["doc_id"]].values() for ln in group]:
                if text and text not in seen:
                    seen.add(text)
                    self.texts.append(text)
        for i, text in enumerate(self.texts):
            for s in sorted(prefix_stems(text)):
                self.index.setdefault(s, []).append(i)
        self.signatures: dict[str, set[tuple[str, str]]] = {}
        self.groups: dict[str, list[str]] = {}
        for f in facts:
            self.signatures.setdefault(f.line, set()).add(f.signature)
        for doc in docs:  # the hard distractors: a table's other cells, a document's prose lines
            self.groups.update(cells[doc["doc_id"]])
            self.groups[doc["doc_id"]] = [ln for ln in dict.fromkeys(doc_lines(doc)) if not ln.startswith("|")
                                          and ln not in {format_row(h, hd, r) for _, _, h, hd, r in table_rows(doc)}]

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
