"""The build graph, run with the real snakemake on the fixture corpus in a private copy.

One build per module; each invalidation test edits the copy, asks `snakemake -n` what
would run, and restores the edit.
"""

import json
import re
import sys

import pytest
from support.project import MINI_CORPUS, config_with, copy_built, copy_project, planned_named, run, snakemake

pytestmark = pytest.mark.workflow

UPSTREAM = {"curate", "questions", "train_tokenizer"}


@pytest.fixture(scope="module")
def built(mini_built, tmp_path_factory):
    return copy_built(mini_built, tmp_path_factory.mktemp("wf") / "p")  # its tests edit it


def planned_jobs(project) -> dict[str, int]:
    out = snakemake(project, "-n", "results/mini.md").stdout
    if "Nothing to be done" in out:
        return {}
    table = out.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.MULTILINE)}


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return lambda: path.write_text(text, encoding="utf-8")


def planned_with(project, corpus: dict) -> dict[str, int]:
    """What `snakemake -n` would run with the `mini` corpus's settings merged with `corpus`; undone afterwards."""
    config = project / "mini.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(config_with(corpus, text), encoding="utf-8")
    try:
        return planned_jobs(project)
    finally:
        config.write_text(text, encoding="utf-8")


def planned_after_edit(project, path, old, new) -> dict[str, int]:
    """What `snakemake -n` would run with one edit applied; the edit is undone afterwards."""
    restore = edit(project / path, old, new)
    try:
        return planned_jobs(project)
    finally:
        restore()


def test_full_build_writes_report_and_every_artifact(built):
    root = built / "results" / "mini"
    for rel in ("docs.jsonl", "questions.jsonl", "tokenizer.json", "chunks.jsonl", "vectors/hashing.npy",
                "vectors/hashing.json", "bm25/plain/index.npz", "bm25/plain/vocab.json", "runs/rrf.trec",
                "prompts/bm25.jsonl", "answers/extractive/dense.jsonl", "eval/metrics.json", "eval/per_query.csv",
                "eval/slices.csv"):
        assert (root / rel).exists(), rel
    metrics = json.loads((root / "eval" / "metrics.json").read_text())
    assert set(metrics["retrieval"]) == {"dense", "bm25", "rrf", "linear", "bm25-cap", "rrf-mmr", "rrf-mmr@lambda=0.5",
                                         "bm25-x", "bm25-rerank"}
    lexicon = json.loads((root / "lexicon.json").read_text())
    assert lexicon["forms"] and set(lexicon) == {"lexicon", "forms", "paradigms"}
    reader = json.loads((root / "readers" / "minigpt.json").read_text())
    assert set(reader["heldout_model_alone"]) == {"true", "swapped", "absent"}
    assert {o["kind"] for o in reader["heldout_outcomes"]} <= {"true", "swapped", "absent"}
    assert reader["training"]["steps"] == 12 and reader["tokenizer_sha256"] and reader["training"]["tasks_sha256"]
    assert (root / "answers" / "minigpt" / "bm25.jsonl").exists() and (root / "answers" / "extractive" / "rrf.jsonl").exists()
    assert set(metrics["readers"]) == {"extractive", "minigpt"} and "exact_match" in metrics["readers"]["minigpt"]["bm25"]
    sidecar = json.loads((root / "rerankers" / "bm25-rerank.json").read_text())
    assert sidecar["synthetic_questions"] == 50 and sidecar["dev_questions"] == 0  # the fixture has no dev split
    assert not (root / "answers" / "extractive" / "rrf-mmr@lambda=0.5.jsonl").exists()  # sweep points: retrieval only
    said = [json.loads(line) for f in sorted((root / "answers").rglob("*.jsonl"))
            for line in f.read_text(encoding="utf-8").splitlines()]
    assert any(a["abstained"] for a in said) and all(bool(a.get("why")) == a["abstained"] for a in said)  # says why
    for rel in ("diagnosis.csv", "overlap.csv", "always_on_top.csv", "diversity.csv", "assertions.md"):
        assert (root / "eval" / rel).exists(), rel
    assert set(metrics["retrieval"]["rrf"]["chunk"]) >= {"hit@1", "hit@3", "hit@5", "mrr", "recall@5", "ndcg@10"}
    report = (built / "results" / "mini.md").read_text()
    assert "#### Reader `minigpt`: held-out reading tasks" in report
    assert "#### Reader `extractive`: the answer selector" in report and "### Where answers are lost" in report
    selector = json.loads((root / "readers" / "extractive.json").read_text())
    assert selector["features"] and 0 <= selector["threshold"] <= 1 and selector["training"]["learner_questions"] > 0
    scored = [json.loads(line) for line in (root / "candidates" / "bm25.jsonl").read_text().splitlines()]
    assert len(scored) == 8 and all("analysis" in r for r in scored) and sum(bool(r["keys"]) for r in scored) >= 6
    assert (root / "eval" / "losses.csv").read_text().startswith("qid,split,lang,difficulty,conjugation,reader,run,stage")
    assert "### Assertions: 5 of 6 passed" in report and "### Sweep: `rrf-mmr` over lambda" in report
    assert (built / "results" / "mini" / "figures" / "sweep-rrf-mmr-lambda.png").exists()
    assert "| `rrf` | RRF k=60 of dense + bm25 |" in report and "### Slices" in report
    assert "Built by `snakemake` from `mini.yaml`" in report
    manifest = json.loads((built / "results" / "mini.manifest.json").read_text())
    assert "results/mini/chunks.jsonl" in manifest["files"]["mini"]["outputs"]
    assert "fixture/docs/en/index.md" in manifest["files"]["mini"]["inputs"]


