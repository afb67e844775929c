"""chunks.jsonl: the Chunk record, reading it checked, and the text an index sees of a chunk.

A `Chunk` is an exact slice of its document's text, `doc.text[char_start:char_end]`, with
an id that hashes its document and offset. `load_chunks` is how every stage reads them:
checked against the chunk job's receipt and, given docs.jsonl, each chunk checked to be
the slice it claims to be, so an edited chunk is refused, never indexed. `index_text` is
what the embedders and BM25 index for a chunk.

What it leaves out: cutting documents into chunks (chunk.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..integrity import load_records
from ..io import read_jsonl, sha256_text


@dataclass(frozen=True)
class Chunk:
    id: str  # sha256(doc_id + ':' + offset)[:12], stable across runs and machines
    text: str  # exact slice doc.text[char_start:char_end]
    doc_id: str  # path of the source document relative to the corpus root
    offset: int  # char_start of the chunk in its document
    metadata: dict[str, Any] = field(default_factory=dict)  # title, section, char_start, char_end

    def to_record(self) -> dict:
        return {"id": self.id, "doc_id": self.doc_id, "offset": self.offset,
                "text": self.text, "metadata": self.metadata}

    @classmethod
    def from_record(cls, rec: dict) -> "Chunk":
        return cls(id=rec["id"], text=rec["text"], doc_id=rec["doc_id"],
                   offset=rec["offset"], metadata=rec.get("metadata", {}))

    @property
    def title(self) -> str:
        return self.metadata.get("title", "")

    @property
    def section(self) -> str:
        return self.metadata.get("section", "")

    @property
    def context(self) -> str:
        """Title › heading path, and a table header the chunk's rows lack (structure.py)."""
        return self.metadata.get("context", "")


def read_chunks(path: str | Path) -> list[Chunk]:
    """chunks.jsonl as Chunk objects, unchecked (load_chunks is what stages use)."""
    return [Chunk.from_record(r) for r in read_jsonl(path)]


def load_chunks(path: str | Path, docs: str | Path | None = None) -> list[Chunk]:
    """chunks.jsonl checked against its receipt and, given docs.jsonl, each chunk checked to be
    the exact slice of its document it claims to be (ValueError naming the chunk otherwise)."""
    chunks = [Chunk.from_record(r) for r in load_records(path, "chunks")]
    if docs is not None:
        check_slices(chunks, {d["doc_id"]: d["text"] for d in load_records(docs, "documents")}, path)
    return chunks


def check_slices(chunks: list[Chunk], texts: dict[str, str], where: str | Path) -> None:
    """Each chunk (or unit: metadata "parent") is the slice of its document it claims to be."""
    for i, c in enumerate(chunks, start=1):
        doc = texts.get(c.doc_id)
        start, end = c.metadata.get("char_start"), c.metadata.get("char_end")
        if doc is None:
            raise ValueError(f"{where}:{i}: chunk {c.id} comes from {c.doc_id!r}, which is not in docs.jsonl")
        own_id = c.id == chunk_id(c.doc_id, c.offset) or "parent" in c.metadata
        if c.offset != start or doc[start:end] != c.text or not own_id:
            raise ValueError(f"{where}:{i}: chunk {c.id} is not the slice [{start}:{end}] of {c.doc_id} it "
                             "claims to be; re-run chunk")


def index_text(chunk: Chunk, with_context: bool = True) -> str:
    """The text a stage embeds or indexes for a chunk: its context, then the text.

    The chunk text stays an exact slice of its document; the context (title › heading path,
    and a table header the chunk's rows lack) is added here, where it is used, so a chunk cut
    from the middle of a table still says what its columns are. Chunks written before the
    context existed get their title and section instead.
    """
    if not with_context:
        return chunk.text
    if "context" in chunk.metadata:
        return f"{chunk.context}\n{chunk.text}" if chunk.context else chunk.text
    head = [chunk.title] if chunk.title else []
    if chunk.section and chunk.section != chunk.title:
        head.append(chunk.section)
    return "\n".join(head + [chunk.text])


def chunk_id(doc_id: str, offset: int) -> str:
    return sha256_text(f"{doc_id}:{offset}")[:12]
