"""An ensemble of MiniBiEncoders: `members` encoders trained alike on the same pairs, seeds seed, seed+1, ...

    y(text) = [y_1(text), ..., y_k(text)] / sqrt(k)      # (k d,), unit length
    y(q) . y(p) = mean over members of  y_i(q) . y_i(p)

so a flat index over the side-by-side vectors ranks by the members' mean cosine (a deep ensemble,
Lakshminarayanan et al. 2017, applied to the similarity). On the KB one encoder trained on its
synthesised questions swings by ±4 points of dev hit@5 from seed to seed; four trained for 2 epochs
each cost what one does for 8 and score higher on dev every time (bench/README.md). With
members = 1 the ensemble is its only member: the graph saves and loads a plain MiniBiEncoder.

On disk: one .npz holding member i's weights as `m{i}_{name}`, and the sidecar with the ensemble's
config (members = k, the first member's seed); member i's config is the same with seed + i.

`load_encoder` loads either kind. What it leaves out: training (biencoder_train.py trains the members one after another) and any
weighting of the members (each counts alike).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..artifacts import content
from ..artifacts.integrity import verified
from ..artifacts.io import load_npz, read_json
from .biencoder import PARAM_NAMES, BiEncoderConfig, MiniBiEncoder, save_weights, weights_sha256


def member_config(config: BiEncoderConfig, i: int) -> BiEncoderConfig:
    """Member i's config: the ensemble's, with seed + i and no members of its own."""
    return replace(config, seed=config.seed + i, members=1)


class BiEncoderEnsemble:
    """Members' vectors side by side, scaled so the dot product is the mean of the members' cosines."""

    def __init__(self, members: list[MiniBiEncoder], config: BiEncoderConfig):
        if len(members) != config.members or len(members) < 2:
            raise ValueError(f"an ensemble of {config.members} members was given {len(members)}")
        self.members, self.config, self.vocab_size = members, config, members[0].vocab_size

    @property
    def dim(self) -> int:
        return self.config.d * len(self.members)

    def encode_ids(self, batch: list[list[int]], block: int = 1024) -> np.ndarray:
        """(B, k d) float32 unit vectors."""
        parts = [m.encode_ids(batch, block) for m in self.members]
        return (np.concatenate(parts, axis=1) / np.float32(np.sqrt(len(parts)))).astype(np.float32)

    def arrays(self) -> dict[str, np.ndarray]:
        return {f"m{i}_{name}": m.params[name] for i, m in enumerate(self.members) for name in PARAM_NAMES}

    def fingerprint(self) -> str:
        """sha256 of every member's weights (names, shapes, dtypes and bytes)."""
        return weights_sha256(self.arrays())

    def save(self, path_npz, sidecar: dict) -> None:
        """Every member's weights in one .npz, and next to it (.json) the ensemble's config plus `sidecar`."""
        save_weights(path_npz, self.arrays(), self.config, self.vocab_size, sidecar)

    @classmethod
    def load(cls, path_npz, meta: dict) -> "BiEncoderEnsemble":
        path = Path(path_npz)
        config = BiEncoderConfig.from_dict(meta["config"])
        arrays = load_npz(path)
        members = []
        for i in range(config.members):
            absent = [name for name in PARAM_NAMES if f"m{i}_{name}" not in arrays]
            if absent:
                raise ValueError(f"{path}: no weights {', '.join(f'm{i}_{n}' for n in absent)}; re-run train_biencoder")
            model = MiniBiEncoder.__new__(MiniBiEncoder)
            model.config, model.vocab_size = member_config(config, i), meta["vocab_size"]
            model.params = {name: arrays[f"m{i}_{name}"] for name in PARAM_NAMES}
            members.append(model)
        content.weights(arrays, path)
        ensemble = cls(members, config)
        if ensemble.fingerprint() != meta["weights_sha256"]:
            raise ValueError(f"{path}: weights do not match the sha256 in {path.with_suffix('.json').name}")
        return ensemble


def load_model(path_npz) -> MiniBiEncoder | BiEncoderEnsemble:
    """The encoder saved at `path_npz`: an ensemble when its sidecar's config has members > 1."""
    path = Path(path_npz)
    meta = read_json(path.with_suffix(".json"))
    config = meta.get("config") if isinstance(meta, dict) else None
    members = config.get("members", 1) if isinstance(config, dict) else 1
    if isinstance(members, int) and members > 1 and "vocab_size" in meta and "weights_sha256" in meta:
        return BiEncoderEnsemble.load(path, meta)
    return MiniBiEncoder.load(path)


def load_encoder(path_npz: str | Path) -> MiniBiEncoder | BiEncoderEnsemble:
    """A train_biencoder job's encoder, weights and sidecar checked against the job's receipt."""
    verified(Path(path_npz).with_suffix(".json"), "encoder sidecar")
    return load_model(verified(path_npz, "encoder"))
