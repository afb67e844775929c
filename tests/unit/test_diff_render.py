"""`minirag diff` as text: a summary first, unchanged metrics hidden unless asked, 100 columns at most,
and a flipped retrieval shown by the gold chunk's rank on each side, not by two equal answers."""

from minirag.history import render

LONG = "¿Cuál es la forma del pretérito indefinido de tener para la primera persona del plural? " * 2


def metric(run: str, name: str, a: float, b: float, significant: bool) -> dict:
    text = f"{(b - a) * 100:+.1f} pp [−1.0, +9.0], p = 0.01" + " *" * significant
    return {"run": run, "metric": name, "questions": 40, "a": a, "b": b, "text": text,
            "delta": {"delta": b - a, "significant": significant}}


def diff() -> dict:
    side = {"build": 1, "time": "2026-01-01T00:00:00Z", "report": "report", "commit": "a" * 40, "dirty": False}
    flips = [{"run": f"bm25-grammar-no-context-{i % 3}", "qid": f"en-{i:03d}", "change": "gained" if i % 4 else "lost",
              "query": LONG, "gold": "tuvimos", "rank_a": None if i % 2 else 12, "rank_b": 3,
              "a": "top document es/preterito.md", "b": "top document es/preterito.md"} for i in range(30)]
    return {"corpus": "kb", "a": side, "b": {**side, "build": 4},
            "settings": [{"key": "chunk.target_tokens", "a": 150, "b": 80}],
            "stages": [{"job": "chunk", "a": "1" * 64, "b": "2" * 64}], "runs_only_in_a": [], "runs_only_in_b": [],
            "metrics": [metric("bm25", "hit@5", 0.5, 0.6, True), metric("bm25", "mrr", 0.4, 0.4, False),
                        metric("hybrid", "hit@5", 0.5, 0.52, False)],
            "flips": flips, "answer_flips": [{"reader": "extractive", "run": "bm25", "qid": "en-001", "change": "right",
                                              "query": "past of go", "gold": "went", "a": "gone", "b": "went"}]}


def test_the_summary_comes_first_with_counts():
    lines = render.text(diff()).splitlines()
    assert lines[3] == "Settings changed: 1 (chunk.target_tokens: 150 → 80); 1 job(s) with new settings"
    assert lines[4] == "Metrics moved significantly: 1 of 3 (bm25 hit@5 +10.0 pp)"
    assert lines[5] == "Questions flipped (chunk hit@5): 22 gained, 8 lost over 3 run(s); answers: 1 now right, 0 now wrong"


def test_unchanged_metrics_are_hidden_unless_asked():
    out = render.text(diff())
    assert "bm25    mrr" not in out and "1 unchanged hidden (--all)" in out and "hybrid  hit@5" in out
    assert "bm25    mrr" in render.text(diff(), all_rows=True)


def test_every_line_fits_100_columns():
    for out in (render.text(diff()), render.text(diff(), all_rows=True)):
        assert max(len(line) for line in out.splitlines()) <= 100


def test_a_retrieval_flip_shows_ranks_not_the_same_answer_twice():
    out = render.text(diff())
    assert "A said" not in out.split("Flipped answers")[0] and "top document" not in out
    assert "– → 3" in out and "12 → 3" in out
    assert "gone" in out and "went" in out  # a flipped answer shows both answers
