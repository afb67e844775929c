"""questions: the evaluation questions -> questions.jsonl, each checked against the curated docs."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import iter_records, load_records
from ..artifacts.io import write_jsonl
from ..pipeline.jobs import docs, one, paths
from ..pipeline.stage import Given, Out, Stage
from ..settings import settings_to_dict
from .common import log, run_stage


def questions(settings: dict, docs: Path, out: Path, source: Path | None = None) -> list[Path]:
    """Validate the questions (markdown corpus), take a BEIR split's judged queries or a SQuAD file's
    questions; none without a source."""
    if source is None:  # a markdown corpus whose config names no questions file yet
        qs = []
    elif settings["format"] == "beir":
        from ..datasets.beir import load_beir_questions
        # ids and language are all a judged query is checked against: a large corpus's texts stay on disk
        documents = [{"doc_id": d["doc_id"], "lang": d["lang"]} for d in iter_records(docs, "documents")]
        qs = load_beir_questions(source, settings["split"], documents, lang=documents[0]["lang"] if documents else "en",
                                 strict=settings["strict_qrels"], warn=log)
    elif settings["format"] == "squad":
        from ..datasets.squad import load_squad_questions
        qs = load_squad_questions(source, load_records(docs, "documents"), tuple(settings.get("dev_docs", ())))
    else:
        from ..text.questions import load_questions
        qs = load_questions(source, load_records(docs, "documents"), settings["questions_format"],
                            tuple(settings["question_langs"]))
    write_jsonl(out, qs)
    log(f"questions: {len(qs)} validated questions ({sum(q['answerable'] for q in qs)} answerable) -> {out}")
    return [out]


def question_settings(g) -> dict:
    src = settings_to_dict(g.source)
    out = {k: src[k] for k in ("format", "split", "questions_format", "question_langs", "strict_qrels")}
    return {**out, "dev_docs": list(src["dev_docs"])} if src["format"] == "squad" else out


def question_files(g) -> Given | None:
    """What the stage reads: the BEIR folder's queries and qrels, or the questions file."""
    if g.source.format == "beir":
        root = Path(g.source.path)
        return Given(g.source.path, tuple(paths(root / "queries.jsonl", root / "qrels" / f"{g.source.split}.tsv")))
    if g.source.format == "squad":
        return Given(g.source.path, (g.source.path,))
    if not g.source.questions:  # a markdown corpus without questions yet: nothing to score
        return None
    return Given(g.source.questions, (g.source.questions,))


STAGES = (
    Stage("questions", phase="corpus", step=20, per=None, names=lambda g: one(),
          settings=lambda g, w: question_settings(g),
          reads=lambda g, w: {**({"source": question_files(g)} if question_files(g) else {}), **docs(g)},
          writes={"out": Out("questions", at="questions.jsonl", check="records")}),
)


if __name__ == "__main__":
    run_stage(questions)
