"""The experiment config: one corpus's settings, checked, and each stage's share of them.

`workflow/config.yaml` names one or more corpora; each says where its documents and
questions are and how every stage treats them. `corpus_config` builds every section from
its settings dataclass (text/corpus.py, text/bpe.py, text/chunker.py, index/*, rank/kinds.py,
answer/*, evaluation/diagnose.py: the only homes of the defaults), checks types, bounds,
cross-field rules and every name a setting refers to, with the key path in the message,
and returns plain builtins. Each stage's spec (pipeline/stages/) takes exactly the values
it reads, so Snakemake reruns a stage only when one of *its* values changes.

Named collections (`embedders`, `bm25`, `retrievers`) replace the defaults whole: a
config that lists its retrievers means exactly those. A retriever's `sweep: {param:
[values]}` becomes one more retriever per value, `name@param=value`, each its own run.

What it leaves out: reading YAML (Snakemake and the CLI do that) and any file I/O.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from typing import Any, Literal, Mapping

from ..answer.prompt import PromptSettings
from ..answer.readers import Reader, reader_kind
from ..answer.select.settings import CandidateSettings
from ..artifacts.layout import RESULTS_FOLDERS
from ..datasets.beir import refuse_training_on
from ..evaluation.diagnose import DiagnoseSettings
from ..index.bm25.index import BM25Settings
from ..index.embedders import EmbedderKind
from ..rank.kinds import KINDS, RetrieverKind, kind_of
from ..settings import (
    NAME_PATTERN,
    PATH_PATTERN,
    SettingsError,
    check_bounds,
    setting,
    settings_from_dict,
    settings_to_dict,
)
from ..text.bpe import TokenizerSettings
from ..text.chunker import ChunkSettings
from ..text.corpus import FOLDERS, GLOBS, SourceSettings
from .domain import domain_defaults, refuse_domain_settings
from .sweeps import expand_sweeps


class ConfigError(ValueError):
    """A config value that is missing, unknown or inconsistent; the message names the key."""


@dataclass(frozen=True)
class CorpusSettings:
    """The single-valued sections of a corpus; the named collections are listed in COLLECTIONS."""
    # grammar: the English/Spanish grammar domain (lexicon, query expansion, grammar reader); null: the generic core
    domain: Literal["grammar"] | None = None
    source: SourceSettings = SourceSettings()
    tokenizer: TokenizerSettings = TokenizerSettings()
    chunk: ChunkSettings = ChunkSettings()
    depth: int = setting(100, minimum=1)       # ranks written per query in every run file
    candidates: CandidateSettings = CandidateSettings()  # what the answer selector reads of each answered run
    prompt: PromptSettings = PromptSettings()
    diagnose: DiagnoseSettings = DiagnoseSettings()
    note: str = ""                             # markdown shown at the top of the corpus's report section
    assertions: str = setting("", pattern=PATH_PATTERN)  # YAML file of assertions (workflow/assertions.*.yaml)
    strict: bool = False                       # true: a failing assertion fails the build
    serve: str = ""                            # the retriever `search` and `answer` use unasked; "" = the best on dev
    answer: tuple[str, ...] = ("*",)           # runs every reader answers; "*" = all but sweep points, [] = none
    shards: int = setting(1, minimum=1, maximum=10_000)        # > 1: chunk, embed and BM25 run as one job per shard, then merge
    train_cap: int = setting(0, minimum=0)     # > 0: tokenizer, bi-encoder and reader learn from at most this many documents
    train_seed: int = 0                        # which documents that sample holds (shards.training_sample)


# The collections a corpus has when its config names none; each entry's settings take
# their kind's defaults. `reader` is a single kind-typed entry.
COLLECTIONS: dict[str, dict[str, dict]] = {
    "embedders": {"hashing": {"type": "hashing"}},
    # the question filler and stemmer of the languages the documents are in (dev suite: hit@5 up on 2 of 3 corpora)
    "bm25": {"plain": {"analyzer": {"languages": "documents"}}},
    "retrievers": {"dense": {"type": "dense", "embedder": "hashing"}, "bm25": {"type": "bm25", "index": "plain"},
                   "rrf": {"type": "rrf", "of": ["dense", "bm25"]}},
    "readers": {"extractive": {"type": "extractive"}},
}


def corpus_names(config: dict) -> list[str]:
    """The corpora to build: `build` if the config sets it, else every corpus it names.

    Snakemake merges a `--configfile` into workflow/config.yaml, so a config for another
    corpus says `build: [itself]` rather than relying on the default's corpora vanishing.
    """
    corpora = config.get("corpora") or {}
    if not corpora:
        raise ConfigError("config: 'corpora' must name at least one corpus")
    names = config.get("build") or list(corpora)
    for name in names:
        if name not in corpora:
            raise ConfigError(f"build: unknown corpus {name!r} (have: {', '.join(corpora)})")
    return list(names)


def corpus_config(config: dict, corpus: str) -> dict:
    """The full, checked settings of one corpus as builtins; errors name the key path."""
    corpora = config.get("corpora") or {}
    if corpus not in corpora:
        raise ConfigError(f"corpora: no corpus named {corpus!r} (have: {', '.join(corpora)})")
    where = f"corpora.{corpus}"
    try:
        check_name(corpus, "corpora")
        if corpus in RESULTS_FOLDERS:
            raise SettingsError(f"{where}: {corpus!r} is a folder results/ keeps for itself "
                                f"({', '.join(RESULTS_FOLDERS)}); name the corpus otherwise")
        return _corpus_config(corpora[corpus] or {}, where)
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None


def _corpus_config(user: Mapping[str, Any], where: str) -> dict:
    if not isinstance(user, Mapping):
        raise SettingsError(f"{where}: expected a mapping, got {type(user).__name__}")
    if "reader" in user:
        raise SettingsError(f"{where}.reader: replaced by `readers:`, a name for each reader: "
                            "readers: {extractive: {type: extractive}}")
    plain = {k: v for k, v in user.items() if k not in COLLECTIONS}
    cc = settings_to_dict(settings_from_dict(CorpusSettings, plain, where))
    if not cc["source"]["glob"]:  # the format's own: every file of a folder, the .md files of a markdown one
        cc["source"]["glob"] = GLOBS.get(cc["source"]["format"], "")
    langs = corpus_langs(cc)

    def entries(key: str) -> dict[str, Any]:  # a named collection, with the defaults the domain gives its entries
        return {name: domain_defaults(key, spec, cc["domain"], langs) for name, spec in named(user, key, where).items()}

    cc["embedders"] = {name: EmbedderKind.from_spec(spec, f"{where}.embedders.{name}").spec()
                       for name, spec in entries("embedders").items()}
    cc["bm25"] = {name: settings_to_dict(settings_from_dict(BM25Settings, spec or {}, f"{where}.bm25.{name}"))
                  for name, spec in named(user, "bm25", where).items()}
    cc["retrievers"] = expand_sweeps(entries("retrievers"), f"{where}.retrievers")
    cc["readers"] = {}
    for name, spec in entries("readers").items():
        reader_cls, reader = Reader.settings_of(spec, f"{where}.readers.{name}")
        cc["readers"][name] = {"type": reader_cls.type, **settings_to_dict(reader)}
    refuse_domain_settings(cc, where)
    check_references(cc, where)
    warn_unread_evidence(cc, where)
    if cc["shards"] > 1:
        units = [name for name, spec in cc["bm25"].items() if spec["items"] == "units"]
        if units:
            raise SettingsError(f"{where}.bm25.{units[0]}.items: units are indexed from the whole corpus's units; "
                                "with shards > 1 index chunks (items: chunks) or remove the index")
    if cc["serve"] and cc["serve"] not in cc["retrievers"]:
        raise SettingsError(f"{where}.serve: unknown retriever {cc['serve']!r} (have: {', '.join(cc['retrievers'])})")
    unknown = [(i, n) for i, n in enumerate(cc["answer"]) if n != "*" and n not in cc["retrievers"]]
    if unknown:
        (i, name), have = unknown[0], ", ".join(cc["retrievers"])
        raise SettingsError(f"{where}.answer[{i}]: unknown retriever {name!r} (have: {have}; or * for every run)")
    return cc


def corpus_langs(cc: Mapping[str, Any]) -> tuple[str, ...]:
    """The languages of a corpus's documents: `source.langs`, else its `default_lang`, else none said."""
    src = cc["source"]
    return tuple(src["langs"]) or ((src["default_lang"],) if src["default_lang"] else ())


