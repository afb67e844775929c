"""The Mini-GPT reader: a small GPT the graph trains on reading tasks, answering from the prompt's evidence.

The reader sees what the reading tasks (reading/tasks.py) taught it, byte for byte:

    question: What is the past participle of write?
    Table of common irregular verbs: Base form: write; Past simple: wrote; Past participle: written [#1]
    Verbs such as go, eat or write do not follow them; see Irregular verbs. [#2]
    answer: written [#1]<eos>

Each line's marker comes at its end so that the copy head's key at the marker has read the line: the
citation is copied from the line the answer was copied from.
tokenized with the corpus's BPE tokenizer (one more id, `<eos>`, ends the answer). At
question time the prompt's evidence lines are numbered 1..k in the order shown (two lines of
one chunk get two numbers) and the answer's `[#m]` is mapped back to the chunk it came from.
Training (`train_reader`): a curriculum — for the first `curriculum` share of the steps the
answerable tasks with their evidence line alone, then every task with its distractors and
the "I don't know" ones — then the held-out tasks are answered and scored.

What it leaves out: the model (model.py), the optimiser and file format (train.py),
and the tasks (reading/tasks.py).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ClassVar, Iterator

import numpy as np

from ...settings import setting
from ...text.words import WORD_RE, prefix_stems
from ..evidence import content_words
from ..prompt import IDK, Prompt

if TYPE_CHECKING:  # the model, its training, the tokenizer and the tasks module are imported where a reader
    # trains or reads: the config reads MiniGPTSettings without them
    from ...text.bpe import BPETokenizer
    from ..reading.tasks import ReadingTask
    from .model import MiniGPT, MiniGPTConfig

CITE_RE = re.compile(r"\[#(\d+)\]")


@dataclass(frozen=True)
class MiniGPTSettings:
    """The Mini-GPT reader: its model's size, its training and how it answers."""
    ANSWER_TIME: ClassVar[tuple[str, ...]] = ("max_new_tokens", "min_support", "trust_selector")  # not retrained
    RENAMED: ClassVar[dict[str, str]] = {"max_lines": "evidence_lines", "max_chars": "evidence_chars"}  # old -> new
    d: int = setting(96, minimum=8)                   # width of the model
    n_layers: int = setting(2, minimum=1)
    n_heads: int = setting(4, minimum=1)
    block_size: int = setting(192, minimum=32)        # tokens the reader reads: question, evidence, answer
    pointer: bool = True                              # copy head (pointer-generator); false: a plain softmax LM
    steps: int = setting(1500, minimum=1)             # training steps (Adam, batch `batch_size`)
    batch_size: int = setting(32, minimum=1)
    lr: float = setting(3e-3, exclusive_minimum=0)   # peak learning rate (warm-up, then cosine)
    seed: int = 0                                     # initialisation, tasks and batch order
    tasks: int = setting(12000, minimum=1)            # training tasks synthesized from the corpus
    eval_tasks: int = setting(100, minimum=1)         # held-out tasks of each kind (true, swapped, absent)
    swapped_share: float = setting(0.7, minimum=0, maximum=1)  # answerable training tasks whose answer is swapped
    absent_share: float = setting(0.1, minimum=0, maximum=1)   # training tasks without the evidence: "I don't know"
    curriculum: float = setting(0.3, minimum=0, maximum=1)     # share of steps on the evidence line alone
    lead: float = setting(0.7, minimum=0, maximum=1)  # share of tasks whose evidence comes first, as the selector's pick does
    evidence_lines: int = setting(4, minimum=1)       # evidence lines it trains on and reads (prompt.evidence_lines
    evidence_chars: int = setting(400, minimum=40)    # and .evidence_chars: what the prompt holds), and their characters
    max_new_tokens: int = setting(24, minimum=1)      # answer length limit at question time
    trust_selector: bool = True  # abstain when the prompt's answer selector finds "none of them" likelier than its best
    min_support: float = setting(0.6, minimum=0, maximum=1)  # abstain when the cited line holds less of the
    # question's content words: a check on the model's answer (0.6 chosen on training tasks; 0 = the model alone)

    def model_config(self, vocab_size: int) -> MiniGPTConfig:
        from .model import MiniGPTConfig
        return MiniGPTConfig(vocab_size=vocab_size, block_size=self.block_size, d=self.d, n_layers=self.n_layers,
                             n_heads=self.n_heads, pointer=self.pointer, seed=self.seed)


