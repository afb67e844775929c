"""Channel kinds: retrievers that rank by themselves from an index (dense vectors, BM25)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...settings import SettingsError, settings_from_dict
from ...text.expand import ExpansionSettings
from ..ranking import Retriever
from .base import RetrieverKind, kind_of


@dataclass(frozen=True)
class DenseSettings:
    embedder: str = "hashing"  # whose vectors (embedders: {name: ...})


class Dense(RetrieverKind):
    """Cosine over an embedder's chunk vectors; queries embedded by the same embedder."""
    type, Settings = "dense", DenseSettings

    def embedder(self) -> str:
        return self.s.embedder

    def open(self, sources) -> Retriever:
        return sources.dense(self.s.embedder)

    def describe(self, cc) -> str:
        return f"dense, {self.s.embedder}"


@dataclass(frozen=True)
class BM25KindSettings:
    index: str = "plain"                                 # which index (bm25: {name: ...})
    expand: ExpansionSettings = ExpansionSettings()      # query expansion from the lexicon stage (text/expand.py)


class BM25(RetrieverKind):
    """A BM25 index of the corpus's chunks."""
    type, Settings = "bm25", BM25KindSettings

    def index(self) -> str:
        return self.s.index

    def check(self, name, cc, where) -> None:
        super().check(name, cc, where)
        if self.s.expand.enabled() and cc_bm25(cc, self.s.index).analyzer.char_ngrams:
            raise SettingsError(f"{where}.expand: index {self.s.index!r} holds character n-grams; "
                                "query expansion needs an index of words")

    def open(self, sources) -> Retriever:
        return sources.bm25(self.s.index, self.s.expand)

    def describe(self, cc) -> str:
        return cc_bm25(cc, self.s.index).describe() + self.s.expand.describe()

    # (mechanism, index setting, its value without the mechanism)
    INDEX_MECHANISMS: ClassVar[tuple[tuple[str, str, Any], ...]] = (
        ("title field", "title_weight", 0.0), ("context", "with_context", False), ("children", "items", "chunks"))

    def controls(self, name, cc) -> list[tuple[str, str]]:
        """Each mechanism is set against a BM25 run that differs only by lacking it: an index
        without the title field, the context or the children (units), or a query not expanded."""
        mine, spec = cc["bm25"][self.s.index], cc["retrievers"][name]
        out = []
        for mechanism, key, off in self.INDEX_MECHANISMS:
            if mine.get(key) != off:
                without = {**mine, key: off}
                out += [(mechanism, other) for other, o in cc["retrievers"].items()
                        if o["type"] == self.type and cc["bm25"][o["index"]] == without
                        and o.get("expand") == spec.get("expand")]
        if self.s.expand.enabled():
            out += [("expansion" + self.s.expand.describe().removeprefix(", expanded"), other)
                    for other, o in cc["retrievers"].items()
                    if o["type"] == self.type and o["index"] == self.s.index and not kind_of(cc, other).expansion().enabled()]
        return out


def cc_bm25(cc, index: str):
    from ...index.bm25 import BM25Settings
    return settings_from_dict(BM25Settings, cc["bm25"][index], f"bm25.{index}")
