"""What every retriever returns, and the one method every retriever has.

A ranking is a list of (chunk id, score) pairs, best first. A retriever is anything with
`search(query, k) -> Ranking`: a channel over an index, a fusion or diversifier over other
retrievers, or the live loader's wrapper that ranks exactly as a run file does.

What it leaves out: everything else; this module is the shared vocabulary of rank/ and
evaluation/, so neither needs to import the other's modules for a type.
"""

from __future__ import annotations

from typing import Protocol

Ranking = list[tuple[str, float]]


class Retriever(Protocol):
    def search(self, query: str, k: int = 5) -> Ranking: ...