def render_source(question: str, lines: list[tuple[int, str]]) -> str:
    """What the reader reads before it answers (tasks.ReadingTask.render without the answer)."""
    return "\n".join([f"question: {question}"] + [f"{t} [#{n}]" for n, t in lines] + ["answer:"])


class TaskEncoder:
    """Reading tasks and prompts as token ids; `eos` is the id after the tokenizer's."""

    def __init__(self, tokenizer: BPETokenizer, block_size: int):
        self.tok, self.block = tokenizer, block_size
        self.eos = tokenizer.vocab_size
        self.vocab_size = tokenizer.vocab_size + 1

    def source(self, question: str, lines: list[tuple[int, str]], room: int) -> tuple[list[int], int]:
        """(ids, lines kept): the last lines are dropped until the source leaves `room` tokens."""
        for k in range(len(lines), -1, -1):
            ids = self.tok.encode(render_source(question, lines[:k]))
            if len(ids) + room <= self.block:
                return ids, k
        return ids[: self.block - room], 0

    def marks(self, question: str, ids: list[int]) -> list[int]:
        """1 where a token is one of the question's words (as a BPE token, with or without a leading space,
        as written or lowercased), else 0: the model's exact-match input feature."""
        words = {v for w in WORD_RE.findall(question) for v in (w, w.lower())}
        wanted = {one[0] for w in words for form in (w, " " + w) if len(one := self.tok.encode(form)) == 1}
        return [int(t in wanted) for t in ids]

    def example(self, task: ReadingTask) -> tuple[list[int], int, list[int]] | None:
        """(source + answer + eos ids, source length, marks), or None when it does not fit the block."""
        src = self.tok.encode(task.render(with_answer=False))
        seq = src + self.tok.encode(" " + task.target) + [self.eos]
        if len(seq) > self.block + 1:
            return None
        return seq, len(src), self.marks(task.question, src) + [0] * (len(seq) - len(src))


def evidence_alone(task: ReadingTask) -> ReadingTask:
    """The curriculum's first step: the task with its evidence line only, as [#1]."""
    line = dict(task.lines)[task.cite]
    return replace(task, lines=((1, line),), cite=1)


def batches(examples: list[tuple[list[int], int, list[int]]], batch_size: int, eos: int, seed: int) -> Iterator[tuple]:
    """Endless seeded batches (ids, targets, loss_mask, src_mask, marks), padded to the longest of each batch."""
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(examples))
        for start in range(0, len(order) - batch_size + 1, batch_size):
            chunk = [examples[i] for i in order[start:start + batch_size]]
            t = max(len(seq) for seq, _, _ in chunk) - 1
            ids = np.full((len(chunk), t), eos, dtype=np.int64)         # (B, T)
            targets = np.full((len(chunk), t), eos, dtype=np.int64)     # (B, T)
            loss_mask = np.zeros((len(chunk), t), dtype=bool)          # (B, T): predicts an answer token
            src_mask = np.zeros((len(chunk), t), dtype=bool)           # (B, T): copyable source position
            marks = np.zeros((len(chunk), t), dtype=np.float32)         # (B, T): a token of the question
            for b, (seq, n_src, m) in enumerate(chunk):
                ids[b, : len(seq) - 1], targets[b, : len(seq) - 1] = seq[:-1], seq[1:]
                loss_mask[b, n_src - 1: len(seq) - 1] = True
                src_mask[b, :n_src] = True
                marks[b, : len(seq) - 1] = m[:-1]
            yield ids, targets, loss_mask, src_mask, marks


