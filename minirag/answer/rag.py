"""The seed's call site: retrieve, build the prompt, let the reader answer.

    ranked = retriever.search(query, k=k)
    prompt = build_prompt(query, [chunks[cid] for cid, _ in ranked])
    answer = reader.generate(prompt)

Every intermediate value is returned, so a learner can print each one.

What it leaves out: loading a built corpus (live.py) and choosing the retriever or reader.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ..rank.ranking import Ranking, Retriever
from ..text.chunks import Chunk
from ..text.query import query_text
from .prompt import Prompt, build_prompt
from .readers import Answer, Reader


def rag_answer(query: str, retriever: Retriever, reader: Reader,
               chunks: Mapping[str, Chunk] | Sequence[Chunk], k: int = 3, **prompt_options) -> tuple[Ranking, Prompt, Answer]:
    """Answer `query` from the top k chunks; `chunks` maps ids to chunks (or lists them);
    `prompt_options` go to build_prompt (template, evidence_lines, evidence_chars)."""
    query = query_text(query)  # NFC, as the documents are; not text: QueryError
    by_id = chunks if isinstance(chunks, Mapping) else {c.id: c for c in chunks}
    ranked = retriever.search(query, k=k)
    prompt = build_prompt(query, [by_id[cid] for cid, _ in ranked], **prompt_options)
    answer = reader.generate(prompt)
    return ranked, prompt, answer
