"""Indexes over chunks: BM25, the hashing and MiniBiEncoder embedders, vectors on disk, the flat store."""
