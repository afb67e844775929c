"""The build graph as Python: what the Snakemake rules ask before any job runs.

    graph.py          `CorpusGraph`: each rule's inputs and flags, the jobs and artifacts of a corpus
    graph_scale.py    the shard and training-sample part of the graph (`shards: N`, `train_cap`)
    graph_answers.py  the answering part of the graph: candidates, prompts, readers
    shards.py         which shard a document belongs to, and the seeded training sample
    depends.py        which minirag source files a stage executes (its rule's code inputs)

What it leaves out: computing anything (stages/ does, one module per rule).
"""
