"""A sentence-transformers model folder, read and checked before any weight is: the Transformer's
config.json (BERT family only, each unsupported field named), modules.json (Transformer, Pooling,
optionally Normalize), the Pooling config (mean, CLS and/or max), and the folder's content hash.

What it leaves out: the weights and running the model (bert.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..artifacts.io import sha256_file

POOLING = ("cls_token", "max_tokens", "mean_tokens")  # the supported modes, in sentence-transformers' concat order
MODULES = ["Transformer", "Pooling", "Normalize"]
ACTIVATION_NAMES = ("gelu", "gelu_new")  # the keys of bert.py's ACTIVATIONS


def read_json(path: Path, kind: type = dict):
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: missing (the model folder needs it)") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(raw, kind) or (kind is list and not all(isinstance(m, dict) for m in raw)):
        raise ValueError(f"{path}: must be a JSON {'object' if kind is dict else 'list of objects'}")
    return raw


@dataclass(frozen=True)
class BertConfig:
    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    type_vocab_size: int
    layer_norm_eps: float
    hidden_act: str

    @classmethod
    def from_file(cls, path: str | Path) -> "BertConfig":
        """Read a Hugging Face config.json; whatever this module does not implement is a ValueError."""
        path, values = Path(path), {}
        raw = read_json(path)

        def fail(field: str, why: str):
            raise ValueError(f"{path}: {field} {why}")

        if raw.get("model_type") != "bert":
            fail("model_type", f"= {raw.get('model_type')!r} is not supported (only 'bert')")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            fail("position_embedding_type", f"= {raw['position_embedding_type']!r} is not supported (only 'absolute')")
        for name, kind in cls.__annotations__.items():
            if name not in raw:
                fail(name, "is missing")
            v = values[name] = raw[name]
            if not {"int": type(v) is int and v >= 1, "float": type(v) in (int, float) and 0 < v < 1}.get(kind, True):
                fail(name, f"= {v!r} must be a {'positive integer' if kind == 'int' else 'number in (0, 1)'}")
        if not isinstance(values["hidden_act"], str) or values["hidden_act"] not in ACTIVATION_NAMES:
            fail("hidden_act", f"= {values['hidden_act']!r} is not supported (only 'gelu' (erf) and 'gelu_new' (tanh))")
        if values["hidden_size"] % values["num_attention_heads"]:
            fail("hidden_size", f"= {values['hidden_size']} is not divisible by num_attention_heads")
        return cls(**{**values, "layer_norm_eps": float(values["layer_norm_eps"])})


@dataclass(frozen=True)
class ModelFolder:
    """Where the modules of a sentence-transformers folder live, as its modules.json says."""
    root: Path
    transformer: Path  # config.json, sentence_bert_config.json, tokenizer.json, model.safetensors
    pooling: Path  # config.json
    normalize: Path | None

    @classmethod
    def read(cls, path: str | Path) -> "ModelFolder":
        root = Path(path)
        mods = sorted(read_json(root / "modules.json", list), key=lambda m: m.get("idx", 0))
        kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in mods]
        if kinds not in (MODULES[:2], MODULES):
            raise ValueError(f"{root / 'modules.json'}: type: modules {kinds} are not supported (only Transformer, "
                             "Pooling and optionally Normalize, in that order)")
        dirs = [root / str(m.get("path", "")) for m in mods]
        return cls(root, dirs[0], dirs[1], dirs[2] if len(dirs) == 3 else None)

    def files(self) -> list[Path]:
        """The files the model is made of (what folder_hash covers)."""
        t = self.transformer
        out = [self.root / "modules.json", t / "config.json", t / "tokenizer.json", t / "model.safetensors",
               self.pooling / "config.json"]
        out += [p for p in (t / "sentence_bert_config.json", t / "vocab.txt") if p.exists()]
        if self.normalize is not None and self.normalize.is_dir():
            out += [p for p in self.normalize.rglob("*") if p.is_file()]
        return sorted(set(out))


def folder_hash(path: str | Path) -> str:
    """sha256 over the sorted (relative path, file sha256) of the files the model is made of."""
    folder, h = ModelFolder.read(path), hashlib.sha256()
    for rel, p in sorted((p.relative_to(folder.root).as_posix(), p) for p in folder.files()):
        h.update(f"{rel}\0{sha256_file(p)}\n".encode())  # hashed once per job
    return h.hexdigest()


def read_pooling(path: Path, hidden_size: int) -> tuple[str, ...]:
    """The pooling modes switched on in a Pooling config.json, in concatenation order."""
    raw = read_json(path)
    if raw.get("word_embedding_dimension", hidden_size) != hidden_size:
        raise ValueError(f"{path}: word_embedding_dimension = {raw['word_embedding_dimension']} is not hidden_size")
    for key, on in raw.items():
        if key.startswith("pooling_mode_") and key[13:] not in POOLING and on:
            raise ValueError(f"{path}: {key} is not supported (only the cls_token, max_tokens and mean_tokens modes)")
    modes = tuple(m for m in POOLING if raw.get("pooling_mode_" + m) is True)
    if not modes:
        raise ValueError(f"{path}: pooling_mode_*: no supported pooling mode is switched on")
    return modes
