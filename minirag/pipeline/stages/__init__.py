"""Every stage of the graph as a spec, in graph order: the one list the rules, jobs, artifacts,
receipts and command lines are derived from (`python -m minirag.pipeline.stages` prints it).

    corpus.py    curate, questions, the training sample, the tokenizer, chunk, units
    index.py     the bi-encoder, embed, BM25, IVF, the reranker, retrieve (and the shard jobs)
    answer.py    train a reader, candidates, prompt, generate
    evaluate.py  evaluate, diagnose, assertions, the sweep and loss figures

A domain's stages (minirag/domain.py `Domain.stages`: the grammar's lexicon) follow the chunk stages.

What it leaves out: the rules whose shape is their own (the report, note_missing, the downloads
and generated corpora in workflow/rules/) and what any stage does (minirag/stages/).
"""

from __future__ import annotations

from ...domain import domains
from .answer import ANSWER
from .corpus import CHUNKS, CORPUS, SHARD_DOCS
from .evaluate import EVALUATE
from .index import BM25, EMBED, RANK

STAGES = [*CORPUS, *SHARD_DOCS, *CHUNKS, *(s for d in domains() for s in d.stage_specs()), *EMBED, *BM25, *RANK, *ANSWER,
          *EVALUATE]
BY_RULE = {spec.rule: spec for spec in STAGES}


def settings_of(graph, rule: str, **wildcards) -> dict | None:
    """The config values one job of `rule` reads, e.g. settings_of(graph, "retrieve", name="bm25")."""
    spec = BY_RULE[rule]
    return spec.settings(graph, wildcards) if spec.settings else None
