"""A corpus's checked config, typed once: its retriever, embedder and reader kinds built from it.

`Corpus.of(cc)` takes the dict `corpus_config` returns (checked, defaults filled) and builds
every kind it names once, so the graph, the report and the server ask a kind its roles and
files (`corpus.retrievers["hybrid"].upstream()`) instead of rebuilding it from the dict at
each question. The dict stays, read-only, as `config`: it is what Snakemake params, receipts
and the report serialise.

    corpus = Corpus.of(corpus_config(config, "kb"))
    [r for r, kind in corpus.retrievers.items() if kind.trained]   # the rerankers

What it leaves out: checking (corpus.py does, before), and the plain sections (source, chunk,
prompt, ...), which are read from `config` by the stages that own their dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from ..answer.readers import Reader, reader_kind
from ..index.embedders import EmbedderKind, embedder_kind
from ..rank.kinds import RetrieverKind, kind_of


@dataclass(frozen=True)
class Corpus:
    """A checked corpus config with each retriever's, embedder's and reader's kind."""
    config: Mapping[str, Any]                 # the checked dict, read-only
    retrievers: Mapping[str, RetrieverKind]   # by config name, in config order
    embedders: Mapping[str, EmbedderKind]
    readers: Mapping[str, type[Reader]]

    @classmethod
    def of(cls, cc: Mapping[str, Any]) -> "Corpus":
        return cls(MappingProxyType(cc),
                   MappingProxyType({r: kind_of(cc, r) for r in cc["retrievers"]}),
                   MappingProxyType({e: embedder_kind(cc, e) for e in cc["embedders"]}),
                   MappingProxyType({r: reader_kind(cc, r) for r in cc["readers"]}))
