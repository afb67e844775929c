"""The content check of an answer selector's vocabulary: what train_reader writes in the selector's
sidecar (readers/<name>.json, key `vocabulary`) so that answering reads it instead of rebuilding it.

    {"format": "minirag-vocabulary/1", "keys": [str], "words": [str], "forms": {str: [str]},
     "lexicon": {str: [str]}, "form_concepts": {str: [str]}, "suffix_concepts": {str: [str]},
     "word_langs": {str: {str: int >= 1}}, "built_from": {"docs"|"chunks"|"lexicon"|"terms": sha256}}

`vocabulary_problem(record)` says what is wrong with the first key that is not so (None: nothing);
content.py raises it as a ContentError naming the file.

What it leaves out: building or reading the vocabulary (the grammar domain's select/vocabulary.py).
"""

from __future__ import annotations

import re
from itertools import repeat

FORMAT = "minirag-vocabulary/1"
SHA256 = re.compile(r"[0-9a-f]{64}")


def strings(value) -> bool:
    return isinstance(value, list) and all(map(isinstance, value, repeat(str)))  # map: no Python frame per item


def string_lists(value) -> bool:
    return isinstance(value, dict) and all(map(isinstance, value, repeat(str))) and all(map(strings, value.values()))


def counts(value) -> bool:
    """A mapping of words to counts per language: dicts of integers >= 1 (not booleans)."""
    if not isinstance(value, dict) or not all(map(isinstance, value.values(), repeat(dict))):
        return False
    n = [c for v in value.values() for c in v.values()]
    return all(map(isinstance, n, repeat(int))) and not any(map(isinstance, n, repeat(bool))) and all(c >= 1 for c in n)


def vocabulary_problem(record) -> str | None:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return f"vocabulary: not of format {FORMAT!r}"
    bad = next((k for k in ("keys", "words") if not strings(record.get(k))), None) or next(
        (k for k in ("forms", "lexicon", "form_concepts", "suffix_concepts") if not string_lists(record.get(k))), None)
    if bad:
        return f"vocabulary.{bad}: not a list of strings or a mapping to lists of strings"
    if not counts(record.get("word_langs")):
        return "vocabulary.word_langs: not a mapping of words to counts per language (integers >= 1)"
    built = record.get("built_from")
    # a grammar corpus's vocabulary is built from its lexicon and terms too, a generic one's from neither
    if not isinstance(built, dict) or set(built) not in ({"docs", "chunks"}, {"docs", "chunks", "lexicon", "terms"}) \
            or not all(isinstance(h, str) and SHA256.fullmatch(h) for h in built.values()):
        return "vocabulary.built_from: not the sha256 of its docs and chunks (and lexicon and terms)"
    return None