def test_second_build_runs_nothing(built):
    assert planned_jobs(built) == {}


def test_chunk_size_change_reruns_chunk_and_downstream_only(built):
    jobs = planned_after_edit(built, "mini.yaml", "target_tokens: 40", "target_tokens: 60")
    assert set(jobs) == {"chunk", "embed", "bm25", "retrieve", "train_reranker", "train_reader", "candidates", "prompt",
                         "generate", "evaluate", "diagnose", "assertions", "sweep_figure", "loss_figure",
                         "summary_figure", "report"}
    assert jobs["train_reader"] == 1  # the answer selector reads the chunks; the Mini-GPT does not
    assert not UPSTREAM & set(jobs)


def test_the_plan_prints_each_rerun_rule_once_with_its_job_count_and_why(built, monkeypatch):
    """`make plan`'s dry run (MINIRAG_PLAN=1): one line per rule, the changed setting named with its values."""
    restore = edit(built / "mini.yaml", "target_tokens: 40", "target_tokens: 60")
    try:
        with monkeypatch.context() as env:
            env.setenv("MINIRAG_PLAN", "1")
            out = snakemake(built, "-n", "results/mini.md").stdout
    finally:
        restore()
    lines = out.splitlines()
    plan = lines.index(next(ln for ln in lines if ln.startswith("plan: ")))
    rows = {ln.split()[0]: ln.split(None, 2) for ln in lines[plan + 2:-1]}
    assert set(rows) == set(planned_after_edit(built, "mini.yaml", "target_tokens: 40", "target_tokens: 60"))
    assert rows["chunk"][1] == "1" and rows["chunk"][2].strip() == "settings: target_tokens 40 -> 60"
    assert "after chunk" in rows["embed"][2] and "curate" not in rows
    assert len(lines) <= 60 and "input:" not in out and "reason:" not in out
    assert sum(int(r[1]) for r in rows.values()) == int(lines[plan].split()[1])


