"""The grammar's stages, run as `python -m minirag.domains.grammar.stages.<stage>`: lexicon."""
