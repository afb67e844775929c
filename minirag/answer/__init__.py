"""Answering: the prompt augmenter, the readers, and the seed's four-line call site."""