def test_bm25_parameter_change_does_not_rerun_embed(built):
    jobs = planned_after_edit(built, "mini.yaml", "    assertions: fixture/assertions.yaml",
                              "    assertions: fixture/assertions.yaml\n    bm25: {plain: {k1: 1.2}}")
    assert "embed" not in jobs and "chunk" not in jobs
    # bm25 and every run downstream of it (rrf, linear, cap, mmr and its sweep point, the
    # expanded run and its reranker, retrained on its new run); not dense
    assert jobs["bm25"] == 1 and jobs["retrieve"] == 8 and jobs["train_reranker"] == 1


def test_changing_how_context_is_built_reruns_chunk_and_every_index(built):
    jobs = planned_after_edit(built, "minirag/text/structure.py", 'PATH_SEP = " › "', 'PATH_SEP = " > "')
    assert {"chunk", "embed", "bm25", "retrieve"} <= set(jobs)
    assert "curate" not in jobs and "train_tokenizer" not in jobs


def test_editing_the_lexicon_miner_reruns_lexicon_and_the_expanded_runs_only(built):
    jobs = planned_after_edit(built, "minirag/domains/grammar/language/lexicon.py", '"""', '"""Edited. ')
    assert jobs["lexicon"] == 1 and jobs["retrieve"] == 2 and jobs["train_reranker"] == 1
    assert "bm25" not in jobs and "chunk" not in jobs


def test_editing_a_word_list_the_text_modules_read_reruns_the_stages_that_run_them(built):
    # data/tenses.txt is read, not imported: the stages running minirag.text list text/data/* as inputs
    jobs = planned_after_edit(built, "minirag/domains/grammar/data/tenses.txt", "# Tenses", "# Edited. Tenses")
    assert jobs["lexicon"] == 1 and jobs["retrieve"] >= 2 and jobs["report"] == 1


def test_a_retriever_or_prompt_change_does_not_retrain_the_reader(built):
    jobs = planned_with(built, {"prompt": {"k": 2, "evidence_lines": 3}, "bm25": {"plain": {"k1": 1.2}}})
    assert jobs["prompt"] >= 1 and jobs["generate"] >= 2 and jobs["retrieve"] >= 1
    assert "train_reader" not in jobs


def test_a_reader_setting_retrains_it_and_reanswers_with_it_only(built):
    jobs = planned_after_edit(built, "mini.yaml", "steps: 12,", "steps: 13,")
    answered = len(list((built / "results/mini/answers/minigpt").glob("*.jsonl")))  # one per answered run
    assert answered >= 2 and jobs["train_reader"] == 1 and jobs["generate"] == answered and "prompt" not in jobs


def test_editing_the_terms_file_reanswers_without_retraining_the_minigpt(built):
    restore = edit(built / "minirag/domains/grammar/data/grammar_terms.tsv", "tense:imperfect\tused to",
                   "tense:imperfect\tused to, would often")
    try:
        named = planned_named(built)
    finally:
        restore()
    answered = {p.stem for p in (built / "results/mini/candidates").glob("*.jsonl")}
    assert ("train_reader", "extractive") in named and ("train_reader", "minigpt") not in named
    assert {n for r, n in named if r == "candidates"} == answered == {n for r, n in named if r == "prompt"}
    assert {n for r, n in named if r == "generate"} == {f"{reader}.{run}" for reader in ("extractive", "minigpt")
                                                         for run in answered}
    assert not {r for r, _ in named} & {"retrieve", "chunk", "bm25", "embed"}


def test_a_candidate_setting_reanswers_without_retraining(built):
    jobs = planned_with(built, {"candidates": {"depth": 5}})
    answered = len(list((built / "results/mini/candidates").glob("*.jsonl")))
    assert jobs["candidates"] == answered and jobs["prompt"] == answered and "train_reader" not in jobs
    assert not {"retrieve", "chunk", "bm25"} & set(jobs)


