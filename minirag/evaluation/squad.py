"""SQuAD's answer metrics, as its official evaluation script (v2.0) computes them.

    normalize_answer(s)  lowercase; punctuation removed; the articles a, an, the removed; whitespace collapsed
    exact(pred, golds)   max over the accepted answers of normalize(pred) == normalize(gold)
    f1(pred, golds)      max over the accepted answers of the token F1 of the two normalized texts;
                         when either side has no token, 1 if both have none, else 0

An unanswerable question's only accepted answer is the empty string, so it scores 1 exactly when the
reader abstains (says nothing); an abstention on an answerable question scores 0. The reader's `[#n]`
citations are not part of its answer.

    exact("The Normans [#1]", ["Normans"]) -> 1.0
    f1("in the 10th century", ["10th and 11th centuries"]) -> 0.2857  (P 1/3, R 1/4)

`question_scores` gives one question's EM and F1 as spoken (abstention on) and as the reader's best
span would have scored had it answered (abstention off); `summary` averages them over the overall,
answerable and unanswerable questions, and `length_summary` says how long the answers are.

What it leaves out: SQuAD's no-answer-probability threshold search (abstention is the reader's), and
the contains-answer and citation figures (answers.py).
"""

from __future__ import annotations

import re
import statistics
import string
from collections import Counter

ARTICLES_RE = re.compile(r"\b(a|an|the)\b", re.UNICODE)
CITATION_RE = re.compile(r"(?<!\s)\s*\[#\d+\]")  # starts where its spaces start: inside, it rescanned the run
PUNCTUATION = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """The official script's normalisation, step for step."""
    s = "".join(ch for ch in s.lower() if ch not in PUNCTUATION)
    return " ".join(ARTICLES_RE.sub(" ", s).split())


def spoken(answer: str) -> str:
    return CITATION_RE.sub("", answer).strip()


def exact_one(pred: str, gold: str) -> float:
    return float(normalize_answer(pred) == normalize_answer(gold))


def f1_one(pred: str, gold: str) -> float:
    p, g = normalize_answer(pred).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def exact(pred: str, golds: list[str]) -> float:
    return max(exact_one(spoken(pred), g) for g in (golds or [""]))


def f1(pred: str, golds: list[str]) -> float:
    return max(f1_one(spoken(pred), g) for g in (golds or [""]))


def accepted(q: dict) -> list[str]:
    """A question's accepted answers: all its crowd answers, [""] when it is unanswerable."""
    if not q["answerable"]:
        return [""]
    return list(q.get("answers") or ([q["answer"]] if q.get("answer") else [""]))


def question_scores(q: dict, answer: str, abstained: bool, best_span: str | None) -> dict:
    """EM and F1 of what the reader said (an abstention says ""), and of its best span said regardless."""
    golds, said = accepted(q), "" if abstained else answer
    forced = best_span if best_span is not None else said
    return {"squad_em": exact(said, golds), "squad_f1": f1(said, golds),
            "squad_em_forced": exact(forced, golds), "squad_f1_forced": f1(forced, golds)}


def mean(values) -> float:
    values = list(values)
    return round(sum(values) / len(values), 6) if values else 0.0


def summary(qs: list[dict], rows: dict) -> dict:
    """{overall, answerable, unanswerable, answerable_no_abstention}: EM and F1 of each set of questions."""
    answerable = [q for q in qs if q["answerable"]]
    unanswerable = [q for q in qs if not q["answerable"]]

    def cols(sub: list[dict], suffix: str = "") -> dict:
        return {"n": len(sub), "em": mean(rows[q["qid"]]["squad_em" + suffix] for q in sub),
                "f1": mean(rows[q["qid"]]["squad_f1" + suffix] for q in sub)}
    return {"overall": cols(qs), "answerable": cols(answerable),
            "unanswerable": {**cols(unanswerable), "abstained": mean(rows[q["qid"]]["abstained"] for q in unanswerable)},
            "answerable_no_abstention": cols(answerable, "_forced")}


def length_summary(answers: list[str]) -> dict:
    """How many words the given answers have (abstentions left out): mean, median, 90th percentile, most."""
    counts = sorted(len(spoken(a).split()) for a in answers)
    if not counts:
        return {"answers": 0, "mean": 0.0, "median": 0.0, "p90": 0, "max": 0}
    return {"answers": len(counts), "mean": round(sum(counts) / len(counts), 3),
            "median": float(statistics.median(counts)), "p90": counts[min(len(counts) - 1, int(0.9 * len(counts)))],
            "max": counts[-1]}
