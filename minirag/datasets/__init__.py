"""Corpora that are not a folder of markdown: BEIR sets, a synthetic corpus, a replicated one.

    beir.py              reading a BEIR dataset (corpus, queries, qrels) in place
    synth_corpus.py      a seeded synthetic BEIR corpus of any size (Zipfian words, seeded topics)
    zipf.py              Zipf's law: probabilities, a fitted exponent, a sampling CDF
    replicate_corpus.py  a real BEIR corpus copied to any size with fresh ids and seeded perturbation

What it leaves out: chunking and indexing them (text/, index/), which treat every corpus alike.
"""
