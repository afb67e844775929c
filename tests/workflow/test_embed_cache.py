"""The embedding cache: vectors by (model, indexed text), reused only where a vector is a function
of its text alone, and a vectors file made from it that is a cold build's byte for byte."""

import json
import re

import numpy as np
import pytest

from minirag.index.embed_cache import KEEP_OLD, EmbedCache, embed_reusing, model_key
from minirag.index.embedders import EmbedderKind

pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")
from support.bert_model import make_model  # noqa: E402
from support.project import MINI_CORPUS, copy_project, snakemake  # noqa: E402

TEXTS = ["the past of go is went", "ser y estar", "I have eaten", "comí, comiste, comió",
         "the past of go is went", "irregular verbs: begin began begun", "", "por y para"]


def sha(i: int) -> str:
    return f"{i:064x}"


def test_lookup_finds_a_row_only_under_its_own_model():
    vecs = np.arange(6, dtype=np.float32).reshape(3, 2)
    cache = EmbedCache.empty(2).updated("a" * 64, [sha(1), sha(2), sha(3)], vecs)
    assert cache.lookup("a" * 64, [sha(3), sha(9), sha(1)]).tolist() == [2, -1, 0]
    assert cache.lookup("b" * 64, [sha(1)]).tolist() == [-1]
    assert np.array_equal(cache.vectors[cache.lookup("a" * 64, [sha(2)])], vecs[[1]])


def test_an_update_puts_this_builds_rows_first_keeps_old_ones_up_to_a_bound_and_stores_a_text_once():
    old = EmbedCache.empty(1).updated("a" * 64, [sha(i) for i in range(10)], np.arange(10, dtype=np.float32)[:, None])
    new = old.updated("b" * 64, [sha(1), sha(2), sha(1)], np.array([[7], [8], [7]], np.float32))
    assert new.keys[:2] == [(b"b" * 64, sha(1).encode()), (b"b" * 64, sha(2).encode())]  # once, in order
    kept = new.keys[2:]
    assert len(kept) == int(KEEP_OLD * 3) and all(m == b"a" * 64 for m, _ in kept)
    assert [t for _, t in kept] == [sha(i).encode() for i in range(len(kept))]  # most recently written first
    again = new.updated("a" * 64, [sha(0)], np.array([[0]], np.float32))  # back to model a: its row is still there
    assert again.lookup("a" * 64, [sha(0)]).tolist() == [0]


def test_the_model_key_is_the_producer_records_hash_whatever_its_key_order():
    assert model_key({"params": {"a": 1, "b": [2]}, "model_sha256": "x"}) == model_key(
        {"model_sha256": "x", "params": {"b": [2], "a": 1}})
    assert model_key({"params": {"a": 1}}) != model_key({"params": {"a": 2}})


def per_text_kinds(tmp_path):
    model = make_model(tmp_path / "tiny")
    yield EmbedderKind.from_spec({"type": "hashing", "dim": 64}, "e"), {}
    yield EmbedderKind.from_spec({"type": "pretrained", "path": str(model)}, "e"), {"pretrained": model}


def test_a_per_text_embedders_vectors_from_a_cache_with_gaps_are_its_cold_vectors_bit_for_bit(tmp_path):
    for kind, files in per_text_kinds(tmp_path):
        assert kind.per_text()
        emb, producer = kind.corpus_embedder(TEXTS, files)
        cold = np.zeros((len(TEXTS), emb.d), np.float32)
        kind.embed_corpus(emb, TEXTS, cold)
        shas = [sha(i) for i in range(len(TEXTS))]
        cache = EmbedCache.empty(emb.d).updated(model_key(producer), shas[::2], cold[::2])  # every other text
        warm = np.zeros_like(cold)
        embedded = []
        reused = embed_reusing(cache, model_key(producer), shas, TEXTS,
                               lambda t, o: (embedded.extend(t), kind.embed_corpus(emb, t, o)), warm)
        assert reused == len(TEXTS[::2]) and embedded == TEXTS[1::2]
        assert warm.tobytes() == cold.tobytes(), kind.type


def test_a_batched_pretrained_encoder_and_the_biencoder_are_not_per_text(tmp_path):
    model = make_model(tmp_path / "tiny")
    assert not EmbedderKind.from_spec({"type": "pretrained", "path": str(model), "batch_size": 8}, "e").per_text()
    assert not EmbedderKind.from_spec({"type": "biencoder"}, "e").per_text()


def test_a_damaged_cache_is_not_used(tmp_path):
    root = tmp_path / "results" / "c"
    path, receipt = root / "cache" / "e.npz", root / "receipts" / "embed_cache.e.json"
    EmbedCache.empty(2).updated("a" * 64, [sha(1)], np.ones((1, 2), np.float32)).save(path, receipt, "e")
    assert EmbedCache.load(path, 2).lookup("a" * 64, [sha(1)]).tolist() == [0]
    said = []
    assert EmbedCache.load(path, 3, said.append).lookup("a" * 64, [sha(1)]).tolist() == [-1]  # another width
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF
    path.write_bytes(bytes(data))
    assert EmbedCache.load(path, 2, said.append).lookup("a" * 64, [sha(1)]).tolist() == [-1]
    assert "changed since its job wrote it" in said[-1]
    receipt.unlink()
    assert len(EmbedCache.load(path, 2, said.append).keys) == 0 and "receipt" in said[-1]


# chunks by characters: an edit moves only its own document's chunks (token-bounded chunks follow the
# tokenizer, which the graph retrains on the edited corpus)
TINY = MINI_CORPUS.replace("{strategy: tokens, target_tokens: 40, overlap: 8}", "{strategy: chars, size: 300, overlap: 30}") + """\
    embedders:
      tiny: {type: pretrained, path: tinybert}
    retrievers:
      tiny: {type: dense, embedder: tiny}
    readers:
      extractive: {type: extractive}
    answer: []
    diagnose: {embedder: tiny}
"""


@pytest.mark.workflow
def test_an_edited_document_embeds_only_its_changed_chunks_and_the_vectors_equal_a_cold_build(tmp_path):
    project = copy_project(tmp_path)
    make_model(project / "tinybert")
    (project / "mini.yaml").write_text(TINY, encoding="utf-8")
    snakemake(project, "results/mini.md")
    log = project / "results/mini/logs/embed.tiny.log"
    n = json.loads((project / "results/mini/vectors/tiny.json").read_text())["shape"][0]
    assert f"; 0 from the cache, {n} embedded" in log.read_text()
    doc = sorted((project / "fixture/docs").rglob("*.md"))[0]
    doc.write_text(doc.read_text(encoding="utf-8") + "\nOne more line at the end of this page.\n", encoding="utf-8")
    snakemake(project, "results/mini.md")
    reused, embedded = map(int, re.search(r"; (\d+) from the cache, (\d+) embedded", log.read_text()).groups())
    assert reused > 0 and 0 < embedded < n // 2, (reused, embedded)
    warm = (project / "results/mini/vectors/tiny.npy").read_bytes()
    (project / "results/mini/cache/tiny.npz").unlink()  # deleted: the graph re-embeds, with nothing to reuse
    snakemake(project, "results/mini.md")
    assert "; 0 from the cache" in log.read_text()
    assert (project / "results/mini/vectors/tiny.npy").read_bytes() == warm
