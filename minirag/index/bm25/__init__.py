"""BM25 over chunks: the index, its postings, the exact top-k searches, its variants and shards.

    index.py       `BM25Index`, `BM25Params`: build an index of items, save it, search it
    postings.py    the postings an index is scored from, counted before any collection statistic
    candidates.py  scoring candidates without a pass over every item (the pruned search's primitives)
    search.py      exact top-k for one query that skips postings (MaxScore over candidate sets)
    batch.py       exact top-k for a batch of queries at once, on flat arrays
    variants.py    the scoring variants, one small function each with its formula
    shards.py      shards' postings counted alone, merged into the one index

What it leaves out: analysing text into terms (text/analyze.py) and fusing rankings (rank/).
"""
