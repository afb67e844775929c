"""Fusion kinds: a ranking made from the runs named in `of` (Reciprocal Rank Fusion, a linear mix)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...settings import SettingsError, setting
from ..fusion import linear_fusion, reciprocal_rank_fusion
from ..ranking import Ranking
from .base import RetrieverKind


class Fusion(RetrieverKind):
    """A kind that combines the runs named in its `of` setting."""
    family, upstream_key = "fusion", "of"

    def upstream(self) -> list[str]:
        return list(self.s.of)


@dataclass(frozen=True)
class RRFSettings:
    of: tuple[str, ...] = setting(min_items=2)  # the retrievers whose runs are fused
    k: int = setting(60, minimum=1)             # the constant of Cormack et al. 2009


class RRF(Fusion):
    """Reciprocal Rank Fusion of the runs in `of`, each contributing its top max(depth, 20)."""
    type, Settings, sweepable = "rrf", RRFSettings, ("k",)

    def combine(self, query, rankings, sources, depth) -> Ranking:
        n = max(depth, 20)
        return reciprocal_rank_fusion([r[:n] for r in rankings], self.s.k, top_k=depth)

    def describe(self, cc) -> str:
        return f"RRF k={self.s.k} of {' + '.join(self.s.of)}"


@dataclass(frozen=True)
class LinearSettings:
    of: tuple[str, ...] = setting(min_items=2)           # the retrievers whose scores are fused
    alpha: float = setting(0.6, minimum=0, maximum=1)    # weight of the first of `of` (the seed's 0.6 dense); 1 - alpha the second
    norm: Literal["minmax", "zscore"] = "minmax"         # how each ranking's scores are normalised first
    weights: tuple[float, ...] = ()                      # one weight per run of `of`, instead of alpha

    def check(self, where: str) -> None:
        if self.weights and len(self.weights) != len(self.of):
            raise SettingsError(f"{where}.weights: one weight per retriever in 'of' ({len(self.of)})")
        if not self.weights and len(self.of) != 2:
            raise SettingsError(f"{where}.weights: alpha weighs two runs; give one weight per retriever in 'of'")

    def resolved_weights(self) -> list[float]:
        return list(self.weights) or [self.alpha, 1.0 - self.alpha]


class Linear(Fusion):
    """A weighted sum of normalised scores of the runs in `of` (the seed write-up's hybrid)."""
    type, Settings, sweepable = "linear", LinearSettings, ("alpha",)

    def combine(self, query, rankings, sources, depth) -> Ranking:
        return linear_fusion(rankings, self.s.resolved_weights(), norm=self.s.norm, top_k=depth)

    def describe(self, cc) -> str:
        weights = list(self.s.weights) or [self.s.alpha, round(1 - self.s.alpha, 6)]
        return f"linear {self.s.norm} {'/'.join(f'{w:g}' for w in weights)} of {' + '.join(self.s.of)}"
