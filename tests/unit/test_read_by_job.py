"""A BM25 index over units opens without reading the units when its job's receipt says it read this very
units.jsonl: `read_by_job` compares the file with the sha256 the receipt records."""

from minirag.artifacts.integrity import read_by_job, write_receipt
from minirag.artifacts.io import write_json
from minirag.artifacts.layout import CorpusLayout


def test_a_job_read_the_file_only_as_its_receipt_recorded_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    layout = CorpusLayout.of("results", "c")
    layout.root.mkdir(parents=True)
    layout.units.write_text('{"id": "u1"}\n', encoding="utf-8")
    items = layout.bm25("ngram") / "items.json"
    items.parent.mkdir(parents=True)
    write_json(items, {"rows": []})
    write_receipt(layout.receipt("bm25", "ngram"), "bm25", "ngram", {}, [layout.units], [items])
    assert read_by_job(items, layout.units)
    assert not read_by_job(items, layout.chunks)  # a file the job did not read
    layout.units.write_text('{"id": "u2"}\n', encoding="utf-8")
    assert not read_by_job(items, layout.units)  # the units changed since the index was built