def test_the_selector_threshold_is_an_answering_setting(built):
    jobs = planned_after_edit(built, "mini.yaml", "threshold: 0.3}", "threshold: 0.5}")
    answered = len(list((built / "results/mini/candidates").glob("*.jsonl")))
    assert jobs["generate"] == answered and "train_reader" not in jobs and "candidates" not in jobs


def test_an_answering_setting_reanswers_without_retraining(built):
    jobs = planned_after_edit(built, "mini.yaml", "steps: 12,", "steps: 12, min_support: 0.3,")
    answered = len(list((built / "results/mini/answers/minigpt").glob("*.jsonl")))
    assert "train_reader" not in jobs and jobs["generate"] == answered and jobs["report"] == 1


def test_indexing_without_context_reruns_bm25_not_chunk_or_embed(built):
    jobs = planned_after_edit(built, "mini.yaml", "    assertions: fixture/assertions.yaml",
                              "    assertions: fixture/assertions.yaml\n    bm25: {plain: {with_context: false}}")
    assert jobs["bm25"] == 1 and "chunk" not in jobs and "embed" not in jobs


def test_vocab_size_change_reruns_tokenizer_and_downstream_not_curate(built):
    jobs = planned_after_edit(built, "mini.yaml", "vocab_size: 400", "vocab_size: 420")
    assert {"train_tokenizer", "chunk", "embed", "bm25"} <= set(jobs)
    assert "curate" not in jobs and "questions" not in jobs


def test_editing_chunk_code_reruns_chunk_and_downstream(built):
    jobs = planned_after_edit(built, "minirag/text/chunker.py", '"""', '"""Edited. ')
    assert "chunk" in jobs and "evaluate" in jobs and "report" in jobs
    assert not UPSTREAM & set(jobs)


def test_editing_the_chunk_stage_module_reruns_chunk_and_downstream_not_curate(built):
    jobs = planned_after_edit(built, "minirag/stages/chunk.py", '"""', '"""Edited. ')
    assert {"chunk", "bm25", "embed", "retrieve", "evaluate", "report"} <= set(jobs)
    assert not UPSTREAM & set(jobs)
    assert jobs["chunk"] == 1


def test_editing_the_report_module_reruns_only_the_report(built):
    assert planned_after_edit(built, "minirag/report/markdown.py", '"""', '"""Edited. ') == {"report": 1}
    assert planned_after_edit(built, "minirag/stages/report.py", '"""', '"""Edited. ') == {"report": 1}


def test_editing_the_bm25_module_plans_no_embedding(built):
    jobs = planned_after_edit(built, "minirag/index/bm25/index.py", '"""', '"""Edited. ')
    assert jobs["bm25"] == 1 and "retrieve" in jobs
    assert not (UPSTREAM | {"chunk", "embed"}) & set(jobs)


def test_editing_a_kind_s_module_reruns_the_runs_of_its_kinds_and_of_those_over_them(built):
    # reorders.py: bm25-cap, rrf-mmr and its sweep point, bm25-rerank; no channel's or fusion's run
    assert planned_after_edit(built, "minirag/rank/kinds/reorders.py", '"""', '"""Edited. ')["retrieve"] == 4
    # fusions.py: rrf, linear, and rrf-mmr with its sweep point, which re-order rrf's run; no reranker's training
    jobs = planned_after_edit(built, "minirag/rank/kinds/fusions.py", '"""', '"""Edited. ')
    assert jobs["retrieve"] == 4 and "train_reranker" not in jobs


def test_editing_the_reader_reruns_no_run(built):
    # the answer selector is the reader's code and a feedback run's (none here), not a channel's or a fusion's
    jobs = planned_after_edit(built, "minirag/answer/select/selector.py", '"""', '"""Edited. ')
    assert "retrieve" not in jobs and "train_reranker" not in jobs and {"train_reader", "candidates"} <= set(jobs)


