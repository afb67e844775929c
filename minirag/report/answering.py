"""The report's account of answer selection: where answers were lost, and what the answer selector learned.

`render_losses(t, run)` reads eval/losses.csv (evaluation/losses.py): per reader and per slice of the
test questions (language, difficulty, conjugation), the share lost at each stage, the share whose answer
was among the candidates and the share answered right of those, and ten example misses at each stage.
`render_selector(t, name, meta)` reads a selector's sidecar: what it was trained on, its threshold and
its answers on the dev questions it was not fitted on, and its heaviest weights.

What it leaves out: the readers × runs table (markdown.py) and the Mini-GPT's held-out tasks.
"""

from __future__ import annotations

import pandas as pd

from ..evaluation.losses import HEAD, STAGES, TAIL
from .tables import CorpusTables

LOSSES = """
### Where answers are lost (`{run}`, test split)

For each answerable question, the first stage that failed to carry its gold answer forward: **retrieval**
(no relevant chunk in the top {depth}, and no candidate holds the answer), **candidates** (a relevant chunk
was there, but none of its cells or clauses holds the answer), **selection** (a candidate holds it, the
selector's best answer does not), **reader** (the best answer holds it, the reader's answer does not).
"among candidates" is the share whose answer some candidate holds; "right when among" the share of those
answered right. Per question: `eval/losses.csv`.

{table}
{examples}"""
SELECTOR = """
#### Reader `{name}`: the answer selector

Scores every cell and clause of a run's top chunks (`candidates/<run>.jsonl`) with a listwise
{model} over {features} features, trained on {learner:,} learner-phrased questions synthesized
from the corpus's tables and prose (`readers/{name}.tasks.jsonl`) and the {dev} dev questions. It answers
with the best answer when {rule} {threshold} ({calibrated}). On the held-out questions each half of the
scorer was fitted without: answered right {right:.3f}, unanswerable abstained {abstained:.3f}. Feature sets:
{sets}. Signals: {signals}. Heaviest weights (per standard deviation): {weights}.
{warning}"""
CALIBRATED = {"dev": "calibrated on the corpus's dev questions",
              "dev+synthetic": "calibrated on the corpus's dev questions and held-out synthesized ones",
              "synthetic": "calibrated on held-out synthesized questions: no real question was used",
              "never": "off (`abstention: never`): the best span is always given"}
SQUAD = """
### SQuAD's answer metrics (test split)

EM and F1 as SQuAD's official script computes them (lowercased, punctuation and the articles a / an / the
removed; the best over a question's accepted answers). An unanswerable question scores 1 only when the
reader abstains. "no abstention" scores the selector's best span on the answerable questions as if the
reader had answered every one. Answer length: words of the given answers (abstentions left out).

{table}
"""


def slices(rows: pd.DataFrame) -> list[tuple[str, object]]:
    """all, each language and each difficulty that occurs (in order), and each tag of the corpus's domain
    that some question has (its losses have a column per tag: the grammar's `conjugation`)."""
    out: list[tuple[str, object]] = [("all", lambda r: True)]
    out += [(lang, lambda r, v=lang: r["lang"] == v) for lang in dict.fromkeys(rows["lang"]) if lang]
    out += [(d, lambda r, v=d: r["difficulty"] == v) for d in dict.fromkeys(rows["difficulty"]) if d]
    for tag in (c for c in rows.columns if c not in HEAD + TAIL):
        if rows[tag].astype(str).isin(["True", "true"]).any():
            out.append((tag, lambda r, t=tag: str(r[t]) in ("True", "true")))
    return out


def squad_table(metrics: dict) -> pd.DataFrame:
    """Readers × runs: SQuAD EM / F1 overall, answerable, unanswerable (and abstained), with no abstention."""
    rows = []
    for reader, by_run in metrics.get("readers", {}).items():
        for run, a in by_run.items():
            s, words = a.get("squad"), a.get("answer_words", {})
            if not s:
                continue
            rows.append({"Reader": reader, "Run": run, "EM": s["overall"]["em"], "F1": s["overall"]["f1"],
                         "answerable EM": s["answerable"]["em"], "answerable F1": s["answerable"]["f1"],
                         "unanswerable abstained": s["unanswerable"]["abstained"],
                         "answerable F1, no abstention": s["answerable_no_abstention"]["f1"],
                         "answer words (mean)": words.get("mean", 0.0), "answer words (p90)": words.get("p90", 0)})
    return pd.DataFrame(rows)


def render_squad(metrics: dict, md_table) -> str:
    table = squad_table(metrics)
    return SQUAD.format(table=md_table(table, ("Reader", "Run"))) if len(table) else ""


def loss_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Readers × slices: n, the share lost at each stage, among candidates, right when among."""
    out = []
    for reader, mine in rows.groupby("reader", sort=False):
        for label, keep in slices(mine):
            part = mine[mine.apply(keep, axis=1)]
            if not len(part):
                continue
            share = {s: (part["stage"] == s).mean() for s in STAGES}
            among = share["selection"] + share["reader"] + share["answered"]
            out.append({"Reader": reader, "slice": label, "n": len(part), **share, "among candidates": among,
                        "right when among": share["answered"] / among if among else 0.0})
    return pd.DataFrame(out)


def render_losses(t: CorpusTables, run: str, md_table) -> str:
    rows = pd.read_csv(t.layout.eval("losses.csv"), keep_default_na=False)
    rows = rows[(rows["run"] == run) & (rows["split"] == "test")]
    if not len(rows):
        return ""
    first = rows["reader"].iloc[0]
    examples = []
    for stage in STAGES[:-1]:
        lost = rows[(rows["reader"] == first) & (rows["stage"] == stage)].head(10)
        if len(lost):
            questions = {q["qid"]: q["query"] for q in t.test_questions}
            lost = lost.assign(question=lost["qid"].map(questions))[["qid", "question", "gold", "selected", "answer"]]
            examples.append(f"\nLost at **{stage}** (`{first}`, first {len(lost)}):\n\n{md_table(lost)}\n")
    depth = t.corpus.candidates.depth
    return LOSSES.format(run=run, depth=depth, table=md_table(loss_table(rows), ("Reader",)),
                         examples="".join(examples))


def render_selector(name: str, meta: dict) -> str:
    weights = meta.get("weights", {})
    heavy = sorted(weights.items(), key=lambda kv: -abs(kv[1]))[:8] if "hidden" not in weights else []
    dev = meta["dev_heldout"]
    model = f"MLP ({weights['hidden']} hidden units)" if "hidden" in weights else "logistic regression"
    return SELECTOR.format(name=name, model=model,
                           features=len(meta["features"]), learner=meta["training"]["learner_questions"],
                           dev=meta["training"]["dev_questions"], threshold=meta["threshold"],
                           right=dev["answered_right"], abstained=dev["unanswerable_abstained"],
                           rule=("the probability of \"none of them\" is at most" if meta.get("rule") == "none"
                                 else "that beats \"none of them\" and its probability is at least"),
                           calibrated=CALIBRATED.get(meta.get("calibrated_on", "dev"), "calibrated on dev"),
                           sets=", ".join(meta.get("feature_sets", ["grammar"])),
                           signals=", ".join(meta.get("signals", meta.get("feature_sets", ["grammar"])))
                           + (f" (pretrained similarity off: {meta['similarity_off']})" if "similarity_off" in meta else ""),
                           warning=f"\n**Warning:** {dev['warning']}.\n" if dev.get("warning") else "",
                           weights=", ".join(f"`{k}` {v:+.2f}" for k, v in heavy) or "(an MLP: no single weights)")
