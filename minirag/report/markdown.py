"""Render the report's tables (tables.py) as markdown: one template per section.

Each section is a template of prose with named slots, filled from the facts and tables
`CorpusTables` computed; `md_table` (cells.py) renders any DataFrame (floats to 3 decimals, missing
values as –, lists joined). A section with nothing to show renders as nothing.

What it leaves out: computing anything (tables.py), figures (figures.py, drawn by their
own rules; the report only links them) and the manifest (manifest.py).
"""

from __future__ import annotations

from pathlib import Path

from .answering import render_losses, render_squad
from .cells import md_table
from .paired import note as delta_note
from .pretrained import coverage_notes, pretrained_notes
from .tables import MIN_TAG_QUESTIONS, CorpusTables
from .trained import render_encoders, render_reading

HEADER = """# minirag report

Built by `snakemake` from `{config}`. Every table is read from the artifact it names under `results/<corpus>/`; `{manifest}` holds the sha256 of every input and output.
"""

OVERVIEW = """## Corpus `{name}`

{note}- Source: `{source[path]}` ({source[format]}); {n_docs} documents ({docs_by_lang}), {chars:,} characters.
- Chunking: `{chunk[strategy]}` ({chunking}); {n_chunks} chunks, median {median_chars} characters.
{questions_line}
"""
QUESTIONS = "- Questions: {questions} ({answerable} answerable); by language {by_lang}; by difficulty {by_difficulty}.{dev}"
NO_QUESTIONS = "- Questions: none yet."

FIGURES = """![Retrievers: mean hit@5 and MRR with 95 % bootstrap intervals, all questions and per language]({retrievers})

![Mean top-k overlap of the base channels]({overlap}) ![Where each reader's answers were lost]({losses})
"""

NOTHING_TO_SCORE = """### Nothing to score yet

`{name}` has no questions (its config names no `source.questions` file), so no retriever or reader is scored. Its indexes and readers are built: `search`, `answer` and `serve` work on it with `--configfile <this config> --corpus {name}`. To score them, write a questions file, one JSON object a line (`qid`, `query`, `lang`, `gold`: the `doc_id` and verbatim `evidence`, `answer`, `answerable`; the format is in kb/README.md), and name it in the corpus's config, `source: {{questions: path/to/questions.jsonl}}`: the next build scores every retriever and reader.
"""

CHUNKING = {"tokens": "target {target_tokens} BPE tokens, overlap {overlap}",
            "sections": "one per section, budget {max_tokens} tokens per part",
            "chars": "{size} characters, overlap {overlap}", "none": "one chunk per document"}

RETRIEVAL = """### Retrieval, {level} level

Answerable questions only; {what}. Source: `eval/metrics.json`.

{table}
"""
RELEVANT = {"chunk": "a chunk is relevant when it overlaps the gold evidence span "
                     "(any chunk of a gold document where gold has no span)",
            "doc": "a document is relevant when it is a gold document; its rank is its best chunk's"}

BEST = "Best retriever by chunk hit@5: `{best}`, hit@5 = {hit5:.3f} on {answerable} answerable questions.\n"

FUSION = """### Fusion

Each fused run against the best of the channels it fuses (chunk-level hit@5). {target}Where a fusion stays below its best channel, the diagnosis below shows why (channel overlap, shared misses, chunks always on top).

{table}
{note}"""
FUSION_TARGET = ("The `target` column is the corpus's target from its assertions file (the seed lab's "
                 "acceptance: a hybrid at least 5 percentage points above its best single channel). ")

TARGETS = """### Targets: {met} of {total} met

Figures a spec asks for, from the `targets:` of `{file}`; checked on the runs like the assertions, reported here, never failing the build.

{table}
{note}"""

TAGS = """### By tag (chunk level)

Tags carried by at least {min_n} answerable questions.

{table}
"""

SLICES = """### Slices: hit@5 by language and difficulty (chunk level)

Source: `eval/slices.csv` (all metrics, both levels).

{table}
"""

