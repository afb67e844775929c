"""A tiny random BERT in a sentence-transformers folder (config, WordPiece tokenizer, safetensors)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "dog", "sat", "on", "mat", "a", "go", "went",
         "past", "tense", "of", "is", "el", "perro", "come", "run", "big", "red", "##s", "##ing", ".", "?", ",", "!"]
CLS, SEP, UNK = 2, 3, 1
CONFIG = {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": len(VOCAB), "hidden_size": 8,
          "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 24,
          "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu", "position_embedding_type": "absolute",
          "hidden_dropout_prob": 0.1, "pad_token_id": 0}
MEAN = {"word_embedding_dimension": 8, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False}
TEXTS = ["The cat sat on the mat.", "", "dog", "El perro come!", "the big red dogs going on a mat , the cat sat",
         "Is the past tense of go went?", "running cats", "zebra qua the dog"]


def random_weights(seed: int = 0) -> dict[str, np.ndarray]:
    """A BertModel state dict as Hugging Face names it, random but seeded (LayerNorms near identity)."""
    rng = np.random.default_rng(seed)
    d, inner, v, p = CONFIG["hidden_size"], CONFIG["intermediate_size"], CONFIG["vocab_size"], CONFIG["max_position_embeddings"]

    def r(*shape, scale=0.5):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": r(v, d), "embeddings.position_embeddings.weight": r(p, d),
         "embeddings.token_type_embeddings.weight": r(2, d),
         "embeddings.LayerNorm.weight": 1 + r(d, scale=0.1), "embeddings.LayerNorm.bias": r(d, scale=0.1),
         "pooler.dense.weight": r(d, d), "pooler.dense.bias": r(d)}  # unused by sentence-transformers
    for i in range(CONFIG["num_hidden_layers"]):
        pre = f"encoder.layer.{i}."
        for name, (o, n) in {"attention.self.query": (d, d), "attention.self.key": (d, d),
                             "attention.self.value": (d, d), "attention.output.dense": (d, d),
                             "intermediate.dense": (inner, d), "output.dense": (d, inner)}.items():
            w[pre + name + ".weight"], w[pre + name + ".bias"] = r(o, n), r(o, scale=0.1)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[pre + name + ".weight"], w[pre + name + ".bias"] = 1 + r(d, scale=0.1), r(d, scale=0.1)
    return w


def write_tokenizer(path: Path) -> None:
    """A BERT WordPiece tokenizer.json; like the real one it asks for fixed padding and its own truncation."""
    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", CLS), ("[SEP]", SEP)])
    tok.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tok.enable_padding(length=20, pad_id=0, pad_token="[PAD]")
    tok.enable_truncation(max_length=5)
    tok.save(str(path))


def make_model(root: Path, *, config: dict | None = None, pooling: dict | None = None, normalize: bool = True,
               max_seq_length: int | None = 12, weights: dict | None = None, prefix: str = "") -> Path:
    """A sentence-transformers folder: modules.json, Transformer at the root, 1_Pooling, maybe 2_Normalize."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(json.dumps({**CONFIG, **(config or {})}))
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    (root / "modules.json").write_text(json.dumps(modules))
    (root / "1_Pooling").mkdir(exist_ok=True)
    (root / "1_Pooling" / "config.json").write_text(json.dumps(pooling or MEAN))
    (root / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": max_seq_length, "do_lower_case": False}))
    write_tokenizer(root / "tokenizer.json")
    w = random_weights() if weights is None else weights
    save_file({prefix + k: v for k, v in w.items()}, str(root / "model.safetensors"))
    return root