def test_a_kind_added_reruns_no_run(built):
    added = built / "minirag/rank/kinds/added.py"
    added.write_text('"""A kind no config names."""\nfrom dataclasses import dataclass\n\nfrom .base import '
                     'RetrieverKind\n\n\n@dataclass(frozen=True)\nclass AddedSettings:\n    n: int = 1\n\n\n'
                     'class Added(RetrieverKind):\n    type, Settings = "added", AddedSettings\n', encoding="utf-8")
    try:
        jobs = planned_jobs(built)
    finally:
        added.unlink()
    assert "retrieve" not in jobs and "train_reranker" not in jobs
    assert "report" in jobs  # the report describes every kind: it reads them all


def test_editing_a_module_only_imported_by_a_stage_reruns_that_stage(built):
    # analyze.py is named by no rule: bm25.py and the hashing embedder import it; chunking does not.
    jobs = planned_after_edit(built, "minirag/text/analyze.py", '"""', '"""Edited. ')
    assert "bm25" in jobs and "embed" in jobs and "retrieve" in jobs
    assert not (UPSTREAM | {"chunk"}) & set(jobs)


def test_an_edited_chunk_is_refused_by_the_next_stage_that_reads_it(built):
    root = built / "results" / "mini"
    chunks_path = root / "chunks.jsonl"
    original = chunks_path.read_text(encoding="utf-8")
    lines = original.splitlines()
    rec = json.loads(lines[2])
    rec["text"] = rec["text"] + " (edited)"
    lines[2] = json.dumps(rec, ensure_ascii=False)
    chunks_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        proc = run([sys.executable, "-m", "minirag.stages.retrieve", "--name", "dense",
                    "--settings", '{"type": "dense", "embedder": "hashing", "depth": 10}',
                    "--questions", str(root / "questions.jsonl"), "--docs", str(root / "docs.jsonl"),
                    "--chunks", str(chunks_path), "--files", "vectors:hashing", str(root / "vectors" / "hashing.npy"),
                    "--out", str(built / "stale.trec")], built, check=False)
    finally:
        chunks_path.write_text(original, encoding="utf-8")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "results/mini/chunks.jsonl: changed since its job wrote it" in proc.stderr
    assert "receipts/chunk.json" in proc.stderr and "snakemake -c1" in proc.stderr
    assert not (built / "stale.trec").exists()


def test_search_and_answer_cli_on_built_artifacts(built):
    common = ["--corpus", "mini", "--configfile", "mini.yaml"]
    proc = run([sys.executable, "-m", "minirag", "search", "past tense of eat", "--retriever", "bm25",
                "-k", "3", "--json", *common], built)
    out = json.loads(proc.stdout)
    assert len(out["results"]) == 3 and out["results"][0]["doc_id"].startswith("en/")
    proc = run([sys.executable, "-m", "minirag", "answer", "¿Cómo se conjuga tener en pretérito para yo?", "--json",
                *common], built)
    ans = json.loads(proc.stdout)
    assert "tuve" in ans["answer"] and not ans["abstained"]
    cited = ans["citations"][0]
    assert ans["retrieved"][cited["n"] - 1]["chunk_id"] == cited["chunk_id"]  # [#n] is the n-th chunk retrieved
    assert cited["doc_id"] == "es/preterito.md"


@pytest.mark.parametrize("retriever", ["rrf", "linear", "bm25-cap", "rrf-mmr"])
def test_live_retrievers_rank_as_their_run_files(built, retriever):
    # `search` rebuilds the retriever from artifacts; its top 5 must be the run file's.
    from minirag.evaluation.trec import read_run
    ranked = read_run(built / "results" / "mini" / "runs" / f"{retriever}.trec")["f-03"]
    proc = run([sys.executable, "-m", "minirag", "search", "past tense of try", "--retriever", retriever,
                "-k", "5", "--json", "--corpus", "mini", "--configfile", "mini.yaml"], built)
    got = [r["chunk_id"] for r in json.loads(proc.stdout)["results"]]
    assert got == [cid for cid, _ in ranked[:5]]