ABLATION = """### Diversification ablation

The same fused run with no diversification, a per-document cap, and MMR (sweep points included): hit@5 at chunk and document level, MRR (chunk), distinct documents in the top {k} and the mean pairwise cosine of the top-{k} chunk vectors (`{embedder}` vectors; lower = more diverse). A cap can only push a second chunk of the same page down, so it can cost chunk-level hits while keeping every page. Source: `eval/diversity.csv`.

{table}
"""

SWEEP = """### Sweep: `{name}` over {param}

Each point is its own run (`runs/{name}@{param}=<value>.trec`, and `runs/{name}.trec` for the configured value) and evaluation; chunk level.

{table}

![hit@5 against {param}]({figure})
"""

DIAGNOSIS = """### Diagnosis

Files: `eval/diagnosis.csv` (per question, each channel's best rank of a gold chunk and of a gold document, and where it landed in each fused run), `eval/overlap.csv`, `eval/always_on_top.csv`, `eval/diversity.csv`.

- Questions where no base channel has a gold document in its top {k} (a blind spot no fusion of them can fix): {shared_miss} of {questions}.
{overlap}{always}"""

MISSES = """
What the best run, `{run}`, still misses: {n} of the test split's {answerable} answerable questions have no gold chunk in its top {k} ({summary}). `rank` is its rank of the first gold chunk (– beyond the run's depth), `best channel` the channel that ranks one highest:

"""

MECHANISMS = """### What each mechanism fixes

Per question, from `eval/diagnosis.csv`: a gold document's best chunk enters the top {k} with the mechanism (fixed) or leaves it (broken), against the same run without it.

{table}
{note}"""

ASSERTIONS = """### Assertions: {passed} of {total} passed

From `{file}`, checked on the runs by `python -m minirag assert` ({strict}). Every assertion with what the runs showed: `eval/assertions.md`. Per run:

{table}
{failed}"""

ANSWERS = """### Answers

Each reader over the evidence lines of the top {k} chunks of each run (test split): contains the gold answer, exact match and token F1 against it, cites a relevant chunk (answerable questions); faithful: every content word of the answer is in a chunk it cites (answers given); abstains exactly when it should (all questions); and contains the answer on the questions where a relevant chunk reached the prompt, what retrieval allowed. Per question: `eval/answers.csv`.

{table}
{note}{unanswerable}"""

STAGE_TIMES = """### Stage wall times

From each job's Snakemake benchmark file (last run); {total:.1f} s in all.

{table}
"""


def render_corpus(t: CorpusTables, results: str | Path, jobs: list) -> str:
    corpus, out = t.corpus, []
    facts = t.overview()
    note = corpus.note.strip() + "\n\n" if corpus.note else ""
    questions = QUESTIONS.format(**facts) if facts["questions"] else NO_QUESTIONS
    out.append(OVERVIEW.format(name=t.name, note=note, chunking=CHUNKING[corpus.chunk.strategy].format(**facts["chunk"]),
                               questions_line=questions, **facts))
    if not facts["questions"]:
        # its readers are trained all the same: on what, with which signals, how they abstain
        return "\n".join(out + [NOTHING_TO_SCORE.format(name=t.name), render_reading(t, results)]
                         + render_stage_times(t, jobs))
    out.append(FIGURES.format(**{f: t.layout.figure(f"summary-{f}").relative_to(results).as_posix()
                                 for f in ("retrievers", "overlap", "losses")}))
    for level in ("chunk", "doc"):
        out.append(RETRIEVAL.format(level=level, what=RELEVANT[level], table=md_table(t.retrieval(level), ("Retriever",))))
    best = t.best_retriever()
    out.append(BEST.format(best=best, hit5=t.score(best), answerable=facts["answerable"]))
    fusion = t.fusion()
    if len(fusion):
        if fusion["target"].isna().all():
            fusion = fusion.drop(columns="target")
        out.append(FUSION.format(target=FUSION_TARGET if "target" in fusion else "",
                                 table=md_table(fusion, ("Fused run",)), note=delta_note(fusion, "Δ hit@5")))
    targets = t.targets()
    if len(targets):
        out.append(TARGETS.format(met=int((targets["verdict"] == "met").sum()), total=len(targets),
                                  file=corpus.assertions, table=md_table(targets), note=delta_note(targets, "Δ over the best input")))
    tags = t.tags()
    if len(tags):
        out.append(TAGS.format(min_n=MIN_TAG_QUESTIONS, table=md_table(tags, ("Retriever",))))
    slices = t.slices()
    out.append(SLICES.format(table=md_table(slices.rename(columns={r: f"`{r}`" for r in t.main}))))
    out += pretrained_notes(t.corpus, t.main, slices) + coverage_notes(t)
    ablation = t.ablation()
    if len(ablation):
        out.append(ABLATION.format(k=corpus.diagnose.k, embedder=corpus.diagnose.embedder,
                                   table=md_table(ablation, ("Run",))))
    for name, param, table in t.sweeps():
        figure = t.layout.figure(f"sweep-{name}-{param}").relative_to(results).as_posix()
        out.append(SWEEP.format(name=name, param=param, table=md_table(table, ("run",)), figure=figure))
    out.append(render_diagnosis(t))
    mechanisms = t.mechanisms()
    if len(mechanisms):
        out.append(MECHANISMS.format(k=corpus.diagnose.k, table=md_table(mechanisms),
                                     note=delta_note(mechanisms, f"Δ doc in top {corpus.diagnose.k}",
                                                     "the questions the table counts")))
    if corpus.assertions:
        a = t.assertions()
        failed = ("\nFailed:\n\n" + md_table(a["failed"]) + "\n") if len(a["failed"]) else ""
        strict = "strict: a failure fails the build" if corpus.strict else "recorded; the build does not fail"
        out.append(ASSERTIONS.format(passed=a["passed"], total=a["total"], file=corpus.assertions, strict=strict,
                                     table=md_table(a["runs"], ("Run",)), failed=failed))
    out += render_encoders(t, results) + render_answers(t, results)
    return "\n".join(out + render_stage_times(t, jobs))


