"""Training and storage for MiniGPT: Adam(W), global-norm clipping, a warmup + cosine loop, save/load.

- `Adam`: bias-corrected Adam with decoupled weight decay (AdamW) on the 2-D weight matrices only:
  attention, MLP and copy projections decay; embeddings (wte, wpe), LayerNorm gains/biases, all biases and the
  gate do not (decaying them pulls rare tokens' embeddings and the normalisation toward 0 for no gain).
- `train`: lr rises linearly over `warmup` steps to `lr`, then follows a cosine down to `lr · min_lr_ratio`
  at the last step; gradients are clipped to a global norm `clip` before each step.
- `save_model` / `load_model`: weights as an uncompressed .npz with sorted keys and fixed zip timestamps
  (so identical weights give identical bytes), a JSON sidecar beside it (`path.with_suffix(".json")`) with
  the config, the weights' sha256 and the caller's fields; both written atomically (temp file, os.replace).

Left out: gradient accumulation, lr schedules beyond warmup + cosine, optimizer state in the checkpoint
(saved models are for inference; training always runs from init in one go).
"""

from __future__ import annotations

import dataclasses
import io
import math
import zipfile
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from ...artifacts import content
from ...artifacts.io import atomic_write_bytes, read_json, sha256_bytes, write_json
from .model import MiniGPT, MiniGPTConfig

FORMAT = "minirag.minigpt/1"
NO_DECAY = {"wte", "wpe"}  # 2-D but embeddings


class Adam:
    """Adam with bias correction and decoupled weight decay on 2-D non-embedding weights; updates in place."""

    def __init__(self, lr: float = 3e-4, betas: tuple[float, float] = (0.9, 0.95), eps: float = 1e-8,
                 weight_decay: float = 0.01):
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.m: dict[str, np.ndarray] = {}
        self.v: dict[str, np.ndarray] = {}
        self.t = 0

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray], lr: float | None = None) -> None:
        lr = self.lr if lr is None else lr
        b1, b2 = self.betas
        self.t += 1
        c1, c2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        for name in sorted(grads):  # a fixed order, so runs are reproducible
            p, g = params[name], grads[name]
            m = self.m.setdefault(name, np.zeros_like(p))
            v = self.v.setdefault(name, np.zeros_like(p))
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            if self.weight_decay and p.ndim == 2 and name not in NO_DECAY:
                p *= 1 - lr * self.weight_decay
            p -= lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def clip_grad_norm(grads: dict[str, np.ndarray], max_norm: float) -> float:
    """Scale all gradients in place so their global L2 norm is at most max_norm; returns the norm before."""
    norm = math.sqrt(sum(float(np.vdot(g, g)) for g in grads.values()))
    if norm > max_norm:
        scale = max_norm / (norm + 1e-6)
        for g in grads.values():
            g *= scale
    return norm


def lr_at(step: int, steps: int, lr: float, warmup: int, min_lr_ratio: float = 0.1) -> float:
    """Linear warmup over `warmup` steps, then cosine from lr to lr·min_lr_ratio at the last step (0-based)."""
    if step < warmup:
        return lr * (step + 1) / warmup
    frac = (step - warmup) / max(1, steps - 1 - warmup)
    return lr * (min_lr_ratio + (1 - min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))


def train(model: MiniGPT, batches: Iterable[tuple], steps: int, lr: float, clip: float = 1.0,
          warmup: int | None = None, log_every: int = 50, progress: Callable | None = None,
          weight_decay: float = 0.01, min_lr_ratio: float = 0.1) -> list[float]:
    """`steps` Adam steps on (ids, targets, loss_mask, src_mask[, marks]) batches; returns the loss of every step.

    warmup defaults to min(100, steps // 10); `progress(step, loss, lr)` is called every `log_every` steps
    and after the last one (step counts from 1)."""
    warmup = min(100, steps // 10) if warmup is None else warmup
    opt, losses, it = Adam(lr=lr, weight_decay=weight_decay), [], iter(batches)
    for step in range(steps):
        try:
            batch = next(it)
        except StopIteration:
            raise ValueError(f"train: the batches ran out after {step} of {steps} steps") from None
        loss, grads = model.loss_and_grads(*batch)
        if clip:
            clip_grad_norm(grads, clip)
        step_lr = lr_at(step, steps, lr, warmup, min_lr_ratio)
        opt.step(model.params, grads, lr=step_lr)
        losses.append(loss)
        if progress is not None and ((step + 1) % log_every == 0 or step + 1 == steps):
            progress(step + 1, loss, step_lr)
    return losses


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An uncompressed .npz (np.load reads it) with sorted keys and a fixed timestamp: same arrays, same bytes.
    np.savez stamps each member with the current time, so two saves a second apart would differ."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, member.getvalue())
    return buf.getvalue()


def sidecar_path(path: str | Path) -> Path:
    return Path(path).with_suffix(".json")


def save_model(path: str | Path, model: MiniGPT, sidecar: dict) -> None:
    """Weights to `path` (.npz), then the JSON sidecar beside it: format, config, dtype, sha256, caller's fields."""
    path = Path(path)
    data = npz_bytes(model.params)
    meta = {"format": FORMAT, "config": dataclasses.asdict(model.config), "dtype": model.dtype.name,
            "weights": path.name, "weights_sha256": sha256_bytes(data)}
    clash = sorted(set(meta) & set(sidecar))
    if clash:
        raise ValueError(f"save_model: sidecar keys {clash} are reserved")
    atomic_write_bytes(path, data)
    write_json(sidecar_path(path), {**meta, **sidecar})


def load_sidecar(path: str | Path) -> dict:
    """The sidecar of the model saved at `path` (config, sha256 and the caller's fields)."""
    side = sidecar_path(path)
    if not side.exists():
        raise ValueError(f"{path}: no sidecar {side.name} beside the weights")
    meta = read_json(side)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{side}: not a MiniGPT sidecar (format {FORMAT!r} expected)")
    return meta


def load_model(path: str | Path, config: MiniGPTConfig | None = None) -> MiniGPT:
    """The model saved at `path`, in the dtype it was saved in. With `config`, refuses a model saved with another
    one; a sidecar whose config or checksum does not fit the weights is refused too (ValueError naming why)."""
    path = Path(path)
    meta = load_sidecar(path)
    try:
        saved = MiniGPTConfig(**meta["config"])
    except (TypeError, KeyError, ValueError) as exc:
        raise ValueError(f"{sidecar_path(path)}: unreadable config: {exc}") from None
    if config is not None and config != saved:
        diff = {k: (v, getattr(config, k)) for k, v in dataclasses.asdict(saved).items() if getattr(config, k) != v}
        raise ValueError(f"{path}: saved with a different config; (saved, expected): {diff}")
    data = path.read_bytes()
    if sha256_bytes(data) != meta.get("weights_sha256"):
        raise ValueError(f"{path}: the weights do not match the sha256 in {sidecar_path(path).name}")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            params = {name: npz[name] for name in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a readable .npz ({exc})") from None
    content.weights(params, path)
    dtypes = {a.dtype for a in params.values()}
    try:
        return MiniGPT(saved, params, dtype=dtypes.pop() if len(dtypes) == 1 else np.float32)
    except ValueError as exc:  # the sidecar's config does not describe these weights
        raise ValueError(f"{path}: {exc}") from None
