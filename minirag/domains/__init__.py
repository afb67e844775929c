"""The domains: each a package that fills the core's extension points for one kind of corpus.

    grammar/   the English/Spanish grammar the embedded knowledge base is about

A corpus switches one on with its `domain` key; the core finds it by that name (minirag/domain.py) and
never imports it. A second domain is a second package here with a `Domain` in its `__init__.py`
(docs/architecture.md shows how).
"""
