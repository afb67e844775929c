import hashlib
import zipfile

import pytest

from minirag.download import download_beir


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
