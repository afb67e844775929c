"""The seed's call site: retrieve, build the prompt, let the reader answer.

    ranked = retriever.search(query, k=k)
    prompt = build_prompt(query, [chunks[cid] for cid, _ in ranked])
    answer = reader.generate(prompt)

With a trained answer selector (selector.py), its best answers over a deeper list of chunks lead the
prompt's evidence and the extractive reader answers with the best of them.

Every intermediate value is returned, so a learner can print each one.

What it leaves out: loading a built corpus (query/sources.py) and choosing the retriever or reader.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ..rank.ranking import Ranking, Retriever
from ..text.chunks import Chunk
from ..text.query import query_text
from .prompt import Prompt, build_prompt, selected
from .readers import Answer, Reader
from .select.selector import AnswerSelector


def prompt_keywords(prompt: Mapping) -> dict:
    """A corpus's `prompt` settings as `rag_answer`'s keywords beside `k`: every caller answering for the
    corpus (the answer command, a server, a feedback run) builds the same prompt."""
    return {"answers": prompt["answers"], "template": prompt["template"], "evidence_lines": prompt["evidence_lines"],
            "evidence_chars": prompt["evidence_chars"]}


def rag_answer(query: str, retriever: Retriever, reader: Reader, chunks: Mapping[str, Chunk] | Sequence[Chunk],
               k: int = 3, selector: AnswerSelector | None = None, langs: Mapping[str, str] | None = None,
               answers: int = 2, **prompt_options) -> tuple[Ranking, Prompt, Answer]:
    """Answer `query` from the top k chunks; `chunks` maps ids to chunks (or lists them). Given an answer
    `selector`, its best `answers` answers over the top `selector.depth` chunks (`langs`: each document's
    language) lead the evidence. `prompt_options` go to build_prompt (template, evidence_lines, evidence_chars)."""
    query = query_text(query)  # NFC, as the documents are; not text: QueryError
    by_id = chunks if isinstance(chunks, Mapping) else {c.id: c for c in chunks}
    ranked = retriever.search(query, k=max(k, selector.depth) if selector else k)
    top = [by_id[cid] for cid, _ in ranked]
    picked, p_none, why = None, 0.0, ""
    if selector is not None:
        selection = selector.select(query, top, dict(langs or {}))
        picked, p_none, why = selected(selection.answer_records(answers), by_id, answers), selection.p_none, selection.why
    prompt = build_prompt(query, top[:k], answers=picked, p_none=p_none, none_why=why, **prompt_options)
    answer = reader.generate(prompt)
    return ranked[:k], prompt, answer
