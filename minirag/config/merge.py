"""Several config files as one, the way the workflow reads them, except where a later file
switches what a thing is.

Snakemake merges a `--configfile` into workflow/config.yaml key by key. Where the later file
switches a section's kind (`chunk.strategy`, `source.format`) or an entry's `type` (an
embedder, a retriever, a reader), the keys only the old kind reads would survive the merge,
and the settings checks refuse them: `--configfile` with `chunk: {strategy: chars, size: 400}`
over the KB would fail on the default's `target_tokens`. `unmerge_switched` makes such a
section or entry the later file's own (later files still merge over it).

    deep_merge({"a": {"x": 1}}, {"a": {"y": 2}})  -> {"a": {"x": 1, "y": 2}}

What it leaves out: reading and checking the files (load.py, safe_yaml.py).
"""

from __future__ import annotations

import copy

from ..text.chunker import ChunkSettings
from ..text.corpus import SourceSettings

# the sections whose keys depend on one key's value (settings.py READS), and the collections
# whose entries' keys depend on their `type`
SWITCHED = {section: (cls.READS[0], getattr(cls, cls.READS[0]))
            for section, cls in (("chunk", ChunkSettings), ("source", SourceSettings))}
KINDED = ("embedders", "retrievers", "readers")


def deep_merge(base: dict, over: dict) -> dict:
    """`over` merged into a copy of `base`, mapping by mapping (Snakemake's merge of config files)."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out


def switched(base, givens: list, key: str, default=None) -> dict | None:
    """What a section is after the later files, in order, when one of them switches `key` away
    from what the section had (`base`, else `default`): that file's section, with the files after
    it merged over. None when no file switches it (Snakemake's merge stands)."""
    out, replaced = copy.deepcopy(base) if isinstance(base, dict) else None, False
    for given in givens:
        if not isinstance(given, dict):
            continue
        current = (out or {}).get(key, default)
        if key in given and given[key] != current:
            out, replaced = copy.deepcopy(given), True
        else:
            out = deep_merge(out or {}, given)
    return out if replaced else None


def unmerge_switched(config: dict, earlier: list[dict], later: list[dict]) -> None:
    """Make each section or entry that a `later` config switches away from what the `earlier`
    ones made it the later configs' own, in place (`config`: all of them as Snakemake merged them)."""
    base = {}
    for c in earlier:
        base = deep_merge(base, c) if isinstance(c, dict) else base

    def given(configs: list, *path: str) -> list:
        out = []
        for c in configs:
            for step in path:
                c = c.get(step) if isinstance(c, dict) else None
            out.append(c)
        return out

    corpora = config.get("corpora")
    for name, corpus in (corpora.items() if isinstance(corpora, dict) else []):
        if not isinstance(corpus, dict):
            continue
        for section, (key, default) in SWITCHED.items():
            mine = switched(given([base], "corpora", name, section)[0], given(later, "corpora", name, section), key,
                            default)
            if mine is not None:
                corpus[section] = mine
        for coll in KINDED:
            entries = corpus.get(coll)
            for entry in (list(entries) if isinstance(entries, dict) else []):
                mine = switched(given([base], "corpora", name, coll, entry)[0], given(later, "corpora", name, coll, entry),
                                "type")
                if mine is not None:
                    entries[entry] = mine


def unmerge_files(config: dict, configfiles, overrides) -> None:
    """`unmerge_switched` for Snakemake's config files: `overrides` (--configfile) over the rest of
    `configfiles` (the workflow's `configfile:`). A file that cannot be read is left to the checks
    that name what is wrong with it (check_config_files)."""
    import yaml

    from ..artifacts.safe_yaml import read_yaml
    later = [str(p) for p in overrides]
    try:
        earlier = [read_yaml(p) for p in map(str, configfiles) if p not in later]
        unmerge_switched(config, earlier, [read_yaml(p) for p in later])
    except (OSError, ValueError, yaml.YAMLError):
        return
