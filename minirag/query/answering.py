"""A reader answering over a ranking, for a retriever kind that ranks by an answer (the `feedback` kind).

    answer_over(sources, "extractive", spec, query, ranked_ids, depth=20, prompt={...}) -> Answer

`Sources.answer` and `Sources.answerer` hand these to the kind by this module's name, imported when a kind
first asks: the code of a retrieve job is the modules it runs (pipeline/depends.py), and only a kind that
answers runs the answer stack, so it names this module (`RetrieverKind.runs_also`) and no other job lists it.

What it leaves out: ranking (the kinds) and the `answer` command's own path (answer/rag.py, built_corpus.py).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Mapping

from ..answer.rag import prompt_keywords, rag_answer
from ..answer.readers import make_reader
from ..answer.select.selector import load_selector


def answer_over(sources, reader: str, spec: dict, query: str, ranked: list[str], depth: int, prompt: Mapping):
    """The extractive reader `reader`'s answer to `query` over these ranked chunk ids, as `answer` gives it
    (answer/rag.py `rag_answer`, this ranking for a retriever's): its selector reads the top `depth`, the
    prompt is built as the corpus's `prompt` settings say (k, answers, template, evidence); the selector and
    reader (`spec`: its config entry) are loaded once."""
    selector, rd = answerer(sources, reader, spec, depth)
    run = [(cid, 0.0) for cid in ranked]
    given = SimpleNamespace(search=lambda _query, k: run[:k])
    return rag_answer(query, given, rd, sources.chunks_by_id, k=prompt["k"], selector=selector, langs=sources.langs,
                      **prompt_keywords(prompt))[2]


def answerer(sources, reader: str, spec: dict, depth: int):
    """(answer selector reading the top `depth` chunks, extractive reader) of the trained reader `reader`,
    checked against their receipts, loaded once per sources."""
    def load():
        model = sources.path("reader", reader, "weights of reader")
        files = {"docs": sources.docs, **({"chunks": sources.given("chunks")} if sources.given("chunks") else {})}
        grammar = sources.given("lexicon") is not None  # a grammar corpus's selector reads its lexicon and terms
        selector = load_selector(model, sources.chunks, sources.langs,
                                 sources.file("lexicon", "lexicon") if grammar else None,
                                 sources.file("terms", "terms file") if grammar else None, depth, files)
        return selector, make_reader(spec, str(model))
    return sources.cached(("answerer", reader, depth), load)
