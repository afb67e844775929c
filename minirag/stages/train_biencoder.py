"""train_biencoder: chunks.jsonl + tokenizer.json -> encoders/<name>.npz + .json (weights, sidecar)."""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from ..artifacts.integrity import load_records
from ..artifacts.io import sha256_file
from ..index.biencoder_train import train_biencoder as train
from ..index.embedders import BiEncoderSettings
from ..index.pairs import mine_pairs, pairs_sha256
from ..pipeline.jobs import named
from ..pipeline.stage import Out, Size, Stage
from ..settings import settings_from_dict
from ..text.bpe import load_tokenizer
from ..text.chunks import check_slices, index_text, load_chunks
from .common import log, run_stage


def train_biencoder(settings: dict, docs: Path, chunks: Path, tokenizer: Path, out: Path, beir: Path | None = None,
                    train_split: str = "", eval_split: str = "", questions: Path | None = None) -> list[Path]:
    """Mine pairs from the chunks of `docs` (the corpus, or its training sample), add a BEIR training
    split's qrels and the synth_pairs stage's questions (their train split, each with its hard negative);
    train, save weights + sidecar."""
    s = settings_from_dict(BiEncoderSettings, {k: v for k, v in settings.items() if k != "type"}, "biencoder")
    cfg = s.model_config()
    documents = load_records(docs, "documents")
    sampled = {d["doc_id"]: d["text"] for d in documents}
    kept = [c for c in load_chunks(chunks) if c.doc_id in sampled]
    check_slices(kept, sampled, chunks)
    records = [c.to_record() for c in kept]
    pairs = mine_pairs(records, cfg.sources, cfg.seed, cfg.ict_per_chunk, cfg.crops_per_chunk)
    if s.train_qrels:
        from ..datasets.beir import beir_train_pairs
        # repeated: a few thousand labelled pairs among tens of thousands of mined ones
        pairs += cfg.qrels_repeat * beir_train_pairs(beir, train_split, eval_split)
    negatives: list[str | None] = [None] * len(pairs)
    if questions is not None:
        found, hard = question_pairs(questions, {c.id: index_text(c) for c in kept}, s.questions.hard_negatives)
        pairs += s.questions.repeat * found
        negatives += s.questions.repeat * hard
    by_source = dict(sorted(Counter(source for source, _, _ in pairs).items()))
    log(f"train_biencoder: {len(pairs)} pairs ({', '.join(f'{k} {n}' for k, n in by_source.items())})")
    model, losses = train([(x, y) for _, x, y in pairs], load_tokenizer(tokenizer), cfg,
                          progress=make_progress(cfg.epochs * cfg.members),
                          negatives=negatives if any(n is not None for n in negatives) else None)
    model.save(out, {"settings": settings, "tokenizer_sha256": sha256_file(tokenizer), "training_pairs": len(pairs),
                     "pairs_by_source": by_source, "hard_negatives": sum(n is not None for n in negatives),
                     "training_data_sha256": pairs_sha256(
                         [(*p, n) for p, n in zip(pairs, negatives)] if any(negatives) else pairs),
                     "loss_per_epoch": losses})
    return [out, out.with_suffix(".json")]


def question_pairs(path: Path, texts: dict[str, str], hard_negatives: bool
                   ) -> tuple[list[tuple[str, str, str]], list[str | None]]:
    """("questions", question, its chunk's text) of every training question of the synth_pairs file, and
    each one's hard negative's text (None: none, or not used); held-out questions are never read."""
    pairs, negatives = [], []
    for q in load_records(path, "synthesised questions"):
        if q["split"] != "train":
            continue
        if q["chunk"] not in texts:
            raise ValueError(f"{path}: question {q['qid']} names chunk {q['chunk']}, not a chunk of the corpus; "
                             "re-run synth_pairs")
        pairs.append(("questions", q["query"], texts[q["chunk"]]))
        negatives.append(texts.get(q.get("negative") or "") if hard_negatives else None)
    return pairs, negatives


def make_progress(epochs: int):
    """A progress bar on a terminal; one line per epoch, with its mean loss, otherwise too (the rule's log)."""
    tty = sys.stderr.isatty()
    state = {"t0": time.perf_counter(), "sum": 0.0}

    def progress(epoch: int, step: int, n_steps: int, loss: float) -> None:
        # epoch counts from 1, step from 1 to n_steps (index/biencoder_train.py)
        state["sum"] = loss if step == 1 else state["sum"] + loss
        if tty:
            filled = int(30 * step / max(n_steps, 1))
            sys.stderr.write(f"\repoch {epoch}/{epochs} [{'#' * filled}{'.' * (30 - filled)}] loss {loss:.4f}")
            sys.stderr.flush()
        if step == n_steps:
            if tty:
                sys.stderr.write("\n")
            log(f"epoch {epoch}/{epochs}: mean step loss {state['sum'] / n_steps:.4f} "
                f"({time.perf_counter() - state['t0']:.1f}s)")
    return progress


def training_reads(g, name: str) -> dict:
    """What training the embedder `name` reads besides the documents, chunks and tokenizer (its kind's `training_reads`)."""
    return g.corpus.embedders[name].training_reads(g, name)


STAGES = (
    Stage("train_biencoder", phase="embed", step=20, names=lambda g: named(g.trained()),
          settings=lambda g, w: g.corpus.embedders[w["name"]].spec(),
          values=lambda g, w: g.beir_splits() if training_reads(g, w["name"]) else {},
          reads=lambda g, w: {"docs": g.training_docs(), "chunks": str(g.layout.chunks),
                              "tokenizer": str(g.layout.tokenizer), **training_reads(g, w["name"])},
          writes={"out": Out("encoder", at="encoders/{name}.npz", check="weights"),
                  "sidecar": Out("encoder_sidecar", arg=None, at="encoders/{name}.json", check="json_file")},
          size=Size(1280, 15)),
)


if __name__ == "__main__":
    run_stage(train_biencoder)
