"""fit_questions: docs + chunks (+ lexicon, terms) -> fit/<fusion>.jsonl, the held-out synthetic questions
a fitted fusion of a corpus without dev questions fits its weights on.

The questions are the synth_pairs stage's (answer/reading/retrieval_questions.py: `families`, `n` per
family, `seed`), kept only when no trained retriever feeding the fusion trained on them:

- an encoder trained on synthesised questions trains on those its hash puts on the train side
  (`heldout_of(query, seed, share)` with its `questions.seed` and `.heldout`): a question is kept only
  if it is held out for every such encoder. The hash depends on the question alone, so whatever
  `n`, families or seed made it, a question the encoder could have trained on is never kept;
- a reranker trains on every question its synthesiser makes from the corpus (rank/synth.py, its
  `synthetic` and `seed`): those are left out by their text.

One record a question: {"qid", "query", "chunk", "family", "split": "heldout", "gold"}; its relevant
chunk is the one it was made from. Seeded: the same inputs and settings give the same bytes.

Its spec (`STAGES`): a job per fusion with `fit: true` of a corpus without dev questions
(`synthetic_fits`; the fusion kind reads the file and ranks the questions, rank/kinds/fusions.py), its
settings (`fit_settings`) and reads (`fit_reads`), and the artifact kind it makes, fit/<fusion>.jsonl.

What it leaves out: ranking the questions and fitting (the retrieve stage does), hard negatives
(nothing trains on these), and what an encoder learns from besides questions (the pairs mined from
the chunks, index/pairs.py: titles, crops, rows), which a question may resemble.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..answer.reading.retrieval_questions import (
    GENERIC_FAMILIES,
    families_known,
    family_terms,
    heldout_of,
    synthesize_questions,
)
from ..artifacts.integrity import load_records
from ..artifacts.io import read_json, write_jsonl
from ..pipeline.jobs import named
from ..pipeline.stage import Out, Size, Stage
from ..rank.kinds.base import file_key, kinds_code
from ..rank.kinds.fusions import FitQuestionsSettings
from ..settings import settings_from_dict
from ..text.chunks import load_chunks
from .common import log, run_stage


def held_out(questions: list[dict], encoders: list[dict], reranker_queries: set[str]) -> list[dict]:
    """The questions no encoder of `encoders` ({seed, share}) and no reranker (its queries) trained on."""
    return [{**q, "split": "heldout"} for q in questions
            if all(heldout_of(q["query"], e["seed"], e["share"]) for e in encoders)
            and q["query"] not in reranker_queries]


def fit_questions(settings: dict, docs: Path, chunks: Path, out: Path, corpus: Path | None = None,
                  lexicon: Path | None = None, terms: Path | None = None) -> list[Path]:
    """Synthesise questions from `docs`' chunks and keep those held out from every trained retriever
    feeding the fusion (`settings`: its fit_questions, `heldout_of` the encoders', `rerankers`' synthesisers;
    `corpus`: the documents the rerankers made their questions from)."""
    s = settings_from_dict(FitQuestionsSettings, {k: v for k, v in settings.items()
                                                  if k not in ("heldout_of", "rerankers")}, "fit_questions")
    documents = load_records(docs, "documents")
    wanted = {d["doc_id"] for d in documents}
    records = [c.to_record() for c in load_chunks(chunks) if c.doc_id in wanted]
    lex = read_json(lexicon).get("lexicon", {}) if lexicon else None
    grammar = family_terms(s.families, terms, lex)
    # the share is the encoders' to say (held_out); synthesize_questions' own split is not used
    questions = synthesize_questions(documents, records, s.families, s.n, s.seed, 0.0, grammar, lex)
    trained_on: set[str] = set()
    if settings.get("rerankers"):
        from ..rank.synth import synthesize
        whole = load_records(corpus or docs, "documents")
        for r in settings["rerankers"]:
            trained_on |= {q["query"] for q in synthesize(whole, r["synthetic"], r["seed"])}
    kept = held_out(questions, settings.get("heldout_of", []), trained_on)
    write_jsonl(out, kept)
    by = dict(sorted(Counter(q["family"].split(":")[0] for q in kept).items()))
    log(f"fit_questions: {len(kept)} of {len(questions)} synthesised questions held out from "
        f"{len(settings.get('heldout_of', []))} encoder(s) and {len(settings.get('rerankers', []))} reranker(s) "
        f"({', '.join(f'{k} {n}' for k, n in by.items())}) -> {out}")
    return [out]


def synthetic_fits(g) -> list[str]:
    """The retrievers that read fit questions of their own (a fusion with `fit: true` in a corpus without dev
    questions: its kind's `reads`)."""
    return [r for r, kind in g.corpus.retrievers.items() if file_key("fit_questions", r) in kind.reads(g)]


def fit_families(g, name: str) -> list[str]:
    """The question families a fusion fits on: its `fit_questions.families`, else those the encoders
    feeding it train on (their held-out questions are of the kind they were trained for), else generic."""
    given = g.corpus.retrievers[name].s.fit_questions.families
    if given:
        return list(given)
    feeding = {g.corpus.retrievers[r].embedder() for r in g.corpus.feeding(name)}
    used = {f for e in g.synthesising() if e in feeding for f in g.corpus.embedders[e].s.questions.families}
    return [f for f in families_known() if f in used] or ["generic"]


def fit_settings(g, name: str) -> dict:
    """What the job of the fusion `name` reads: its `fit_questions`, and what each trained retriever feeding
    it trained on: an encoder's synthesised questions by their held-out hash (seed, share), a reranker's by
    its synthesiser's settings (the questions it made are left out)."""
    retrievers, embedders = g.corpus.retrievers, g.corpus.embedders
    encoders = sorted({retrievers[r].embedder() for r in g.corpus.feeding(name)} & set(g.synthesising()))
    rerankers = [r for r in g.corpus.feeding(name) if retrievers[r].trained]
    return {**retrievers[name].s.fit_questions.synthesis(), "families": fit_families(g, name),
            "heldout_of": [{"encoder": e, "seed": embedders[e].s.questions.seed,
                            "share": embedders[e].s.questions.heldout} for e in encoders],
            "rerankers": [{"reranker": r, "synthetic": retrievers[r].s.synthetic, "seed": retrievers[r].s.seed}
                          for r in rerankers]}


def fit_reads(g, name: str) -> dict:
    """The documents the questions are made from (and the lexicon and terms a domain's questions are phrased
    with); the whole corpus too when a reranker feeding the fusion made its questions from it."""
    learner = {"lexicon": str(g.layout.lexicon), "terms": g.terms_file()} \
        if any(f not in GENERIC_FAMILIES for f in fit_families(g, name)) else {}
    corpus = {"corpus": str(g.layout.docs)} if any(g.corpus.retrievers[r].trained for r in g.corpus.feeding(name)) else {}
    return {"docs": g.training_docs(), "chunks": str(g.layout.chunks), **corpus, **learner}


STAGES = (
    # held-out synthetic questions for a fitted fusion of a corpus without dev questions
    Stage("fit_questions", phase="rank", step=20, names=lambda g: named(synthetic_fits(g)),
          settings=lambda g, w: fit_settings(g, w["name"]), reads=lambda g, w: fit_reads(g, w["name"]),
          writes={"out": Out("fit_questions", at="fit/{name}.jsonl", check="records")},
          size=Size(runtime=20, why="the synth_pairs synthesiser and the rerankers' own: sized as it"),
          job_code=lambda g, w: kinds_code([])),  # it builds no kind: fusions.py, imported for its settings, alone
)


if __name__ == "__main__":
    run_stage(fit_questions)
