"""Sharded builds (`shards: N`): a document's shard, the exact BM25 and vectors merges, the
fixture corpus built with 1 and with 3 shards giving the same run files byte for byte, and
editing one document rerunning only its shard's jobs (and the merges after them)."""

import filecmp
import json
import re

import numpy as np
import pytest

pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")
from support.bert_model import make_model  # noqa: E402
from support.project import FIXTURE, copy_project, snakemake  # noqa: E402

from minirag.index.bm25.index import BM25Index, BM25Params  # noqa: E402
from minirag.index.bm25.postings import Postings  # noqa: E402
from minirag.index.bm25.shards import merged_index  # noqa: E402
from minirag.pipeline.shards import in_shard, merge_by_document, shard_of  # noqa: E402
from minirag.text.analyze import Analyzer, AnalyzerConfig  # noqa: E402

pytestmark = pytest.mark.workflow

# A light corpus config: no reader to train, two embedders (one fitted on the corpus, one
# fixed model), two BM25 indexes (one with the title field), a fusion on top.
SHARDED_CONFIG = """\
build: [mini]
corpora:
  mini:
    source: {format: markdown, path: fixture/docs, questions: fixture/questions.jsonl}
    chunk: {strategy: chars, size: 300, overlap: 40}
SHARDS
    embedders: {hashing: {type: hashing}, tiny: {type: pretrained, path: tiny-bert, batch_size: 2}}
    bm25: {title: {title_weight: 0.5, k1: 0.9, b: 0.4}}
    retrievers:
      dense: {type: dense, embedder: hashing}
      tiny: {type: dense, embedder: tiny}
      bm25-title: {type: bm25, index: title}
      rrf: {type: rrf, of: [dense, tiny, bm25-title], k: 60}
    readers: {extractive: {type: extractive}}
"""
RUNS = ["dense", "tiny", "bm25-title", "rrf"]
DOCS = sorted(p.relative_to(FIXTURE / "docs").as_posix() for p in (FIXTURE / "docs").rglob("*.md"))