def render_answers(t: CorpusTables, results) -> list[str]:
    """The readers' answers, the unanswerable questions, SQuAD's columns, where answers are lost, the readers."""
    answers = t.answers()
    if not len(answers):
        return []
    run = t.answer_run()
    unanswerable = t.unanswerable(run)
    shown = (f"\nUnanswerable questions and what each reader said over `{run}`:\n\n{md_table(unanswerable)}\n"
             if len(unanswerable) else "")
    return [ANSWERS.format(k=t.corpus.prompt.k, table=md_table(answers, ("Reader", "Run")),
                           note=delta_note(answers, "Δ contains answer vs the reader's best run"), unanswerable=shown)
            + render_squad(t.metrics, md_table) + render_losses(t, run, md_table) + render_reading(t, results)]


def render_stage_times(t: CorpusTables, jobs: list) -> list[str]:
    times = t.stage_times(jobs)
    return [STAGE_TIMES.format(total=times["seconds"].sum(), table=md_table(times))] if len(times) else []


def render_diagnosis(t: CorpusTables) -> str:
    d = t.diagnosis()
    k = t.corpus.diagnose.k
    overlap = ""
    if d["overlap"]:
        overlap = (f"- Mean top-{k} overlap between channels: "
                   + "; ".join(f"`{a}` vs `{b}` {v:.2f}" for (a, b), v in d["overlap"]) + ".\n")
    share = f"{t.corpus.diagnose.always_share:.0%}"
    if len(d["always"]):
        always = (f"\nChunks in the top {k} of more than {share} of questions (\"always on top\"):\n\n"
                  + md_table(d["always"].rename(columns={"retriever": "Channel", "chunk_id": "chunk",
                                                         "doc_id": "document", "count": "questions"}),
                             ("Channel",)) + "\n")
    else:
        always = (f"- No chunk of a base channel is in the top {k} of more than {share} of questions "
                  "(no \"always on top\" hub).\n")
    best = t.best_retriever()
    misses = t.misses(best)
    missed = ""
    if len(misses):
        counts = misses["why"].value_counts()
        missed = (MISSES.format(run=best, k=k, n=len(misses), answerable=sum(q["answerable"] for q in t.test_questions),
                                summary="; ".join(f"{why}: {n}" for why, n in counts.items()))
                  + md_table(misses) + "\n")
    return DIAGNOSIS.format(k=k, shared_miss=d["shared_miss"], questions=d["questions"], overlap=overlap,
                            always=always) + missed