def warn_unread_evidence(cc: dict, where: str) -> None:
    """A reader that trains on more evidence lines than the prompt holds never reads the rest."""
    held = cc["prompt"]["evidence_lines"]
    for name, reader in cc["readers"].items():
        if reader.get("evidence_lines", 0) > held:
            warnings.warn(f"{where}.readers.{name}.evidence_lines: {reader['evidence_lines']} is more than the "
                          f"prompt holds ({where}.prompt.evidence_lines: {held}); it trains on lines it never reads",
                          UserWarning, stacklevel=2)


def named(user: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
    """A named collection of the config, or the default one; names are checked."""
    value = user[key] if key in user else COLLECTIONS[key]
    if not isinstance(value, Mapping) or not value:
        raise SettingsError(f"{where}.{key}: name at least one entry")
    for name in value:
        check_name(name, f"{where}.{key}")
    return dict(value)


def check_name(name: Any, where: str) -> None:
    """A name becomes part of file paths: letters, digits, '-' and '_' only, never '.' or '/'."""
    if not isinstance(name, str):
        raise SettingsError(f"{where}: name {name!r} must be a string")
    check_bounds(name, {"pattern": NAME_PATTERN}, f"{where}.{name}")


def check_references(cc: dict, where: str) -> None:
    for name in cc["retrievers"]:
        kind = kind_of(cc, name)
        kind.check(name, cc, f"{where}.retrievers.{name}")
        if kind.reader() is not None and not answered(cc):  # the graph trains readers only to answer runs
            raise SettingsError(f"{where}.retrievers.{name}.reader: the corpus answers no run (answer:), so reader "
                                f"{kind.reader()!r} is never trained")
    for name in cc["retrievers"]:
        upstream_closure(cc, name, f"{where}.retrievers")
    src = cc["source"]
    try:
        refuse_training_on(src["train_split"], src["split"], f"{where}.source.train_split")
    except ValueError as exc:
        raise SettingsError(str(exc)) from None
    for name, spec in cc["embedders"].items():
        EmbedderKind.from_spec(spec, f"{where}.embedders.{name}").check(cc, f"{where}.embedders.{name}")
    if cc["diagnose"]["embedder"] not in cc["embedders"]:
        raise SettingsError(f"{where}.diagnose.embedder: unknown embedder {cc['diagnose']['embedder']!r} "
                            f"(have: {', '.join(cc['embedders']) or 'none'})")


def upstream(spec: Mapping[str, Any]) -> list[str]:
    """The retrievers whose runs this one reads."""
    return RetrieverKind.from_spec(spec, "retriever").upstream()


def upstream_closure(cc: dict, name: str, key: str, seen: tuple = ()) -> None:
    if name in seen:
        raise SettingsError(f"{key}.{name}: retrievers form a cycle ({' -> '.join(seen + (name,))})")
    for other in upstream(cc["retrievers"][name]):
        upstream_closure(cc, other, key, seen + (name,))


def family(cc: Mapping[str, Any], name: str) -> str:
    return KINDS[cc["retrievers"][name]["type"]].family


def base_retrievers(cc: dict) -> list[str]:
    """Retrievers that rank by themselves (channels): the inputs of every fusion."""
    return [n for n in cc["retrievers"] if family(cc, n) == "channel"]


def main_retrievers(cc: dict) -> list[str]:
    """Every retriever but sweep points."""
    return [n for n, r in cc["retrievers"].items() if "sweep_of" not in r]


def has_answers(cc: dict) -> bool:
    """Whether the corpus's questions carry answers for a reader to be scored on."""
    src = cc["source"]
    return src["format"] == "squad" or (src["format"] in FOLDERS and src["questions_format"] == "minirag")


def answered(cc: dict) -> list[str]:
    """Retrievers whose runs go through prompt and every reader, in config order: the corpus's
    `answer` list ("*": all but sweep points), none where the questions carry no answers."""
    if not has_answers(cc):
        return []
    return main_retrievers(cc) if "*" in cc["answer"] else [r for r in cc["retrievers"] if r in cc["answer"]]


def selector_reader(cc: dict) -> str | None:
    """The reader whose trained answer selector scores every answered run's candidates: the corpus's
    first trained reader that selects (`extractive`); None: no run is answered, or no reader selects
    (no candidates, prompts as the seed builds them). The graph and a built corpus both ask here."""
    if not answered(cc):
        return None
    return next((r for r in cc["readers"] if reader_kind(cc, r).trained and reader_kind(cc, r).selects), None)


def domain_files(cc: dict) -> dict:
    """The files the corpus's domain reads besides the chunks (minirag/domain.py "reader.files": the grammar's
    terms file and word lists); none for the generic core."""
    from ..domain import of_corpus
    d = of_corpus(cc)
    return d.hook("reader.files")(cc) if d is not None and "reader.files" in d.hooks else {}


def terms_file(cc: dict) -> str:
    """The domain's terms file (the grammar's: candidates.terms, else the one it ships)."""
    return domain_files(cc)["terms"]


def sweep_groups(cc: dict) -> dict[tuple[str, str], list[str]]:
    """(swept retriever, parameter) -> the retrievers of its points, in config order."""
    groups: dict[tuple[str, str], list[str]] = {}
    for name, spec in cc["retrievers"].items():
        if "sweep_of" in spec:
            groups.setdefault((spec["sweep_of"], spec["sweep_param"]), []).append(name)
    return groups


def ivf_indexes(cc: dict) -> dict[str, dict]:
    """Every IVF index the retrievers search, by name: its embedder and build settings, in config order."""
    out: dict[str, dict] = {}
    for name in cc["retrievers"]:
        kind = kind_of(cc, name)
        if kind.ivf_index():
            out.setdefault(kind.ivf_index(), {"embedder": kind.embedder(), **kind.s.build_settings()})
    return out


def params_json(value: Any) -> str:
    """A stage's settings as canonical JSON: sorted keys, so equal settings compare equal."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