def sharded_project(root, shards: int):
    project = copy_project(root)
    make_model(project / "tiny-bert")
    (project / "mini.yaml").write_text(SHARDED_CONFIG.replace("SHARDS", f"    shards: {shards}"), encoding="utf-8")
    return project


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The fixture corpus built (to its run files) whole and in 3 shards."""
    out = {}
    for shards in (1, 3):
        project = sharded_project(tmp_path_factory.mktemp(f"shards{shards}"), shards)
        snakemake(project, "-c2", *[f"results/mini/runs/{r}.trec" for r in RUNS])
        out[shards] = project
    return out


# ------------------------------------------------------------------ a document's shard


def test_a_documents_shard_depends_on_its_id_alone():
    assert [shard_of(d, 3) for d in DOCS] == [shard_of(d, 3) for d in DOCS]  # no state
    assert shard_of("en/index.md", 1) == 0
    spread = np.bincount([shard_of(f"doc-{i}", 4) for i in range(4000)], minlength=4)
    assert spread.min() > 900  # a hash, not a bias towards low shards
    assert sorted(i for s in range(3) for i in in_shard(DOCS, s, 3)) == list(range(len(DOCS)))
    with pytest.raises(ValueError, match="shard 3 is not one of 0..2"):
        in_shard(DOCS, 3, 3)


def test_merging_restores_document_order_and_refuses_a_document_in_two_shards():
    parts = [[("b", 1), ("b", 2)], [("a", 1), ("c", 1)]]
    assert list(merge_by_document(parts, ["a", "b", "c"], lambda x: x[0])) == [("a", 1), ("b", 1), ("b", 2), ("c", 1)]
    assert list(merge_by_document([iter(p) for p in parts], iter(["a", "x", "b", "c"]), lambda x: x[0])) == \
        [("a", 1), ("b", 1), ("b", 2), ("c", 1)]  # streams in, a document without items
    with pytest.raises(ValueError, match="'b' has items in shards 0 and 1"):
        list(merge_by_document([[("b", 1)], [("b", 2)]], ["b"], lambda x: x[0]))
    with pytest.raises(ValueError, match="'z'.*docs.jsonl does not hold"):
        list(merge_by_document([[("z", 1)]], ["a"], lambda x: x[0]))
    with pytest.raises(ValueError, match="'a'.*not in its order"):  # a shard out of docs.jsonl's order
        list(merge_by_document([[("c", 1), ("a", 1)]], ["a", "b", "c"], lambda x: x[0]))


# ------------------------------------------------------------------ the BM25 merge, in memory


@pytest.mark.parametrize("block", [1, 7, 1 << 22])  # postings per merge block: many blocks, a few, one
@pytest.mark.parametrize("variant", ["lucene", "robertson"])
@pytest.mark.parametrize("title_weight", [0.0, 0.7])
def test_postings_merged_from_random_shards_score_as_the_whole(title_weight, variant, block):
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(40)]
    texts = [" ".join(rng.choice(words, size=rng.integers(0, 12), p=np.arange(40, 0, -1) / 820)) for _ in range(60)]
    titles = [f"title {rng.choice(words)}" for _ in texts]
    analyzer = Analyzer(AnalyzerConfig())
    params = BM25Params(variant=variant, k1=1.2, b=0.6, title_weight=title_weight)
    whole = BM25Index.build(texts, analyzer, params, titles)
    owner = rng.integers(0, 4, size=len(texts))  # shard 3 may be small; every shard is its own Postings
    rows = [np.flatnonzero(owner == s) for s in range(4)]
    field = (lambda r: [titles[i] for i in r]) if title_weight > 0 else (lambda r: None)
    parts = [Postings.build([texts[i] for i in r], analyzer, field(r)) for r in rows]
    merged = merged_index(parts, rows, len(texts), analyzer, params, block=block)
    assert merged.vocab == whole.vocab and merged.avgdl == whole.avgdl
    for name, array in whole.arrays.items():
        assert merged.arrays[name].dtype == array.dtype and np.array_equal(merged.arrays[name], array), name
    with pytest.raises(ValueError, match="in no shard"):
        merged_index(parts[:3], rows[:3], len(texts), analyzer, params)


# ------------------------------------------------------------------ the graph


def test_three_shards_build_the_whole_corpus_byte_for_byte(builds):
    whole, sharded = builds[1], builds[3]
    receipts = {p.name for p in (sharded / "results/mini/receipts").iterdir()}
    assert {f"{stage}.{i}.json" for stage in ("curate_shard", "chunk_shard") for i in range(3)} <= receipts
    assert {f"embed_shard.{i}.{e}.json" for i in range(3) for e in ("hashing", "tiny")} <= receipts
    assert {f"bm25_shard.{i}.title.json" for i in range(3)} <= receipts
    assert not (whole / "results/mini/shards").exists()
    per_shard = [len((sharded / f"results/mini/shards/{i}/docs.jsonl").read_text().splitlines()) for i in range(3)]
    assert sorted(per_shard) == [1, 1, 3] and sum(per_shard) == len(DOCS)
    same = ["chunks.jsonl", "vectors/hashing.npy", "vectors/hashing.json", "vectors/tiny.npy", "vectors/tiny.json"]
    same += [f"bm25/title/{f}" for f in ("index.npz", "vocab.json", "params.json", "items.json")]
    same += [f"runs/{r}.trec" for r in RUNS]
    for name in same:
        assert filecmp.cmp(whole / "results/mini" / name, sharded / "results/mini" / name, shallow=False), name
    # the merges carry the unsharded stages' receipts, so everything downstream reads them alike
    for receipt in ("chunk.json", "embed.tiny.json", "bm25.title.json"):
        rec = json.loads((sharded / "results/mini/receipts" / receipt).read_text())
        assert rec["outputs"] == json.loads((whole / "results/mini/receipts" / receipt).read_text())["outputs"]


def planned(project, *targets: str) -> dict[str, int]:
    """Jobs per rule that `snakemake -n` plans for the targets (default: the run files)."""
    out = snakemake(project, "-n", *(targets or [f"results/mini/runs/{r}.trec" for r in RUNS])).stdout
    if "Nothing to be done" in out:
        return {}
    table = out.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.MULTILINE)}


def test_editing_one_document_reruns_its_shard_and_the_merges_only(builds):
    project = builds[3]
    assert planned(project) == {}
    doc = project / "fixture/docs/en/past-simple.md"  # shard 0 of 3, alone there
    text = doc.read_text(encoding="utf-8")
    doc.write_text(text + "\nOne more line about the past simple.\n", encoding="utf-8")
    try:
        jobs = planned(project)
    finally:
        doc.write_text(text, encoding="utf-8")
    assert jobs["curate_shard"] == 1 and jobs["chunk_shard"] == 1 and jobs["bm25_shard"] == 1
    # the fixed model re-embeds the one shard; hashing's IDF is the corpus's, so its shards all re-embed
    assert jobs["embed_shard"] == 1 + 3
    assert jobs["merge_chunks"] == 1 and jobs["merge_vectors"] == 2 and jobs["merge_bm25"] == 1
    assert not {"chunk", "embed", "bm25"} & set(jobs)  # the unsharded rules do not apply to a sharded corpus
    assert jobs["curate"] == 1 and jobs["retrieve"] == len(RUNS)


def test_an_empty_shard_is_curated_chunked_indexed_and_embedded_as_nothing(builds, tmp_path):
    from minirag.index.bm25.shards import load_postings
    from minirag.stages.bm25_shard import bm25_shard
    from minirag.stages.chunk import chunk
    from minirag.stages.common import run_stage
    from minirag.stages.curate import curate
    from minirag.stages.embed import embed
    root = tmp_path / "results/mini"
    docs, chunks = root / "shards/3/docs.jsonl", root / "shards/3/chunks.jsonl"
    settings = {"format": "markdown", "fields": {}, "default_lang": "", "langs": []}
    fixture = builds[3] / "fixture/docs"
    assert not [d for d in DOCS if shard_of(d, 4) == 3]  # shard 3 of 4 holds none of the fixture's documents
    run_stage(curate, ["--settings", json.dumps(settings), "--source", str(fixture), "--glob", "**/*.md",
                       "--shard", "3", "--shards", "4", "--out", str(docs), "--receipt", str(root / "receipts/curate_shard.3.json")])
    run_stage(chunk, ["--settings", json.dumps({"strategy": "chars", "size": 300, "overlap": 40}), "--docs", str(docs),
                      "--out", str(chunks), "--receipt", str(root / "receipts/chunk_shard.3.json")])
    assert docs.read_text() == "" and chunks.read_text() == ""
    run_stage(bm25_shard, ["--settings", json.dumps({"title_weight": 0.5}), "--docs", str(docs), "--chunks", str(chunks),
                           "--out-dir", str(root / "shards/3/bm25/title"), "--receipt", str(root / "receipts/bm25_shard.3.title.json")])
    postings, meta = load_postings(root / "shards/3/bm25/title")
    assert postings.n_items == 0 and postings.vocab == [] and meta["rows"] == []
    run_stage(embed, ["--name", "tiny", "--settings", json.dumps({"type": "pretrained", "path": str(builds[3] / "tiny-bert")}),
                      "--docs", str(docs), "--chunks", str(chunks), "--files", "pretrained", str(builds[3] / "tiny-bert"),
                      "--out", str(root / "shards/3/vectors/tiny.npy"), "--receipt", str(root / "receipts/embed_shard.3.tiny.json")])
    assert np.load(root / "shards/3/vectors/tiny.npy").shape == (0, 8)


# ------------------------------------------------------------------ the training sample


def test_the_training_sample_is_a_bottom_k_by_hash_of_each_id():
    from minirag.pipeline.shards import training_sample
    ids = [f"doc-{i}" for i in range(200)]
    sample = training_sample(ids, 20, seed=7)
    assert len(sample) == 20 and sample == sorted(sample)
    assert training_sample(ids, 20, seed=7) == sample and training_sample(ids, 20, seed=8) != sample
    assert training_sample(ids, 0) == list(range(200)) and training_sample(ids[:5], 20) == list(range(5))
    # a document enters or leaves the sample by its own hash only: adding one that hashes above
    # the 20th changes nothing; removing one outside the sample changes nothing either
    kept = {ids[i] for i in sample}
    for extra in (f"new-{j}" for j in range(50)):
        grown = ids + [extra]
        if extra not in {grown[i] for i in training_sample(grown, 20, seed=7)}:
            assert {grown[i] for i in training_sample(grown, 20, seed=7)} == kept
            break
    outside = next(i for i in range(200) if i not in sample)
    fewer = ids[:outside] + ids[outside + 1:]
    assert {fewer[i] for i in training_sample(fewer, 20, seed=7)} == kept


def test_a_capped_corpus_trains_its_tokenizer_and_reader_on_the_sample_file(tmp_path):
    project = copy_project(tmp_path)
    cfg = project / "mini.yaml"
    cfg.write_text(cfg.read_text().replace("    tokenizer: {vocab_size: 400}", "    tokenizer: {vocab_size: 400}\n"
                                           "    train_cap: 3"), encoding="utf-8")
    jobs = planned(project, "results/mini.md")
    # both readers learn from the sample: the Mini-GPT and the answer selector
    assert jobs["train_sample"] == 1 and jobs["train_tokenizer"] == 1 and jobs["train_reader"] == 2
    snakemake(project, "results/mini/tokenizer.json")
    sample = [json.loads(ln) for ln in (project / "results/mini/train_sample.jsonl").read_text().splitlines()]
    docs = [json.loads(ln) for ln in (project / "results/mini/docs.jsonl").read_text().splitlines()]
    assert len(sample) == 3 and [d for d in docs if d in sample] == sample  # records as they are, in order
    receipt = json.loads((project / "results/mini/receipts/train_tokenizer.json").read_text())
    assert "train_sample.jsonl" in " ".join(receipt["inputs"])

