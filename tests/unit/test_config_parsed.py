"""The report's JSON copy of its config's YAML (config/parsed.py): read for the very bytes it was made from,
and never otherwise, so `search` and `answer` get the YAML's value without loading PyYAML."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from minirag.artifacts.io import sha256_bytes
from minirag.artifacts.safe_yaml import read_yaml
from minirag.config.corpus import ConfigError
from minirag.config.load import load_config
from minirag.config.parsed import copy_path, read_parsed, same_json, write_parsed

CONFIG = """# a comment the copy does not need
corpora:
  kb:
    source: {path: kb/docs, langs: [en, es]}
    depth: 50
    retrievers:
      bm25: {type: bm25, index: plain}
      dense: {type: dense, embedder: hashing}
    prompt: {k: 3}
    bm25:
      plain: {k1: 1.5, b: 0.75}
"""


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG)
    return path


def test_the_copy_is_the_yamls_value_with_its_types_and_key_order(config, tmp_path):
    results = tmp_path / "results"
    out = write_parsed(config, results)
    assert out == copy_path(results, sha256_bytes(config.read_bytes()))
    read = read_parsed(config, results)
    assert same_json(read, read_yaml(config)) and list(read["corpora"]["kb"]["retrievers"]) == ["bm25", "dense"]
    assert load_config(config, schema=False, results=results) == read_yaml(config)


def test_an_edited_config_is_read_from_its_yaml(config, tmp_path):
    results = tmp_path / "results"
    write_parsed(config, results)
    config.write_text(CONFIG.replace("depth: 50", "depth: 60"))
    assert read_parsed(config, results) is None
    assert load_config(config, schema=False, results=results)["corpora"]["kb"]["depth"] == 60


@pytest.mark.parametrize("damage", ["not json", json.dumps({"sha256": "0" * 64, "config": {}}), json.dumps([1]),
                                    json.dumps({"config": {}}), "[" * 100_000])
def test_a_damaged_copy_is_not_read(config, tmp_path, damage):
    results = tmp_path / "results"
    out = write_parsed(config, results)
    out.write_text(damage)
    assert read_parsed(config, results) is None
    assert load_config(config, schema=False, results=results) == read_yaml(config)


@pytest.mark.parametrize("value", ["2024-01-01", "{1: a}", ".nan", "[1, 2.0, true]"])
def test_only_what_json_holds_exactly_is_kept(tmp_path, value):
    path = tmp_path / "config.yaml"
    path.write_text(f"corpora: {{kb: {{note: x}}}}\nextra: {value}\n")
    kept = write_parsed(path, tmp_path / "results")
    if value == "[1, 2.0, true]":  # an int, a float and a bool stay what they are
        assert kept is not None and read_parsed(path, tmp_path / "results")["extra"] == [1, 2.0, True]
        assert [type(v) for v in read_parsed(path, tmp_path / "results")["extra"]] == [int, float, bool]
    else:  # a date, a non-string key, NaN: not kept, the YAML is read
        assert kept is None and read_parsed(path, tmp_path / "results") is None


def test_a_config_refused_as_yaml_gets_no_copy_and_is_refused_as_before(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("corpora:\n  kb: {}\n  kb: {}\n")  # a key twice
    assert write_parsed(path, tmp_path / "results") is None
    with pytest.raises(ValueError, match="duplicate key 'kb'"):
        load_config(path, schema=False, results=tmp_path / "results")
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "missing.yaml", schema=False, results=tmp_path / "results")
    assert read_parsed(tmp_path, tmp_path / "results") is None  # a folder: the YAML path says so


def test_reading_the_copy_loads_no_yaml(config, tmp_path):
    results = tmp_path / "results"
    write_parsed(config, results)
    code = (f"import sys; from minirag.query.defaults import named_corpus; "
            f"print(named_corpus({str(config)!r}, None, {str(results)!r})[1].depth, 'yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["50", "False"]
