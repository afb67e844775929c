"""The chunks of a corpus that state an attribute: a value in its unit where the attribute is named.

    index = StatingIndex(chunks)
    index.beyond({"weight"}, {"kettl", "heavy"}, shown_ids, k=3) -> [the Technical data chunk]

A user asks "How heavy is the kettle?"; the page says "| Weight | 1.2 kg |" and never "kettle" or
"heavy", so a lexical retriever may not bring it. When a question asks for an attribute in its own words
(attributes.py), the selector also reads the `k` chunks beyond the run that state it, those sharing most
of the question's words first. Each attribute's chunks are found once, on the first question asking it.

What it leaves out: ranking them as a retriever would (the run's chunks keep their ranks; these follow).
"""

from __future__ import annotations

from ...text.chunks import Chunk
from ...text.structure import reading_lines
from .attributes import named, with_unit
from .generic import content_stems


class StatingIndex:
    def __init__(self, chunks: list[Chunk]):
        self.chunks = chunks
        self._stems: list[set[str]] | None = None
        self._stated: list[frozenset[str]] | None = None  # per chunk, the attributes a line of it states
        self._by_attr: dict[str, list[int]] = {}

    def stating(self, attr: str) -> list[int]:
        """Indices of the chunks where a line names `attr` and states a value in its unit."""
        if self._stated is None:  # every attribute in one pass: named() and with_unit() find them all at once
            self._stated = [frozenset().union(*(named(line) & with_unit(line) for line in reading_lines(c.text)))
                            for c in self.chunks]
        if attr not in self._by_attr:
            self._by_attr[attr] = [i for i, stated in enumerate(self._stated) if attr in stated]
        return self._by_attr[attr]

    def beyond(self, attrs: frozenset[str], stems: set[str], shown: set[str], k: int) -> list[Chunk]:
        """Up to `k` chunks not `shown` (ids) stating one of `attrs`, most question stems shared first."""
        found = sorted({i for a in sorted(attrs) for i in self.stating(a) if self.chunks[i].id not in shown})
        if not found:
            return []
        if self._stems is None:
            self._stems = [set(content_stems(c.text)) for c in self.chunks]
        found.sort(key=lambda i: -len(self._stems[i] & stems))  # stable: corpus order breaks ties
        return [self.chunks[i] for i in found[:k]]
