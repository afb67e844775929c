"""BM25 scoring variants: each one small function with its formula and its source.

A variant maps (document frequencies, term frequencies, document lengths, N, avgdl, k1, b)
to (idf per term (V,), tf part per posting (P,)); the index stores idf * tf part. The
variants are chosen by `BM25Params.variant` (bm25.py); `lucene_norm_length` is the
optional quantisation of document lengths Pyserini's indexes use.

What it leaves out: building and searching the index (bm25.py).
"""

from __future__ import annotations

import numpy as np


def lucene(df, tf, dl, n_items, avgdl, k1, b):
    """Lucene's BM25Similarity since 8.0 (also Anserini/Pyserini and bm25s "lucene").

    idf = log(1 + (N - df + 0.5) / (df + 0.5))            never negative
    tf  = f / (f + k1 (1 - b + b |D| / avgdl))
    Lucene 8 dropped the constant (k1 + 1) numerator of the classic formula (the seed keeps it):
    a constant factor that leaves rankings unchanged; this index follows Lucene, without it.
    Returns (idf per term (V,), tf part per posting (P,)).
    """
    idf = np.log1p((n_items - df + 0.5) / (df + 0.5))
    return idf, tf / (tf + k1 * (1 - b + b * dl / avgdl))


def robertson(df, tf, dl, n_items, avgdl, k1, b):
    """Robertson & Spärck Jones IDF with the classic tf (Robertson et al., TREC-3 Okapi, 1994).

    idf = log((N - df + 0.5) / (df + 0.5))
    tf  = f (k1 + 1) / (f + k1 (1 - b + b |D| / avgdl))
    The IDF goes negative for terms in more than half the items, which would make a match
    count against an item. Choice: floor negative values at epsilon * mean IDF, epsilon = 0.25,
    the mean over all body terms before flooring -- exactly what rank_bm25 0.2.2's BM25Okapi
    does, so this variant reproduces BM25Okapi's scores. Terms in no body (title-only) have
    df = 0 and are left out of the mean, as they are absent from BM25Okapi's vocabulary.
    """
    idf = np.log((n_items - df + 0.5) / (df + 0.5))
    in_body = df > 0
    if in_body.any():
        floor = 0.25 * idf[in_body].mean()
        idf = np.where(idf < 0, floor, idf)
    return idf, tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))


def atire(df, tf, dl, n_items, avgdl, k1, b):
    """ATIRE's BM25 (Trotman, Puurula & Burgess, "Improvements to BM25 and language models
    examined", ADCS 2014; bm25s "atire").

    idf = log(N / df)                                       never negative for df >= 1
    tf  = f (k1 + 1) / (f + k1 (1 - b + b |D| / avgdl))
    Note: rank_bm25's BM25Okapi calls itself ATIRE in a docstring but computes the Robertson
    IDF with an epsilon floor; that formula is the `robertson` variant here. A title-only term
    (df = 0) would get an infinite IDF; it is given df = 1.
    """
    idf = np.log(n_items / np.maximum(df, 1))
    return idf, tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))


VARIANTS = {"lucene": lucene, "robertson": robertson, "atire": atire}


def lucene_norm_length(dl: np.ndarray) -> np.ndarray:
    """|D| as Lucene keeps it: one byte per document (SmallFloat.intToByte4, Lucene 7+).

    Lengths below 24 are exact; above, 24 + x keeps the 4 leading bits of x = |D| - 24,
    rounded down (|D| = 100 -> 96, 300 -> 280). Pyserini's published BEIR figures come from
    indexes stored this way; avgdl stays exact (Lucene divides the exact token total).
    """
    x = np.maximum(np.asarray(dl, dtype=np.int64) - 24, 0)
    shift = np.maximum(np.frexp(x.astype(np.float64))[1] - 4, 0)  # frexp's exponent = bit length
    return np.where(dl < 24, dl, 24 + ((x >> shift) << shift))