def test_assert_command_exits_nonzero_on_a_failure(built):
    proc = run([sys.executable, "-m", "minirag", "assert", "--corpus", "mini", "--configfile", "mini.yaml"], built,
               check=False)
    assert proc.returncode == 1
    assert "FAIL bm25 f-04: top 5 does not contain es/preterito.md" in proc.stdout and "5 of 6 passed" in proc.stdout


def test_strict_assertions_fail_the_build(built):
    restore = edit(built / "mini.yaml", "assertions: fixture/assertions.yaml",
                   "assertions: fixture/assertions.yaml\n    strict: true")
    try:
        proc = snakemake(built, "results/mini.md", check=False)
    finally:
        restore()
    assert proc.returncode != 0 and "failed: mini: assertions" in proc.stdout + proc.stderr


def test_search_on_missing_artifacts_names_the_command(tmp_path):
    project = copy_project(tmp_path)
    proc = run([sys.executable, "-m", "minirag", "search", "x", "--corpus", "mini", "--configfile", "mini.yaml"],
               project, check=False)
    assert proc.returncode == 2
    assert "results/mini/chunks.jsonl is missing" in proc.stderr and "make build CONFIG=mini.yaml" in proc.stderr


@pytest.mark.parametrize("extra, message", [
    ("    retrievers:\n      dense: {type: dense}\n      fused: {type: rrf, of: [dense, nope]}\n",
     "corpora.mini.retrievers.fused.of: unknown retriever 'nope' (have: dense, fused)"),
    ("    chunk: {target_tokens: many}\n", "corpora.mini.chunk.target_tokens: 'many' is not of type 'integer'"),
    ("    retrievers:\n      r: {type: colbert}\n", "corpora.mini.retrievers.r.type: 'colbert' is not one of"),
    ("    chunck: {target_tokens: 40}\n", "corpora.mini.chunck: unknown key, did you mean 'chunk'?"),
])
def test_bad_config_fails_before_any_job_naming_the_key(tmp_path, extra, message):
    project = copy_project(tmp_path)
    cfg = project / "mini.yaml"
    text = cfg.read_text()
    # replace the retrievers block or add a chunk block at the end of the corpus
    if extra.strip().startswith("retrievers"):
        text = text.split("    retrievers:")[0]
    if extra.strip().startswith("chunk"):  # a key twice is its own error: replace the fixture's chunk block
        text = "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("    chunk:"))
    cfg.write_text(text + extra)
    proc = snakemake(project, "results/mini.md", check=False)
    assert proc.returncode != 0
    lines = (proc.stdout + proc.stderr).splitlines()  # one line naming the key, not the schema
    assert len(lines) == 1 and lines[0].startswith("config error: ") and message in lines[0], lines[:5]
    assert not (project / "results").exists()


def test_bad_document_fails_the_build_naming_the_file(tmp_path):
    project = copy_project(tmp_path)
    (project / "fixture" / "docs" / "en" / "broken.md").write_text("---\ntitle: [a, b]\nlang: en\n---\n# A list\n",
                                                                 encoding="utf-8")
    proc = snakemake(project, "results/mini.md", check=False)
    assert proc.returncode != 0
    log = (project / "results" / "mini" / "logs" / "curate.log").read_text()
    assert "broken.md:2: title must be a non-empty string" in log
    assert not (project / "results" / "mini" / "docs.jsonl").exists()


BIENCODER_CONFIG = MINI_CORPUS + """\
    embedders:
      hashing: {type: hashing, dim: 64}
      tiny: {type: biencoder, d: 8, hidden: 16, token_dim: 16, epochs: 2, batch_size: 16}
    retrievers:
      hashing: {type: dense, embedder: hashing}
      tiny: {type: dense, embedder: tiny}
      bm25: {type: bm25, index: plain}
      hybrid: {type: rrf, of: [tiny, bm25], k: 60}
    diagnose: {embedder: tiny}
    assertions: targets.yaml
"""

