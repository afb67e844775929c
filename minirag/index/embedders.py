"""The embedder kinds a config can name (`embedders: {name: {type: ...}}`), one small class each.

A kind holds its settings dataclass (the only home of its defaults), says which files
besides the chunks it needs (`files`: a trained encoder, the tokenizer), builds the
corpus-side embedder for the embed stage with the parameters and hashes its vectors'
sidecar records, and rebuilds the query-side embedder from that sidecar, refusing files
other than the ones the vectors were made with. The embed stage, the retrieve rule's
inputs, the live loader and the config checks loop over `EMBEDDERS`; a new kind is one
subclass here and its test.

What it leaves out: the embedders themselves (hashing.py, biencoder.py), training
(biencoder_train.py and the train_biencoder stage), and storing vectors (vectors.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, Mapping

from ..io import sha256_file
from ..layout import CorpusLayout
from ..settings import Kind, SettingsError
from .biencoder import BiEncoderConfig
from .hashing import HashingEmbedder, HashingSettings
from .vectors import AlignmentError

EMBEDDERS: dict[str, type["EmbedderKind"]] = {}


class EmbedderKind(Kind):
    registry, label = EMBEDDERS, "embedder type"
    trained: ClassVar[bool] = False  # the graph trains it (rule train_<type>) before embedding

    def files(self, layout: CorpusLayout, name: str) -> dict[str, Path]:
        """Files besides the chunks that embedding (corpus or query side) reads, by argument name."""
        return {}

    def corpus_embedder(self, texts: list[str], files: Mapping[str, Path]) -> tuple[Any, dict]:
        """(embedder for the chunk texts, what the vectors' sidecar records of it)."""
        raise NotImplementedError

    @classmethod
    def query_embedder(cls, sidecar: dict, files: Mapping[str, Path]):
        """The query side, from the vectors' sidecar alone: the config may have changed since."""
        raise NotImplementedError

    def check(self, cc: Mapping[str, Any], where: str) -> None:
        pass


class Hashing(EmbedderKind):
    """The untrained control: TF-IDF of hashed words; its IDF travels in the sidecar."""
    type, Settings = "hashing", HashingSettings

    def corpus_embedder(self, texts, files):
        emb = HashingEmbedder.fit(texts, dim=self.s.dim, analyzer=self.s.analyzer)
        return emb, {"params": emb.params()}

    @classmethod
    def query_embedder(cls, sidecar, files):
        return HashingEmbedder.from_params(sidecar["params"])


@dataclass(frozen=True)
class BiEncoderSettings(BiEncoderConfig):
    train_qrels: bool = False  # add (query, relevant doc) pairs of source.train_split (BEIR)

    def model_config(self) -> BiEncoderConfig:
        return BiEncoderConfig(**{f.name: getattr(self, f.name) for f in fields(BiEncoderConfig)})


class BiEncoder(EmbedderKind):
    """The MiniBiEncoder the graph trains on the corpus; queries need its encoder and tokenizer."""
    type, Settings, trained = "biencoder", BiEncoderSettings, True

    def files(self, layout, name):
        return {"encoder": layout.encoder(name), "tokenizer": layout.tokenizer}

    def corpus_embedder(self, texts, files):
        return self.load(files), {"params": self.spec(), "encoder_sha256": sha256_file(files["encoder"]),
                                  "tokenizer_sha256": sha256_file(files["tokenizer"])}

    @classmethod
    def query_embedder(cls, sidecar, files):
        # Queries must be embedded by the very encoder and tokenizer that embedded the chunks.
        for key, arg in (("encoder_sha256", "encoder"), ("tokenizer_sha256", "tokenizer")):
            if sha256_file(files[arg]) != sidecar[key]:
                raise AlignmentError(f"{files[arg]} is not the file the vectors were embedded with "
                                     f"({key} differs); re-run embed")
        return cls.load(files)

    @staticmethod
    def load(files):
        from ..text.bpe import load_tokenizer
        from .biencoder import BiEncoderEmbedder, load_encoder
        return BiEncoderEmbedder(load_encoder(files["encoder"]), load_tokenizer(files["tokenizer"]))

    def check(self, cc, where):
        src = cc["source"]
        if self.s.train_qrels and not (src["format"] == "beir" and src["train_split"]):
            raise SettingsError(f"{where}.train_qrels: needs a BEIR source with source.train_split")


def embedder_kind(cc: Mapping[str, Any], name: str) -> EmbedderKind:
    return EmbedderKind.from_spec(cc["embedders"][name], f"embedders.{name}")
