"""Config files merged as the workflow merges them, except where a later file switches what a
section or an entry is: then the section is the later file's own (config/merge.py)."""

from minirag.config.corpus import corpus_config
from minirag.config.merge import deep_merge, unmerge_switched

DEFAULT = {"build": ["kb"], "corpora": {"kb": {
    "source": {"format": "markdown", "path": "kb/docs", "questions": "kb/q.jsonl"},
    "chunk": {"strategy": "tokens", "target_tokens": 200, "overlap": 40},
    "retrievers": {"bm25": {"type": "bm25", "index": "plain"}, "hybrid": {"type": "rrf", "of": ["bm25", "dense"], "k": 60},
                   "dense": {"type": "dense", "embedder": "hashing"}}}}}


def merged(*later: dict) -> dict:
    config = DEFAULT
    for c in later:
        config = deep_merge(config, c)  # what Snakemake hands the workflow
    unmerge_switched(config, [DEFAULT], list(later))
    return config


def kb(**section) -> dict:
    return {"corpora": {"kb": section}}


def test_switching_the_chunk_strategy_drops_the_keys_only_the_old_one_reads():
    config = merged(kb(chunk={"strategy": "chars", "size": 400, "overlap": 50}))
    assert config["corpora"]["kb"]["chunk"] == {"strategy": "chars", "size": 400, "overlap": 50}
    assert corpus_config(config, "kb")["chunk"]["strategy"] == "chars"  # no "target_tokens: not read" refusal


def test_restating_the_same_strategy_merges_as_before():
    config = merged(kb(chunk={"strategy": "tokens", "target_tokens": 100}))
    assert config["corpora"]["kb"]["chunk"] == {"strategy": "tokens", "target_tokens": 100, "overlap": 40}


def test_a_file_after_the_switch_merges_over_it_and_the_rest_merges_as_snakemake_does():
    config = merged(kb(chunk={"strategy": "chars", "size": 400}), kb(chunk={"overlap": 10}, depth=50))
    assert config["corpora"]["kb"]["chunk"] == {"strategy": "chars", "size": 400, "overlap": 10}
    assert config["corpora"]["kb"]["depth"] == 50 and config["corpora"]["kb"]["source"]["path"] == "kb/docs"


def test_an_entry_whose_type_changes_is_the_later_files_own_and_the_others_merge():
    config = merged(kb(retrievers={"bm25": {"type": "dense", "embedder": "hashing"}, "hybrid": {"k": 10}}))
    retrievers = config["corpora"]["kb"]["retrievers"]
    assert retrievers["bm25"] == {"type": "dense", "embedder": "hashing"}  # no `index` left from bm25
    assert retrievers["hybrid"] == {"type": "rrf", "of": ["bm25", "dense"], "k": 10}
    assert corpus_config(config, "kb")["retrievers"]["bm25"]["type"] == "dense"


def test_switching_the_source_format_drops_the_markdown_keys():
    config = merged(kb(source={"format": "beir", "path": "data/scifact", "split": "test"}))
    assert config["corpora"]["kb"]["source"] == {"format": "beir", "path": "data/scifact", "split": "test"}
