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
from typing import Any, Iterable, Iterator, Mapping

from ..artifacts.integrity import iter_records
from ..artifacts.io import sha256_text


@dataclass(frozen=True, slots=True)
class Chunk:
    """A slice of a document's text, as chunks.jsonl holds it."""
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


def iter_chunks(path: str | Path, docs: str | Path | None = None) -> Iterator[Chunk]:
    """chunks.jsonl one Chunk at a time, checked against its receipt and, given docs.jsonl, each
    chunk checked to be the exact slice of its document it claims to be (ValueError naming the
    chunk otherwise). Memory: one chunk and one document at a time (DocumentTexts)."""
    records = iter_records(path, "chunks")  # checked first: a missing chunks file is the one to name
    texts = DocumentTexts(docs) if docs is not None else None
    for i, rec in enumerate(records, start=1):
        c = Chunk.from_record(rec)
        if texts is not None:
            check_slice(c, texts.get(c.doc_id), path, i)
        yield c


def load_chunks(path: str | Path, docs: str | Path | None = None) -> list[Chunk]:
    """`iter_chunks` as a list."""
    return list(iter_chunks(path, docs))


class DocumentTexts:
    """Documents' texts by id, read from docs.jsonl in step with a chunks file.

    Chunks come in their documents' order (chunk and merge_chunks write them so), so walking
    docs.jsonl forward holds one document at a time. A chunk whose document is not ahead (a
    file in another order, or a document that is not there) makes it read every document into
    a dict once: the answer is the same, only the memory is not."""

    def __init__(self, docs: str | Path):
        self.docs = docs
        self._ahead = iter_records(docs, "documents")
        self._current: tuple[str, str] | None = None
        self._all: dict[str, str] | None = None

    def get(self, doc_id: str) -> str | None:
        if self._all is not None:
            return self._all.get(doc_id)
        if self._current is not None and self._current[0] == doc_id:
            return self._current[1]
        for d in self._ahead:
            self._current = (d["doc_id"], d["text"])
            if d["doc_id"] == doc_id:
                return d["text"]
        self._all = {d["doc_id"]: d["text"] for d in iter_records(self.docs, "documents")}
        return self._all.get(doc_id)


def check_slice(c: Chunk, doc: str | None, where: str | Path, line: int) -> None:
    """A chunk (or unit: metadata "parent") is the slice of its document (text `doc`) it claims to be."""
    start, end = c.metadata.get("char_start"), c.metadata.get("char_end")
    if doc is None:
        raise ValueError(f"{where}:{line}: chunk {c.id} comes from {c.doc_id!r}, which is not in docs.jsonl")
    own_id = c.id == chunk_id(c.doc_id, c.offset) or "parent" in c.metadata
    if c.offset != start or doc[start:end] != c.text or not own_id:
        raise ValueError(f"{where}:{line}: chunk {c.id} is not the slice [{start}:{end}] of {c.doc_id} it "
                         "claims to be; re-run chunk")


def check_slices(chunks: Iterable[Chunk], texts: Mapping[str, str], where: str | Path) -> None:
    """Each chunk (or unit) is the slice of its document it claims to be; `texts`: doc id -> text."""
    for i, c in enumerate(chunks, start=1):
        check_slice(c, texts.get(c.doc_id), where, i)


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
