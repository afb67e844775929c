"""Small builders shared by the unit tests."""

from minirag.text.chunks import Chunk, chunk_id


def make_chunk(text, doc="d.md", offset=0, title="", section=""):
    return Chunk(id=chunk_id(doc, offset), text=text, doc_id=doc, offset=offset,
                 metadata={"title": title, "section": section, "char_start": offset, "char_end": offset + len(text)})
