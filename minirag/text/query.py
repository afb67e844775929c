"""A query as every entry point takes it: NFC text, without control characters or lone surrogates.

Documents and questions are NFC-normalised when they are curated (corpus.py), so a query is
too: the same question typed in NFD (a decomposed "é", as macOS file names and some input
methods give it) must rank as its NFC form does, also on a retriever whose tokens are bytes
(the bi-encoder's BPE). `query_text` is the one check of the CLI, the HTTP service and the
seed API (rag_answer); the retrievers' `search` applies `nfc` to whatever they are given.

A lone surrogate is what a JSON escape such as "\\ud800", or a command-line argument that is
not UTF-8, becomes: it is not text (UTF-8 cannot hold it), so it is refused, not guessed at.
Tab and line breaks are allowed (a pasted question).

A query that shows nothing is empty: whitespace, and format characters (category Cf: zero-width
spaces and joiners, bidirectional marks, a BOM), which str.isspace() does not count as space but
which print nothing (`shows_nothing`; built.check_query refuses it).

What it leaves out: length, which the caller's limits decide (built.check_query).
"""

from __future__ import annotations

import unicodedata

from .corpus import text_problem


class QueryError(ValueError):
    """A query that is not text; the message says what is in it and where."""


def nfc(query: str) -> str:
    return query if unicodedata.is_normalized("NFC", query) else unicodedata.normalize("NFC", query)


def query_text(query: object) -> str:
    """`query` in NFC; QueryError for a value that is not a string or holds what text cannot."""
    if not isinstance(query, str):
        raise QueryError(f"expected a string, got {type(query).__name__}")
    problem = text_problem(query)
    if problem:
        hint = " (an argument that is not UTF-8?)" if "surrogate" in problem else ""
        raise QueryError(f"holds {problem}{hint}; a query is text")
    return nfc(query)


def shows_nothing(query: str) -> bool:
    """True for a query of only whitespace and format characters: '', '  ', '\u200b\u2060\ufeff'."""
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in query)