# Only targets: the seed's acceptance figures, reported and never failing the build.
TARGETS = """\
assertions: []
targets:
  - {retriever: hybrid, metric: hit@5, above_inputs: 0.05}
  - {retriever: "*", best: true, metric: recall@5, slice: {tags: conjugation}, at_least: 0.95}
"""


def test_biencoder_is_trained_embedded_and_reported_against_its_control(tmp_path):
    project = copy_project(tmp_path)
    (project / "be.yaml").write_text(BIENCODER_CONFIG, encoding="utf-8")
    (project / "targets.yaml").write_text(TARGETS, encoding="utf-8")
    snakemake(project, "results/be.md", configfile="be.yaml")
    root = project / "results" / "mini"
    sidecar = json.loads((root / "encoders" / "tiny.json").read_text())
    assert len(sidecar["loss_per_epoch"]) == 2 and sidecar["tokenizer_sha256"]
    assert sum(sidecar["pairs_by_source"].values()) == sidecar["training_pairs"]
    assert set(sidecar["pairs_by_source"]) <= {"title", "ict", "crops", "table_rows"}
    assert json.loads((root / "vectors" / "tiny.json").read_text())["encoder_sha256"]
    assert (root / "figures" / "loss-tiny.png").stat().st_size > 0
    report = (project / "results" / "be.md").read_text()
    metrics = json.loads((root / "eval" / "metrics.json").read_text())["retrieval"]
    trained, control = metrics["tiny"]["chunk"]["hit@5"], metrics["hashing"]["chunk"]["hit@5"]
    verdict = "beats" if trained > control else "does not beat"
    assert f"- `tiny` {verdict} the untrained control `hashing` on chunk hit@5: {trained:.3f} vs {control:.3f}" in report
    assert f"MiniBiEncoder trained on {sidecar['training_pairs']:,} pairs (" in report
    assert "### Encoder `tiny`" in report and "![training loss](mini/figures/loss-tiny.png)" in report
    assert "| `hybrid` | RRF k=60 of tiny + bm25 |" in report
    # the targets, read from assertions.json, agree with metrics.json
    tag = json.loads((root / "eval" / "metrics.json").read_text())["tags"]
    recall = max(tag[r]["conjugation"]["chunk"]["recall@5"] for r in metrics)
    line = re.search(r"\| best of 4 runs: recall@5 \(chunk\) on tags=conjugation at least 0\.95 \| best is ([\w-]+) "
                     r"with recall@5 = ([\d.]+) \| (not met|met) \|", report)
    assert line and tag[line[1]]["conjugation"]["chunk"]["recall@5"] == recall
    assert (line[2], line[3]) == (f"{recall:.3f}", "met" if recall >= 0.95 else "not met")
    hybrid, best_channel = metrics["hybrid"]["chunk"]["hit@5"], max(trained, metrics["bm25"]["chunk"]["hit@5"])
    verdict = "met" if hybrid >= best_channel + 0.05 - 1e-9 else "not met"
    assert re.search(rf"\| `hybrid` \| RRF k=60 of tiny \+ bm25 \| {hybrid:.3f} \| .* \| {verdict} \|", report)
    assert "### Targets: " in report and "### Assertions" in report


def test_the_html_report_opens_on_the_summary_and_links_snakemakes_report_with_every_figure(built):
    """As make report-html builds them: Snakemake's report holds every figure; the page beside it opens on
    the corpus's summary lines and its three summary figures, embedded, and links to it."""
    snakemake(built, "--report", "results/report-workflow.html")
    workflow = (built / "results" / "report-workflow.html").read_text(encoding="utf-8")
    assert "sweep-rrf-mmr-lambda.png" in workflow and "data:image/png" in workflow and "mini.md" in workflow
    run([sys.executable, "-m", "minirag.report.landing", "results/mini.md", "results/report.html"], built)
    html = (built / "results" / "report.html").read_text(encoding="utf-8")
    assert "<h2>Corpus <code>mini</code></h2>" in html and "<li>Best retriever by chunk hit@5: <code>" in html
    assert html.count('src="data:image/png;base64,') == 3 and '<a href="report-workflow.html">' in html