def train_on_tasks(tasks: list[ReadingTask], enc: TaskEncoder, s: MiniGPTSettings,
                   progress: Callable | None = None) -> tuple[MiniGPT, list[float], int]:
    """Train a fresh model on the training tasks with the curriculum; (model, loss per step, tasks skipped)."""
    from .model import MiniGPT
    from .train import train
    train_tasks = [t for t in tasks if t.split == "train"]
    full = [e for e in map(enc.example, train_tasks) if e is not None]
    first = [e for e in (enc.example(evidence_alone(t)) for t in train_tasks if t.answer is not None) if e is not None]
    model = MiniGPT(s.model_config(enc.vocab_size))
    n_first = int(round(s.curriculum * s.steps))

    def stream():
        if n_first:
            it = batches(first, s.batch_size, enc.eos, s.seed)
            for _ in range(n_first):
                yield next(it)
        yield from batches(full, s.batch_size, enc.eos, s.seed + 1)

    losses = train(model, stream(), s.steps, s.lr, progress=progress)
    return model, losses, len(train_tasks) - len(full)


def answer_ids(model: MiniGPT, enc: TaskEncoder, question: str, src: list[int], max_new_tokens: int) -> str:
    """The generated answer text (greedy, KV cache), without <eos>."""
    new = model.generate(src, len(src), max_new_tokens, stop_ids=(enc.eos,), marks=enc.marks(question, src))
    return enc.tok.decode([t for t in new if t != enc.eos]).strip()


def parse(text: str) -> tuple[str, int | None]:
    """(answer without its marker, the marker's number) of "written [#2]"."""
    m = CITE_RE.search(text)
    return CITE_RE.sub("", text).strip(), (int(m.group(1)) if m else None)


def supported(question: str, line: str) -> float:
    """Share of the question's content words (evidence.content_words) that occur in the cited line."""
    wanted = content_words(question)
    return sum(w in prefix_stems(line) for w in wanted) / len(wanted) if wanted else 1.0


def read(model: MiniGPT, enc: TaskEncoder, question: str, lines: list[tuple[int, str]], max_new_tokens: int,
         min_support: float) -> tuple[str, int | None]:
    """(answer, index into `lines` of the line it cites), or ("I don't know", None): when the model says so,
    cites no line it was shown, or cites a line holding less than `min_support` of the question's words."""
    from ...evaluation.answers import normalise
    from ..reading.tasks import IDK as TASK_IDK
    src, kept = enc.source(question, lines, max_new_tokens)
    said, m = parse(answer_ids(model, enc, question, src, max_new_tokens))
    if not said or normalise(said) == normalise(TASK_IDK) or m is None:
        return TASK_IDK, None
    at = next((i for i, (n, _) in enumerate(lines[:kept]) if n == m), None)
    if at is None or supported(question, lines[at][1]) < min_support:
        return TASK_IDK, None
    return said, at


def heldout_outcomes(model: MiniGPT, enc: TaskEncoder, tasks: list[ReadingTask], max_new_tokens: int) -> list[dict]:
    """What the model said on each held-out task (no support check), and the support of the line it cited:
    the support check's threshold is applied afterwards (`score_heldout`), so changing it needs no retraining."""
    from ...evaluation.answers import normalise
    out = []
    for t in (t for t in tasks if t.split == "heldout"):
        said, at = read(model, enc, t.question, list(t.lines), max_new_tokens, 0.0)
        right = at is not None and t.answer is not None and normalise(said) == normalise(t.answer)
        out.append({"qid": t.qid, "kind": t.kind, "said": said, "right": right,
                    "cite_right": right and t.lines[at][0] == t.cite,
                    "support": round(supported(t.question, t.lines[at][1]), 4) if at is not None else None})
    return out


