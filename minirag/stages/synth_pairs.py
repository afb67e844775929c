"""synth_pairs: docs + chunks (+ lexicon, terms) -> pairs/<name>.jsonl, questions synthesised from the corpus.

One record a question: {"qid", "query", "chunk", "family", "split", "gold", "negative"} (answer/reading/retrieval_questions.py);
`split` "train" feeds the encoder, "heldout" never does. Seeded: the same inputs and settings give the
same bytes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..answer.reading.retrieval_questions import add_hard_negatives, family_terms, synthesize_questions
from ..artifacts.integrity import load_records
from ..artifacts.io import read_json, write_jsonl
from ..index.bm25.index import BM25Index, BM25Params
from ..index.embedders import QuestionSettings
from ..pipeline.jobs import named
from ..pipeline.stage import Out, Size, Stage
from ..settings import settings_from_dict
from ..text.analyze import Analyzer, AnalyzerConfig
from ..text.chunks import index_text, load_chunks
from .common import log, run_stage


def synth_pairs(settings: dict, docs: Path, chunks: Path, out: Path, lexicon: Path | None = None,
                terms: Path | None = None) -> list[Path]:
    """Synthesise the questions of the chunks of `docs` (the corpus or its training sample), each
    with its chunk, its split and (hard_negatives) its best BM25 chunk that does not hold it."""
    s = settings_from_dict(QuestionSettings, {**settings, "repeat": 1}, "questions")
    documents = load_records(docs, "documents")
    wanted = {d["doc_id"] for d in documents}
    items = [c for c in load_chunks(chunks) if c.doc_id in wanted]
    records = [c.to_record() for c in items]
    lex = read_json(lexicon).get("lexicon", {}) if lexicon else None
    grammar = family_terms(s.families, terms, lex)
    questions = synthesize_questions(documents, records, s.families, s.n, s.seed, s.heldout, grammar, lex)
    if s.hard_negatives and questions:
        bm25 = BM25Index.build([index_text(c) for c in items], Analyzer(AnalyzerConfig()), BM25Params())
        questions = add_hard_negatives(questions, records,
                                       lambda qs, k: [idx for idx, _ in bm25.search_batch(qs, k)])
    write_jsonl(out, questions)
    by = dict(sorted(Counter(f"{q['family']} {q['split']}" for q in questions).items()))
    log(f"synth_pairs: {len(questions)} questions ({', '.join(f'{k} {n}' for k, n in by.items())})")
    return [out]


STAGES = (
    # what the synthesiser reads of the encoder's `questions`; `repeat` only retrains the encoder
    Stage("synth_pairs", phase="embed", step=10, names=lambda g: named(g.synthesising()),
          settings=lambda g, w: g.corpus.embedders[w["name"]].s.questions.synthesis(),
          reads=lambda g, w: {"docs": g.training_docs(), "chunks": str(g.layout.chunks), **g.synth_pairs(w["name"])},
          writes={"out": Out("question_pairs", at="pairs/{name}.jsonl", check="records")}, size=Size(runtime=20)),
)


if __name__ == "__main__":
    run_stage(synth_pairs)
