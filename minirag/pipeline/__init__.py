"""The build graph as Python: what the Snakemake rules are made of, before any job runs.

    stage.py          `Stage`: one stage declared once (phase, per, jobs, reads, writes and the kinds it makes,
                      settings, size, argv); each stage module of minirag/stages/ declares its own
    jobs.py           what the specs share: a stage's jobs (once, per name, per shard) and common reads
    stages/           every stage's spec found, in graph order, and the stage table (`python -m minirag.pipeline.stages`)
    artifact_table.py artifacts/kinds.py, generated from the specs' declared kinds
    slurm_profile.py  the SLURM profile, generated from the specs' sizes
    graph.py          `CorpusGraph`: what a corpus's jobs read, which kinds it uses, its jobs and artifacts
    kind_files.py     where each kind's files are, by the keys kinds read them by (the graph's and a server's)
    given.py          `Given`: files a job reads and the one path its command line gets for them
    graph_scale.py    the shard and training-sample part of the graph (`shards: N`, `train_cap`)
    graph_answers.py  the answering part of the graph: candidates, prompts, readers
    shards.py         which shard a document belongs to, and the seeded training sample
    depends.py        which minirag source files a stage executes (its rule's code inputs)

What it leaves out: any one stage and computing anything (minirag/stages/: one module per stage, its
function and its spec).
"""
