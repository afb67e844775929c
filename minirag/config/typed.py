"""A corpus's checked config as one typed tree: the object the graph, the report and the server hold.

`Corpus.of(cc)` takes the dict `corpus_config` returns (checked, defaults filled) and types it once:
the single-valued sections are the `CorpusSettings` dataclasses (`corpus.source`, `corpus.chunk`,
`corpus.candidates`, ...), the BM25 indexes their `BM25Settings` (`corpus.bm25["plain"]`), every
retriever, embedder and reader its kind (`corpus.retrievers["hybrid"].upstream()`), and the few
questions the graph, the report and the server all ask of a corpus are its methods (`answered()`,
`langs`, `sweep_groups()`, ...). The dict stays, read-only, as `config`: the one serialised form,
which Snakemake params, receipts and the report's config echo are made of.

    corpus = Corpus.of(corpus_config(config, "kb"))
    corpus.chunk.target_tokens                                      # 150
    [r for r, kind in corpus.retrievers.items() if kind.trained]   # the rerankers

What it leaves out: checking (corpus.py does, before) and the serialised settings of a stage, which
its spec takes from the tree (`settings_to_dict`) or from `config` where a collection's entry is
serialised whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from types import MappingProxyType
from typing import Any, Mapping

from ..answer.readers import Reader, reader_kind
from ..index.bm25.index import BM25Settings
from ..index.embedders import EmbedderKind, embedder_kind
from ..rank.kinds import RetrieverKind, kind_of
from ..settings import read_only, settings_from_dict, settings_to_dict, type_hints
from . import corpus as checked
from .corpus import CorpusSettings


@dataclass(frozen=True)
class Corpus(CorpusSettings):
    """A checked corpus config: its sections typed, and each index's settings and each kind by name."""
    # keyword-only: they follow the sections, which all have defaults
    bm25: Mapping[str, BM25Settings] = field(kw_only=True)    # by config name, in config order
    retrievers: Mapping[str, RetrieverKind] = field(kw_only=True)
    embedders: Mapping[str, EmbedderKind] = field(kw_only=True)
    readers: Mapping[str, type[Reader]] = field(kw_only=True)
    reader_settings: Mapping[str, Any] = field(kw_only=True)  # each reader's settings dataclass
    config: Mapping[str, Any] = field(kw_only=True)           # the checked dict, read-only: what is serialised

    @classmethod
    def of(cls, cc: Mapping[str, Any]) -> "Corpus":
        hints = type_hints(CorpusSettings)  # a section's unread keys left out, as corpus_config was given it
        sections = settings_from_dict(CorpusSettings, {f.name: read_only(hints[f.name], cc[f.name])
                                                       if is_dataclass(hints[f.name]) else cc[f.name]
                                                       for f in fields(CorpusSettings)}, "corpus")
        return cls(**{f.name: getattr(sections, f.name) for f in fields(CorpusSettings)},
                   bm25=MappingProxyType({i: settings_from_dict(BM25Settings, s, f"bm25.{i}")
                                          for i, s in cc["bm25"].items()}),
                   retrievers=MappingProxyType({r: kind_of(cc, r) for r in cc["retrievers"]}),
                   embedders=MappingProxyType({e: embedder_kind(cc, e) for e in cc["embedders"]}),
                   readers=MappingProxyType({r: reader_kind(cc, r) for r in cc["readers"]}),
                   reader_settings=MappingProxyType({r: Reader.settings_of(s, f"readers.{r}")[1]
                                                     for r, s in cc["readers"].items()}),
                   config=MappingProxyType(cc))

    def reader_spec(self, name: str) -> dict[str, Any]:
        """A reader's config entry, serialised: its type and settings."""
        return {"type": self.readers[name].type, **settings_to_dict(self.reader_settings[name])}

    # the questions every part asks of a corpus (config/corpus.py answers them)
    @property
    def langs(self) -> tuple[str, ...]:
        return checked.corpus_langs(self.config)

    def answered(self) -> list[str]:
        return checked.answered(self.config)

    def main_retrievers(self) -> list[str]:
        return checked.main_retrievers(self.config)

    def base_retrievers(self) -> list[str]:
        return checked.base_retrievers(self.config)

    def selector_reader(self) -> str | None:
        return checked.selector_reader(self.config)

    def domain_files(self) -> dict:
        return checked.domain_files(self.config)

    def terms_file(self) -> str:
        return checked.terms_file(self.config)

    def sweep_groups(self) -> dict[tuple[str, str], list[str]]:
        return checked.sweep_groups(self.config)

    def ivf_indexes(self) -> dict[str, dict]:
        return checked.ivf_indexes(self.config)

    def is_sweep_point(self, retriever: str) -> bool:
        return "sweep_of" in self.config["retrievers"][retriever]

    def swept_value(self, retriever: str, param: str) -> Any:
        """The value of `param` a retriever ranks with (a sweep point's, as its config entry says it)."""
        return self.config["retrievers"][retriever][param]

    def inputs_of(self) -> dict[str, list[str]]:
        """Each retriever's input runs (none for a channel)."""
        return {n: kind.upstream() for n, kind in self.retrievers.items()}
