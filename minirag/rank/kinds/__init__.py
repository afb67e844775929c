"""The retriever kinds a config can name (`retrievers: {name: {type: ...}}`), one small class each.

A kind holds everything minirag knows about it:
- `Settings`, its settings dataclass: the only home of its defaults and bounds;
- `family`: "channel" ranks by itself from an index; "fusion" combines the runs it names
  in `of`; "diversifier" re-orders the run it names in `base` (config/ and a server's listing name it;
  nothing else asks it);
- `sweepable`: the settings a `sweep:` may vary (each point becomes its own run);
- what it reads: `upstream()` (retrievers whose runs it combines), `embedder()` (whose
  vectors), `index()` (which BM25 index), `ivf_index()` (which IVF index), `reads(graph)` (its files);
- how it ranks: a channel `open`s a retriever, loading its own files from `sources`; a `Combining`
  kind `combine`s one query's input rankings (a reranker looks at the query and the chunks too);
  `rank(job)` ranks a retrieve job's questions (a fitted fusion fits its weights first) and
  `live(...)` gives the retriever `search`/`answer` rank with (`ComposedRetriever` over its inputs'),
  so both rank alike;
- how the report shows it: `describe(corpus)` and `controls(name, corpus)`, the runs to set it against, and its
  roles there (`fuses`, `reorders`, `ablation_key`, `ranking_embedder`, `dense_embedder`).

Config checks, the retrieve rule's inputs, the retrieve stage, the live loader and the
report loop over `KINDS`; a new kind is one module of this package and its test: `KINDS` imports
a module when a kind it declares is asked for (found, not listed: base.py `KindRegistry`), and a
subclass registers itself. The families' modules hold
the small ones: channels.py (dense, ivf, bm25), fusions.py (rrf, linear), reorders.py (cap, mmr,
rerank); a kind with a formula of its own is its own module (feedback.py); base.py holds
`RetrieverKind` and `Combining`.
A method given `corpus` gets the corpus's typed config (config/typed.py `Corpus`, not imported here).

What it leaves out: the shared formulas (fusion.py, diversify.py, rerank.py), what kinds share
(query/sources.py hands a kind its `sources`: the chunks, the file map, a cache), and the config's
sweep expansion (config/corpus.py).
"""
from __future__ import annotations

import pkgutil

from .base import KINDS, Combining, RetrieverKind


def kind_modules() -> list[str]:
    """Every module of this folder, by name: where the kinds are declared (found, not listed)."""
    return sorted(f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__))


KINDS.modules = kind_modules  # the registry imports one when a kind of it is asked for, or all of them

__all__ = ["KINDS", "Combining", "RetrieverKind"]