@pytest.mark.slow  # a real browser: pytest -m slow (Debian's chromium; bench/report_screenshot.py --install)
def test_the_html_reports_first_screen_shows_the_figures_in_a_browser(built, tmp_path):
    """Headless Chromium renders report.html at a laptop's first screen (1280 x 900): its DOM holds the
    three embedded figures, and the screenshot is mostly not blank and holds the figures' colours."""
    import shutil

    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("chromium is not installed (apt-get install chromium)")
    import matplotlib.image
    from support.project import REPO

    run([sys.executable, "-m", "minirag.report.landing", "results/mini.md", "results/report.html"], built)
    shot = tmp_path / "first-screen.png"
    proc = run([sys.executable, str(REPO / "bench" / "report_screenshot.py"), "--report", "results/report.html",
                "--out", str(shot), "--size", "1280,900", "--json"], built)
    said = json.loads(proc.stdout)
    assert said["ok"] and said["images_per_corpus"] == [3], said
    pixels = matplotlib.image.imread(shot)[..., :3]  # (900, 1280, 3) in [0, 1]
    coloured = (pixels.max(axis=-1) - pixels.min(axis=-1)) > 0.25  # bars and lines, not black or grey text
    assert pixels.shape[:2] == (900, 1280) and coloured.mean() > 0.01, coloured.mean()


def files_under(folder) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_reading_the_workflow_writes_nothing_under_results(project):
    """A dry run and --lint only read: no results folder appears on a fresh project."""
    snakemake(project, "-n", "results/mini.md")
    snakemake(project, "--lint", check=False)
    assert not (project / "results").exists()


def test_a_deleted_artifact_is_rebuilt_once_and_a_dry_run_writes_no_note_of_it(built):
    target = built / "results/mini/eval/diagnosis.csv"
    target.unlink()
    before = files_under(built / "results")
    jobs = planned_jobs(built)
    assert jobs.get("diagnose") == 1 and jobs.get("note_missing") == 1 and jobs.get("report") == 1
    assert files_under(built / "results") == before  # the dry run noted nothing
    snakemake(built, "results/mini.md")
    notes = sorted((built / "results/mini/missing").glob("*.txt"))
    assert target.exists() and notes and "results/mini/eval/diagnosis.csv" in notes[-1].read_text()
    assert planned_jobs(built) == {}  # the note it read stays its input: nothing to do afterwards


def test_an_analyzers_word_lists_are_inputs_of_the_jobs_that_analyze_with_it(project):
    """Editing a stopword or filler list reruns the index and the runs that read it (Snakemake
    compares inputs' times): the dry run of a fresh project shows them as inputs."""
    (project / "mini.yaml").write_text(config_with({
        "bm25": {"plain": {}, "sw": {"analyzer": {"stopwords": ["en"], "query_stopwords": ["es"]}}},
        "retrievers": {"bm25-sw": {"type": "bm25", "index": "sw"}}}), encoding="utf-8")
    out = snakemake(project, "-n", "results/mini/runs/bm25-sw.trec").stdout
    jobs = {m.group(1): m.group(2) for m in re.finditer(r"^rule (\w+):\n    input: ([^\n]*)", out, re.MULTILINE)}
    lists = {"minirag/text/data/stopwords_en.txt", "minirag/text/data/filler_es.txt"}
    assert lists <= set(jobs["bm25"].split(", ")) and lists <= set(jobs["retrieve"].split(", "))
    assert "stopwords_es" not in jobs["bm25"]
