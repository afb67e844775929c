"""A corpus's checked config as one typed tree: the object the graph, the report and the server hold.

`checked_corpus` (corpus.py) builds it from parts it parsed once (`Corpus.typed`); `Corpus.of(cc)` types
the dict `corpus_config` returns (checked, defaults filled), as a stage whose settings carry a corpus's
config does. The single-valued
sections are the `CorpusSettings` dataclasses (`corpus.source`, `corpus.chunk`, `corpus.candidates`,
...), the BM25 indexes their `BM25Settings` (`corpus.bm25["plain"]`), every retriever, embedder and
reader its kind (`corpus.retrievers["hybrid"].upstream()`), and the few questions the graph, the
report and the server all ask of a corpus are its methods (`answered()`, `langs`, `sweep_groups()`,
...). The dict stays, read-only, as `config`: the one serialised form, which Snakemake params,
receipts and the report's config echo are made of.

    corpus = checked_corpus(config, "kb")
    corpus.chunk.target_tokens                                      # 150
    [r for r, kind in corpus.retrievers.items() if kind.trained]   # the rerankers

What it leaves out: checking (corpus.py does, before) and a stage's serialised settings, which its
spec takes from the tree (`settings_to_dict`, a kind's `spec()`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from types import MappingProxyType
from typing import Any, Mapping

from ..answer.readers import Reader
from ..domain import of_corpus
from ..index.bm25.index import BM25Settings
from ..index.embedders import EmbedderKind
from ..rank.kinds import RetrieverKind
from ..settings import read_only, settings_from_dict, settings_to_dict, type_hints
from ..text.corpus import FOLDERS, SourceSettings
from .sections import CorpusSettings


def source_langs(source: SourceSettings) -> tuple[str, ...]:
    """The languages of a corpus's documents: `source.langs`, else its `default_lang`, else none said."""
    return tuple(source.langs) or ((source.default_lang,) if source.default_lang else ())


