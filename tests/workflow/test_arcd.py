"""workflow/config.arcd.yaml built as shipped on ../shared/datasets/arcd (255 Arabic passages, 50
questions), with one change that keeps the suite fast: its pretrained encoder is the tiny BERT of
tests/unit/test_bert.py, whose 30-word English vocabulary represents Arabic no better than
all-MiniLM's does (bench/README.md has the build with all-MiniLM itself)."""

import json
from pathlib import Path

import pytest
import yaml
from support.project import REPO, copy_project, snakemake

pytestmark = pytest.mark.workflow
ARCD = REPO.parent / "shared" / "datasets" / "arcd"


@pytest.mark.skipif(not ARCD.is_dir(), reason="needs ../shared/datasets/arcd beside the repository")
def test_the_arcd_config_builds_with_the_qrels_warning_the_arabic_bm25_and_the_encoder_warning(tmp_path):
    pytest.importorskip("tokenizers")
    pytest.importorskip("safetensors")
    from support.bert_model import make_model
    (tmp_path / "p").mkdir()
    project = copy_project(tmp_path / "p")
    config = yaml.safe_load((REPO / "workflow" / "config.arcd.yaml").read_text(encoding="utf-8"))
    corpus = config["corpora"]["arcd"]
    corpus["source"]["path"] = str(ARCD)
    corpus["embedders"]["minilm"]["path"] = str(make_model(tmp_path / "tiny", max_seq_length=24))
    (project / "arcd.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    snakemake(project, "results/arcd.md", configfile="arcd.yaml")

    warned = (project / "results/arcd/logs/questions.log").read_text(encoding="utf-8").splitlines()
    assert [w.split(": ", 1)[1].split(";")[0] for w in warned if w.startswith("warning:")] == [
        f"{ARCD}/qrels/test.tsv: 652 of 702 judged queries are not in queries.jsonl (first: 'arcd-q0')",
        f"{ARCD}/qrels/test.tsv: 1 relevance judgement(s) of 1 query(ies) name documents absent from "
        "corpus.jsonl (first: 'arcd-doc183' for 'arcd-q549')"]
    metrics = json.loads((project / "results/arcd/eval/metrics.json").read_text())
    assert metrics["questions"] == metrics["answerable"] == 50
    ndcg = {r: m["doc"]["ndcg@10"] for r, m in metrics["retrieval"].items()}
    # the Arabic analyzer against the plain one on the same 50 questions (issue 28's target: 0.78)
    assert ndcg["bm25-arabic"] >= 0.78 and ndcg["bm25"] < ndcg["bm25-arabic"], ndcg
    sidecar = json.loads((project / "results/arcd/vectors/minilm.json").read_text())
    assert list(sidecar["tokens"]) == ["ar"] and sidecar["tokens"]["ar"]["texts"] == 255
    report = (project / "results/arcd.md").read_text(encoding="utf-8")
    assert "**Warning:** `minilm`" in report and "cannot represent the corpus's `ar` text" in report
    assert "Arabic normalized" in report

    corpus["source"]["strict_qrels"] = True
    (project / "strict.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    failed = snakemake(project, "results/arcd/questions.jsonl", configfile="strict.yaml", check=False)
    assert failed.returncode != 0
    log = (project / "results/arcd/logs/questions.log").read_text(encoding="utf-8")
    assert "error:" in log and "652 of 702 judged queries are not in queries.jsonl" in log and "strict_qrels" in log
    assert "Traceback" not in log


def test_the_arcd_config_points_at_the_shared_folder_and_builds_its_own_report():
    config = yaml.safe_load((REPO / "workflow" / "config.arcd.yaml").read_text(encoding="utf-8"))
    assert config["report"] == "arcd" and config["build"] == ["arcd"]
    assert Path(config["corpora"]["arcd"]["source"]["path"]) == Path("../shared/datasets/arcd")