def score_heldout(outcomes: list[dict], min_support: float) -> dict:
    """Per kind of held-out task: true (answer right; answer and citation right), swapped (follows the
    context's swapped-in answer), absent (abstains), when answers citing a line with less than
    `min_support` of the question's words become "I don't know"."""
    out = {"true": {"n": 0, "answer": 0.0, "answer_and_cite": 0.0}, "swapped": {"n": 0, "follows_context": 0.0},
           "absent": {"n": 0, "abstained": 0.0}}
    for o in outcomes:
        kept = o["support"] is not None and o["support"] >= min_support
        row = out[o["kind"]]
        row["n"] += 1
        if o["kind"] == "absent":
            row["abstained"] += not kept
        elif o["kind"] == "true":
            row["answer"] += kept and o["right"]
            row["answer_and_cite"] += kept and o["cite_right"]
        else:
            row["follows_context"] += kept and o["right"]
    for row in out.values():
        for k in row:
            if k != "n":
                row[k] = round(row[k] / row["n"], 4) if row["n"] else 0.0
    return out


def support_sweep(outcomes: list[dict], thresholds=(0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)) -> list[dict]:
    """The support check's trade-off: the three held-out scores at each threshold."""
    return [{"min_support": th, "answer and citation right": h["true"]["answer_and_cite"],
             "follows a swapped context": h["swapped"]["follows_context"],
             "abstains without evidence": h["absent"]["abstained"]}
            for th, h in ((th, score_heldout(outcomes, th)) for th in thresholds)]


class MiniGPTReader:
    """A Reader (readers.py registers it as type `minigpt`) over trained weights."""

    def __init__(self, model: MiniGPT, enc: TaskEncoder, max_new_tokens: int, evidence_lines: int, min_support: float,
                 trust_selector: bool = True):
        self.model, self.enc, self.max_new_tokens = model, enc, max_new_tokens
        self.evidence_lines, self.min_support, self.trust_selector = evidence_lines, min_support, trust_selector

    @classmethod
    def load(cls, path, settings: MiniGPTSettings) -> "MiniGPTReader":
        """The weights at `path`, checked against their job's receipt, with the tokenizer their sidecar holds."""
        from ...artifacts.integrity import verified
        from ...text.bpe import BPETokenizer
        from .train import load_model, load_sidecar
        meta = load_sidecar(verified(path, "reader weights"))
        verified(Path(path).with_suffix(".json"), "reader sidecar")
        tokenizer = BPETokenizer([tuple(m) for m in meta["tokenizer"]["merges"]], pattern=meta["tokenizer"]["pattern"])
        model = load_model(path, settings.model_config(tokenizer.vocab_size + 1))
        return cls(model, TaskEncoder(tokenizer, settings.block_size), settings.max_new_tokens, settings.evidence_lines,
                   settings.min_support, settings.trust_selector)

    def answer(self, prompt: Prompt, max_new_tokens: int | None = None) -> tuple[str, list[str], bool, float]:
        """(answer text with its chunk's [#n], cited chunk ids, abstained, milliseconds). It reads the first
        `evidence_lines` evidence lines, as many as it was trained on."""
        t0 = time.perf_counter()
        max_new_tokens = max_new_tokens or self.max_new_tokens
        lines = [(i, e["text"]) for i, e in enumerate(prompt.evidence[: self.evidence_lines], start=1)]
        doubted = self.trust_selector and prompt.answers is not None and (
            not prompt.answers or prompt.answers[0]["p"] <= prompt.p_none)
        if not lines or doubted:
            return IDK, [], True, (time.perf_counter() - t0) * 1000
        said, at = read(self.model, self.enc, prompt.query, lines, max_new_tokens, self.min_support)
        ms = (time.perf_counter() - t0) * 1000
        if at is None:
            return IDK, [], True, ms
        n = prompt.evidence[at]["n"]
        return f"{said} [#{n}]", [prompt.citations[n - 1]], False, ms
