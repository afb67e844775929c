"""Small units of each chunk, for small-to-big retrieval: table rows, list items, sentences.

A 150-token chunk cut from a verb table holds thirty rows; a question about one verb is
about one row. `chunk_units` cuts each chunk into units (DocumentStructure.units): a table
row, a list item, a sentence, each an exact slice of its document like a chunk, with the
chunk's id as its parent and the chunk's context, plus, for a row, its table's header, so
`| begin | began | begun |` is indexed as "Irregular verbs › Table of common irregular
verbs / | Base form | Past simple | Past participle | / | begin | began | begun |". A
retriever over units ranks a chunk by its best unit and returns chunks, so prompts keep
whole chunks.

What it leaves out: scoring (rank/retrievers.py ranks chunks by their best unit) and units
that cross chunk boundaries (a unit belongs to each chunk that holds all of it).
"""

from __future__ import annotations

from ..artifacts.io import sha256_text
from .chunks import Chunk
from .structure import DocumentStructure


def unit_id(chunk_id: str, start: int) -> str:
    return sha256_text(f"{chunk_id}:{start}")[:12]


def chunk_units(chunks: list[Chunk], docs: dict[str, dict]) -> list[Chunk]:
    """Every unit of every chunk, in chunk order, as Chunk records (metadata: parent, kind, context)."""
    out = []
    structures: dict[str, DocumentStructure] = {}
    for c in chunks:
        doc = docs[c.doc_id]
        s = structures.setdefault(c.doc_id, DocumentStructure(doc["text"]))
        start, end = c.metadata["char_start"], c.metadata["char_end"]
        # the context's first line is the title › heading path, unless it has none and
        # starts with a table header (a title-less chunk cut from a table)
        first = c.context.split("\n")[0] if c.context else ""
        path = c.title if not first or first.lstrip().startswith("|") else first
        for u in s.units(start, end):
            context = "\n".join(x for x in (path, u.header) if x)
            out.append(Chunk(id=unit_id(c.id, u.start), text=doc["text"][u.start:u.end], doc_id=c.doc_id,
                             offset=u.start, metadata={"title": c.title, "section": s.section_at(u.start),
                                                       "context": context, "char_start": u.start, "char_end": u.end,
                                                       "parent": c.id, "kind": u.kind}))
    return out
