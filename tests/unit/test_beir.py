"""BEIR folders read in place: documents, judged queries, training pairs, the one train-on-test
guard, and the md5-checked download (from a local file:// zip: no network in tests)."""

import hashlib
import json
import zipfile

import pytest

from minirag.datasets.beir import (
    beir_train_pairs,
    curate_beir,
    download_beir,
    load_beir_questions,
    read_qrels,
)
from minirag.text.corpus import CorpusError


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def beir(tmp_path):
    write(tmp_path / "queries.jsonl",
          "".join(json.dumps(q) + "\n" for q in [{"_id": "1", "text": "q one"}, {"_id": "2", "text": "q two"}]))
    write(tmp_path / "corpus.jsonl",
          "".join(json.dumps(d) + "\n" for d in [{"_id": "d1", "title": "T1", "text": "body one"},
                                                 {"_id": "d2", "title": "", "text": "body two"}]))
    rows = "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td2\t1\n2\td1\t0\n"
    write(tmp_path / "qrels" / "train.tsv", rows)
    write(tmp_path / "qrels" / "test.tsv", rows)
    return tmp_path


def test_duplicate_doc_id_is_rejected(tmp_path):
    write(tmp_path / "corpus.jsonl", '{"_id": "1", "title": "a", "text": "x"}\n{"_id": "1", "title": "b", "text": "y"}\n')
    with pytest.raises(CorpusError, match="duplicate doc id '1'"):
        curate_beir(tmp_path)


def test_questions_keep_only_judged_queries_of_the_split(tmp_path):
    write(tmp_path / "corpus.jsonl", '{"_id": "d1", "title": "", "text": "x"}\n{"_id": "d2", "title": "", "text": "y"}\n')
    write(tmp_path / "queries.jsonl", '{"_id": "1", "text": "q one"}\n{"_id": "2", "text": "q two"}\n')
    write(tmp_path / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\n2\td2\t1\n")
    (q,) = load_beir_questions(tmp_path, "test", curate_beir(tmp_path))
    assert q["qid"] == "2" and q["answerable"] and [g["doc_id"] for g in q["gold"]] == ["d2"]


def dangling(tmp_path):
    """ARCD's warts in small: qrels judge queries queries.jsonl lacks, and a document corpus.jsonl lacks."""
    write(tmp_path / "corpus.jsonl", '{"_id": "d1", "text": "x"}\n{"_id": "d2", "text": "y"}\n')
    write(tmp_path / "queries.jsonl", '{"_id": "1", "text": "q one"}\n{"_id": "2", "text": "q two"}\n')
    write(tmp_path / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td9\t1\n3\td1\t1\n4\td2\t1\n")
    return curate_beir(tmp_path)


def test_qrels_naming_absent_queries_warn_once_with_counts_and_evaluate_the_present(tmp_path):
    warned = []
    qs = load_beir_questions(tmp_path, "test", dangling(tmp_path), warn=warned.append)
    assert [q["qid"] for q in qs] == ["1", "2"]
    assert len(warned) == 2 and "2 of 4 judged queries are not in queries.jsonl" in warned[0]
    assert "evaluating on the 2 present" in warned[0] and warned[0].startswith("warning: ")
    # a judged document absent from the corpus stays in the gold: the query scores 0 on it, as in trec_eval
    assert "1 relevance judgement(s) of 1 query(ies)" in warned[1] and "'d9'" in warned[1]
    assert qs[1]["answerable"] and [g["doc_id"] for g in qs[1]["gold"]] == ["d9"]


def test_strict_qrels_makes_absent_queries_an_error(tmp_path):
    docs = dangling(tmp_path)
    with pytest.raises(CorpusError, match=r"test.tsv: 2 of 4 judged queries are not in queries.jsonl.*strict_qrels"):
        load_beir_questions(tmp_path, "test", docs, strict=True)


def test_qrels_with_or_without_a_header_read_alike(tmp_path):
    write(tmp_path / "a.tsv", "query-id\tcorpus-id\tscore\n1\td1\t2\n")
    write(tmp_path / "b.tsv", "1\td1\t2\n")
    assert read_qrels(tmp_path / "a.tsv") == read_qrels(tmp_path / "b.tsv") == {"1": {"d1": 2}}


def test_a_qrels_row_without_an_integer_score_names_its_line(tmp_path):
    write(tmp_path / "q.tsv", "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td2\n")
    with pytest.raises(CorpusError, match=r"q.tsv:3: expected query-id, corpus-id, integer score"):
        read_qrels(tmp_path / "q.tsv")


def test_train_pairs_pair_queries_with_title_and_text_of_relevant_documents(beir):
    pairs = beir_train_pairs(beir, "train", "test")
    assert pairs == [("qrels_train", "q one", "T1 body one"), ("qrels_train", "q two", "body two")]


def test_the_evaluation_split_is_never_used_for_training(beir):
    with pytest.raises(ValueError, match="'test' is the evaluation split"):
        beir_train_pairs(beir, "test", "test")


def test_unknown_ids_in_training_qrels_are_an_error(beir):
    write(beir / "qrels" / "dev.tsv", "query-id\tcorpus-id\tscore\n9\td1\t1\n")
    with pytest.raises(ValueError, match="unknown query '9'"):
        beir_train_pairs(beir, "dev", "test")


def make_zip(tmp_path):
    zpath = tmp_path / "scifact.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("scifact/corpus.jsonl", '{"_id": "1", "title": "t", "text": "x"}\n')
        zf.writestr("scifact/queries.jsonl", '{"_id": "q", "text": "y"}\n')
        zf.writestr("scifact/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq\t1\t1\n")
    return zpath, hashlib.md5(zpath.read_bytes()).hexdigest()


def test_download_checks_md5_and_unpacks(tmp_path):
    zpath, md5 = make_zip(tmp_path)
    out = download_beir(zpath.as_uri(), md5, tmp_path / "data" / "scifact", progress=lambda m: None)
    assert (out / "corpus.jsonl").exists() and (out / "qrels" / "test.tsv").exists()


def test_wrong_md5_unpacks_nothing(tmp_path):
    zpath, _ = make_zip(tmp_path)
    with pytest.raises(ValueError, match="does not match the published"):
        download_beir(zpath.as_uri(), "0" * 32, tmp_path / "data" / "scifact", progress=lambda m: None)
    assert not (tmp_path / "data" / "scifact").exists()
    assert list((tmp_path / "data").iterdir()) == []
