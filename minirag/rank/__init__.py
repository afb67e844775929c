"""Ranking: retrievers over indexes, fusions and diversifiers over rankings, and the registry of kinds."""
