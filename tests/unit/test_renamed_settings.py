"""One name per setting: the Mini-GPT's evidence limits are `evidence_lines` / `evidence_chars`, as the
prompt's are; the old `max_lines` / `max_chars` are accepted for one release with a FutureWarning once
per key, refused together with the new name, marked deprecated in the schema and equal to the new
name in `minirag diff`."""

import warnings

import pytest

from minirag import settings as settings_module
from minirag.config.corpus import ConfigError, corpus_config
from minirag.config.schema import config_schema
from minirag.history.diff import changed, normalised, renamed_only


def config(reader: dict, prompt: dict | None = None) -> dict:
    corpus = {"readers": {"gpt": {"type": "minigpt", **reader}}}
    if prompt:
        corpus["prompt"] = prompt
    return {"corpora": {"c": corpus}}


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(settings_module, "_WARNED", set())


def test_the_old_names_still_configure_the_reader_with_one_warning_per_key():
    with pytest.warns(FutureWarning) as caught:
        cc = corpus_config(config({"max_lines": 3, "max_chars": 300}), "c")
        corpus_config(config({"max_lines": 2}), "c")  # the same key again: no second warning
    assert cc["readers"]["gpt"]["evidence_lines"] == 3 and cc["readers"]["gpt"]["evidence_chars"] == 300
    assert "max_lines" not in cc["readers"]["gpt"]
    messages = sorted(str(w.message) for w in caught if issubclass(w.category, FutureWarning))
    assert len(messages) == 2
    assert "readers.gpt.max_chars is now called 'evidence_chars'" in messages[0]


def test_the_new_names_warn_of_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cc = corpus_config(config({"evidence_lines": 3}), "c")
    assert cc["readers"]["gpt"]["evidence_lines"] == 3


def test_both_names_of_one_setting_are_an_error_naming_both():
    with pytest.raises(ConfigError, match=r"readers.gpt: 'max_lines' and 'evidence_lines' are the same setting"):
        corpus_config(config({"max_lines": 3, "evidence_lines": 3}), "c")


def test_the_schema_accepts_the_old_names_marked_deprecated():
    readers = config_schema()["properties"]["corpora"]["additionalProperties"]["properties"]["readers"]
    minigpt = next(b["then"] for b in readers["additionalProperties"]["allOf"]
                   if b["if"]["properties"]["type"]["const"] == "minigpt")["properties"]
    assert minigpt["max_lines"]["deprecated"] is True and "deprecated" not in minigpt["evidence_lines"]
    assert minigpt["max_chars"]["description"] == "renamed: use evidence_chars"


def test_a_reader_reading_more_lines_than_the_prompt_holds_is_warned_about():
    with pytest.warns(UserWarning, match=r"readers.gpt.evidence_lines: 6 is more than the prompt holds "
                                         r"\(corpora.c.prompt.evidence_lines: 4\)"):
        corpus_config(config({"evidence_lines": 6}), "c")


def test_diff_shows_no_change_for_a_renamed_key():
    before = {"readers": {"gpt": {"type": "minigpt", "max_lines": 3, "d": 96}}}
    after = {"readers": {"gpt": {"type": "minigpt", "evidence_lines": 3, "d": 96}}}
    assert changed(normalised(before), normalised(after)) == [] and renamed_only(before, after) == {"gpt"}
    moved = {"readers": {"gpt": {"type": "minigpt", "evidence_lines": 2, "d": 96}}}
    assert changed(normalised(before), normalised(moved)) == [
        {"key": "readers.gpt.evidence_lines", "a": 3, "b": 2}]
    assert renamed_only(before, moved) == set()