@dataclass(frozen=True)
class Corpus(CorpusSettings):
    """A checked corpus config: its sections typed, and each index's settings and each kind by name."""
    # keyword-only: they follow the sections, which all have defaults
    bm25: Mapping[str, BM25Settings] = field(kw_only=True)    # by config name, in config order
    retrievers: Mapping[str, RetrieverKind] = field(kw_only=True)
    embedders: Mapping[str, EmbedderKind] = field(kw_only=True)
    readers: Mapping[str, type[Reader]] = field(kw_only=True)
    reader_settings: Mapping[str, Any] = field(kw_only=True)  # each reader's settings dataclass
    swept: Mapping[str, tuple[str, str]] = field(kw_only=True)  # a sweep point: (the retriever swept, its parameter)
    config: Mapping[str, Any] = field(kw_only=True)           # the checked dict, read-only: what is serialised

    @classmethod
    def of(cls, cc: Mapping[str, Any]) -> "Corpus":
        """The checked dict typed, as a stage whose settings carry a corpus's config reads it back."""
        hints = type_hints(CorpusSettings)  # a section's unread keys left out, as corpus_config was given it
        sections = settings_from_dict(CorpusSettings, {f.name: read_only(hints[f.name], cc[f.name])
                                                       if is_dataclass(hints[f.name]) else cc[f.name]
                                                       for f in fields(CorpusSettings)}, "corpus")
        return cls.typed(sections,
                         bm25={i: settings_from_dict(BM25Settings, s, f"bm25.{i}") for i, s in cc["bm25"].items()},
                         embedders={e: EmbedderKind.from_spec(s, f"embedders.{e}") for e, s in cc["embedders"].items()},
                         retrievers={r: RetrieverKind.from_spec(s, f"retrievers.{r}")
                                     for r, s in cc["retrievers"].items()},
                         readers={r: Reader.settings_of(s, f"readers.{r}") for r, s in cc["readers"].items()},
                         swept={r: (s["sweep_of"], s["sweep_param"])
                                for r, s in cc["retrievers"].items() if "sweep_of" in s})

    @classmethod
    def typed(cls, sections: CorpusSettings, *, bm25: Mapping[str, BM25Settings],
              embedders: Mapping[str, EmbedderKind], retrievers: Mapping[str, RetrieverKind],
              readers: Mapping[str, tuple[type[Reader], Any]], swept: Mapping[str, tuple[str, str]]) -> "Corpus":
        """The tree of parsed parts, each parsed once; `config` is serialised from them (config order)."""
        for name, kind in retrievers.items():
            kind.name = name
        config = {**settings_to_dict(sections),
                  "embedders": {e: kind.spec() for e, kind in embedders.items()},
                  "bm25": {i: settings_to_dict(s) for i, s in bm25.items()},
                  "retrievers": {r: {**kind.spec(), **({"sweep_of": swept[r][0], "sweep_param": swept[r][1]}
                                                       if r in swept else {})} for r, kind in retrievers.items()},
                  "readers": {r: {"type": kind.type, **settings_to_dict(s)} for r, (kind, s) in readers.items()}}
        corpus = cls(**{f.name: getattr(sections, f.name) for f in fields(CorpusSettings)},
                     bm25=MappingProxyType(dict(bm25)), retrievers=MappingProxyType(dict(retrievers)),
                     embedders=MappingProxyType(dict(embedders)),
                     readers=MappingProxyType({r: kind for r, (kind, _) in readers.items()}),
                     reader_settings=MappingProxyType({r: s for r, (_, s) in readers.items()}),
                     swept=MappingProxyType(dict(swept)), config=MappingProxyType(config))
        for kind in retrievers.values():  # what a kind ranks with beyond its settings (a feedback run's reader)
            kind.bind(kind.config_reads(corpus))
        return corpus

    def reader_spec(self, name: str) -> dict[str, Any]:
        """A reader's config entry, serialised: its type and settings."""
        return {"type": self.readers[name].type, **settings_to_dict(self.reader_settings[name])}

    @property
    def langs(self) -> tuple[str, ...]:
        return source_langs(self.source)

    def main_retrievers(self) -> list[str]:
        """Every retriever but sweep points."""
        return [r for r in self.retrievers if r not in self.swept]

    def base_retrievers(self) -> list[str]:
        """Retrievers that rank by themselves (channels): the inputs of every fusion."""
        return [r for r, kind in self.retrievers.items() if kind.ranks_alone()]

    def has_answers(self) -> bool:
        """Whether the corpus's questions carry answers for a reader to be scored on."""
        src = self.source
        return src.format == "squad" or (src.format in FOLDERS and src.questions_format == "minirag")

    def answered(self) -> list[str]:
        """Retrievers whose runs go through prompt and every reader, in config order: the corpus's
        `answer` list ("*": all but sweep points), none where the questions carry no answers."""
        if not self.has_answers():
            return []
        return self.main_retrievers() if "*" in self.answer else [r for r in self.retrievers if r in self.answer]

    def selector_reader(self) -> str | None:
        """The reader whose trained answer selector scores every answered run's candidates: the corpus's
        first trained reader that selects (`extractive`); None: no run is answered, or no reader selects
        (no candidates, prompts as the seed builds them). The graph and a built corpus both ask here."""
        if not self.answered():
            return None
        return next((r for r, kind in self.readers.items() if kind.trained and kind.selects), None)

    def domain_files(self) -> dict:
        """The files the corpus's domain reads besides the chunks (minirag/domain.py "reader.files": the
        grammar's terms file and word lists); none for the generic core."""
        d = of_corpus(self.domain)
        return d.hook("reader.files")(self) if d is not None and "reader.files" in d.hooks else {}

    def terms_file(self) -> str:
        """The domain's terms file (the grammar's: candidates.terms, else the one it ships)."""
        return self.domain_files()["terms"]

    def sweep_groups(self) -> dict[tuple[str, str], list[str]]:
        """(swept retriever, parameter) -> the retrievers of its points, in config order."""
        groups: dict[tuple[str, str], list[str]] = {}
        for name, swept in self.swept.items():
            groups.setdefault(swept, []).append(name)
        return groups

    def swept_value(self, retriever: str, param: str) -> Any:
        """The value of `param` a retriever ranks with, as its config entry says it (a sweep point's)."""
        return settings_to_dict(self.retrievers[retriever].s)[param]

    def ivf_indexes(self) -> dict[str, dict]:
        """Every IVF index the retrievers search, by name: its embedder and build settings, in config order."""
        out: dict[str, dict] = {}
        for kind in self.retrievers.values():
            if kind.ivf_index():
                out.setdefault(kind.ivf_index(), {"embedder": kind.embedder(), **kind.s.build_settings()})
        return out

    def feeding(self, name: str) -> list[str]:
        """Every retriever whose ranking goes into `name`'s, transitively, in config order."""
        found: set[str] = set()
        todo = list(self.retrievers[name].upstream())
        while todo:
            r = todo.pop()
            if r not in found:
                found.add(r)
                todo += self.retrievers[r].upstream()
        return [r for r in self.retrievers if r in found]

    def inputs_of(self) -> dict[str, list[str]]:
        """Each retriever's input runs (none for a channel)."""
        return {n: kind.upstream() for n, kind in self.retrievers.items()}
