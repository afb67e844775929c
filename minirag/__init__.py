"""minirag: a retrieval-augmented generation pipeline written by hand on numpy.

Each stage of the pipeline is a module with one job (curate, bpe, chunk, embed,
bm25, retrieve, prompt, reader, evaluate, report); `python -m minirag <stage>` runs
one stage on files, and the Snakemake graph in `workflow/` wires the stages together.
"""

__version__ = "0.1.0"
