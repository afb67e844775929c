"""A built corpus asked questions: what `minirag search`/`answer` and the HTTP service run.

    sources.py       built artifacts back into retrievers, each checked against its receipt
    built_corpus.py  `BuiltCorpus`: a corpus's config, chunks, retrievers and readers, opened on demand

What it leaves out: building anything (stages/), the command line (cli.py) and HTTP (serve/).
"""
