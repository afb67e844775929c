import pytest

from minirag.artifacts.layout import CorpusLayout
from minirag.config.corpus import ConfigError, corpus_config, corpus_names
from minirag.config.typed import Corpus
from minirag.pipeline.graph import CorpusGraph
from minirag.pipeline.stages import settings_of


def stage_settings(cc: dict, rule: str, name: str | None = None) -> dict:
    """What the job of `rule` (and `name`) reads of the corpus's settings, by its spec."""
    return settings_of(CorpusGraph(cc, CorpusLayout.of("results", "c")), rule, **({"name": name} if name else {}))


def cfg(**corpus):
    return {"corpora": {"c": corpus}}


def test_defaults_fill_every_stage():
    cc = corpus_config(cfg(), "c")
    assert cc["chunk"]["strategy"] == "tokens" and cc["bm25"]["plain"]["k1"] == 1.5
    assert set(cc["retrievers"]) == {"dense", "bm25", "rrf"}


def test_named_collections_replace_the_defaults_whole():
    cc = corpus_config(cfg(retrievers={"bm25": {"type": "bm25"}}), "c")
    assert list(cc["retrievers"]) == ["bm25"] and cc["retrievers"]["bm25"]["index"] == "plain"


def test_stage_settings_hold_only_what_the_stage_reads():
    cc = corpus_config(cfg(chunk={"strategy": "chars", "size": 300, "overlap": 30}), "c")
    assert stage_settings(cc, "chunk") == {"strategy": "chars", "size": 300, "overlap": 30}
    assert stage_settings(cc, "retrieve", "bm25") == {"type": "bm25", "index": "plain", "depth": 100,
                                                      "expand": {"translations": 0.0, "forms": 0.0,
                                                                 "paradigm": False, "endings": False,
                                                                 "tenses": 0.0, "persons": 0.0}}


def test_sweep_expands_into_one_retriever_per_value():
    cc = corpus_config(cfg(retrievers={
        "dense": {"type": "dense"}, "bm25": {"type": "bm25"},
        "rrf": {"type": "rrf", "of": ["dense", "bm25"], "sweep": {"k": [5, 200]}}}), "c")
    assert cc["retrievers"]["rrf@k=5"]["k"] == 5 and cc["retrievers"]["rrf@k=200"]["sweep_of"] == "rrf"
    assert "sweep" not in cc["retrievers"]["rrf"]
    assert stage_settings(cc, "retrieve", "rrf@k=5") == {"type": "rrf", "of": ["dense", "bm25"], "k": 5, "weights": [],
                                                     "fit": False, "depth": 100}
    assert Corpus.of(cc).answered() == ["dense", "bm25", "rrf"]  # sweep points are scored on retrieval only


@pytest.mark.parametrize("retrievers, message", [
    ({"r": {"type": "rrf", "of": ["r", "r"]}}, "retrievers.r.of: a retriever cannot take its own run"),
    ({"a": {"type": "cap", "base": "b"}, "b": {"type": "cap", "base": "a"}}, "retrievers form a cycle"),
    ({"d": {"type": "dense", "embedder": "nope"}}, "retrievers.d.embedder: unknown embedder 'nope'"),
    ({"b": {"type": "bm25"}, "m": {"type": "mmr", "base": "b", "embedder": "x"}}, "retrievers.m.embedder: unknown embedder 'x'"),
    ({"b": {"type": "bm25"}, "c": {"type": "cap", "base": "b", "sweep": {"lambda": [0.5]}}},
     "retrievers.c.sweep.lambda: not a sweepable parameter of 'cap'"),
    ({"b": {"type": "bm25"}, "l": {"type": "linear", "of": ["b", "b"], "weights": [1.0]}}, "retrievers.l.weights: one weight"),
])
def test_inconsistent_retrievers_are_refused_naming_the_key(retrievers, message):
    with pytest.raises(ConfigError, match=message):
        corpus_config(cfg(retrievers=retrievers), "c")


def test_build_selects_corpora_and_refuses_unknown_ones():
    config = {"build": ["b"], "corpora": {"a": {}, "b": {}}}
    assert corpus_names(config) == ["b"]
    with pytest.raises(ConfigError, match="build: unknown corpus 'z'"):
        corpus_names({"build": ["z"], "corpora": {"a": {}}})


def test_training_on_the_evaluation_split_is_refused():
    with pytest.raises(ConfigError, match="source.train_split: 'test' is the evaluation split"):
        corpus_config(cfg(source={"format": "beir", "path": "x", "split": "test", "train_split": "test"}), "c")


def test_train_qrels_needs_a_beir_train_split():
    with pytest.raises(ConfigError, match="embedders.b.train_qrels: needs a BEIR source"):
        corpus_config(cfg(embedders={"b": {"type": "biencoder", "train_qrels": True}},
                          retrievers={"d": {"type": "dense", "embedder": "b"}}, diagnose={"embedder": "b"}), "c")


@pytest.mark.parametrize("corpus, message", [
    ({"chunk": {"target_tokens": "many"}}, r"corpora.c.chunk.target_tokens: expected an integer, got 'many'"),
    ({"chunk": {"target_tokens": 0}}, r"corpora.c.chunk.target_tokens: 0 is below the minimum 1"),
    ({"chunk": {"target_tokens": 20, "overlap": 20}}, r"corpora.c.chunk.overlap: 20 must be less than target_tokens"),
    ({"chunk": {"strategy": "chars", "size": 50, "overlap": 60}}, r"corpora.c.chunk.overlap: 60 must be less than size"),
    ({"tokenizer": {"vocab_size": True}}, r"corpora.c.tokenizer.vocab_size: expected an integer, got True"),
    ({"bm25": {"x": {"k1": -1}}}, r"corpora.c.bm25.x.k1: -1 is below the minimum 0"),
    ({"bm25": {"x": {"analyzer": {"stemer": "english"}}}}, r"corpora.c.bm25.x.analyzer: unknown option\(s\) 'stemer'"),
    ({"embedders": {"e": {"type": "biencoder", "temprature": 0.1}}}, r"corpora.c.embedders.e: unknown option\(s\) 'temprature'"),
    ({"embedders": {"e": {"type": "colbert"}}}, r"corpora.c.embedders.e.type: unknown embedder type 'colbert'"),
    ({"retrievers": {"a b": {"type": "bm25"}}}, r"corpora.c.retrievers.a b: 'a b' does not match"),
    ({"retrievers": {"..": {"type": "bm25"}}}, r"corpora.c.retrievers...: '..' does not match"),
    ({"retrievers": {"r": {"type": "rrf", "of": ["x"]}}}, r"corpora.c.retrievers.r.of: needs at least 2 item\(s\)"),
    ({"retrievers": {"r": {"type": "cap"}}}, r"corpora.c.retrievers.r: 'base' is required"),
    ({"readers": {"x": {"type": "extractive", "threshold": 2}}}, r"corpora.c.readers.x.threshold: 2 is above the maximum 1"),
    ({"prompt": {"k": 0}}, r"corpora.c.prompt.k: 0 is below the minimum 1"),
])
def test_types_bounds_and_cross_field_rules_are_checked_with_the_key_path(corpus, message):
    with pytest.raises(ConfigError, match=message):
        corpus_config(cfg(**corpus), "c")


@pytest.mark.parametrize("corpus, message", [
    ({"chunk": {"strategy": "tokens", "size": 80}}, r"chunk.size: not read when strategy is 'tokens' "
                                                    r"\(it reads: target_tokens, overlap\)"),
    ({"chunk": {"strategy": "sections", "overlap": 5}}, r"chunk.overlap: .*'sections' \(it reads: max_tokens\)"),
    ({"chunk": {"strategy": "chars", "target_tokens": 80}}, r"chunk.target_tokens: .*'chars' \(it reads: size, overlap\)"),
    ({"chunk": {"strategy": "none", "max_tokens": 80}}, r"chunk.max_tokens: .*'none' \(it reads: no other key\)"),
    ({"source": {"format": "beir", "path": "d", "glob": "*.md"}}, r"source.glob: .*'beir' \(it reads: split, "),
    ({"source": {"format": "markdown", "split": "dev"}}, r"source.split: .*'markdown' \(it reads: glob, "),
])
def test_a_key_the_chosen_strategy_does_not_read_is_refused_naming_what_it_reads(corpus, message):
    with pytest.raises(ConfigError, match=message):
        corpus_config(cfg(**corpus), "c")


def test_a_key_the_strategy_does_not_read_is_one_line_from_the_config_check(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "mine.yaml"
    path.write_text("corpora:\n  c:\n    chunk: {strategy: tokens, size: 80}\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "minirag.config.load", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == (f"error: {path}: corpora.c.chunk.size: not read when strategy is 'tokens' "
                           "(it reads: target_tokens, overlap)\n")


def test_an_unknown_key_names_the_nearest_known_one(tmp_path):
    from minirag.config.load import load_config
    path = tmp_path / "mine.yaml"
    path.write_text("corpora:\n  c:\n    chunck: {strategy: tokens}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"corpora.c.chunck: unknown key, did you mean 'chunk'\? \(known: answer,"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"corpora.c.embedders.e: unknown option\(s\) 'temprature', did you mean "
                                          r"'temperature'\?"):
        corpus_config(cfg(embedders={"e": {"type": "biencoder", "temprature": 0.1}}), "c")


def test_a_linear_fusion_of_three_runs_needs_its_weights():
    rets = {"a": {"type": "bm25"}, "b": {"type": "bm25"}, "c": {"type": "bm25"},
            "l": {"type": "linear", "of": ["a", "b", "c"]}}
    with pytest.raises(ConfigError, match="retrievers.l.weights: alpha weighs two runs"):
        corpus_config(cfg(retrievers=rets), "c")
    cc = corpus_config(cfg(retrievers={**rets, "l": {**rets["l"], "weights": [0.5, 0.3, 0.2]}}), "c")
    assert cc["retrievers"]["l"]["weights"] == [0.5, 0.3, 0.2]


def test_settings_carry_every_default_from_their_dataclass():
    from minirag.index.biencoder import BiEncoderConfig
    cc = corpus_config(cfg(embedders={"e": {"type": "biencoder", "d": 32}},
                           retrievers={"d": {"type": "dense", "embedder": "e"}}, diagnose={"embedder": "e"}), "c")
    assert cc["embedders"]["e"]["d"] == 32 and cc["embedders"]["e"]["epochs"] == BiEncoderConfig.epochs
    assert stage_settings(cc, "chunk") == {"strategy": "tokens", "target_tokens": 150, "overlap": 20}


def test_answer_names_the_runs_every_reader_answers_in_config_order():
    rs = {"dense": {"type": "dense"}, "bm25": {"type": "bm25"},
          "rrf": {"type": "rrf", "of": ["dense", "bm25"], "sweep": {"k": [5]}}}
    assert Corpus.of(corpus_config(cfg(retrievers=rs, answer=["rrf", "dense"]), "c")).answered() == ["dense", "rrf"]
    assert Corpus.of(corpus_config(cfg(retrievers=rs, answer=["rrf@k=5"]), "c")).answered() == ["rrf@k=5"]  # asked for
    assert Corpus.of(corpus_config(cfg(retrievers=rs, answer=[]), "c")).answered() == []  # retrieval metrics only
    assert Corpus.of(corpus_config(cfg(retrievers=rs), "c")).answered() == ["dense", "bm25", "rrf"]  # default "*"
    with pytest.raises(ConfigError, match=r"corpora.c.answer\[1\]: unknown retriever 'nope'"):
        corpus_config(cfg(retrievers=rs, answer=["bm25", "nope"]), "c")


def test_a_corpus_that_answers_no_run_trains_no_reader():
    from minirag.artifacts.layout import CorpusLayout
    from minirag.pipeline.graph import CorpusGraph
    readers = {"extractive": {"type": "extractive"}, "minigpt": {"type": "minigpt"}}
    none = CorpusGraph(corpus_config(cfg(readers=readers, answer=[]), "c"), CorpusLayout.of("results", "c"))
    assert none.answer_jobs() == [] and none.trained_readers() == []
    assert not [j for j in none.jobs() if j[0] in ("prompt", "generate", "train_reader")]
    one = CorpusGraph(corpus_config(cfg(readers=readers, answer=["bm25"]), "c"), CorpusLayout.of("results", "c"))
    assert one.answer_jobs() == [("extractive", "bm25"), ("minigpt", "bm25")]
    assert one.trained_readers() == ["extractive", "minigpt"]  # the answer selector is trained too


def test_the_default_experiment_is_lean_and_the_ablation_study_holds_its_runs_with_the_same_settings():
    from pathlib import Path

    from minirag.config.load import load_corpus
    workflow = Path(__file__).resolve().parents[2] / "workflow"
    lean = load_corpus(workflow / "config.yaml", "kb")
    study = load_corpus(workflow / "config.ablations.yaml", "kb-ablations")
    assert len(lean["retrievers"]) <= 8 and len(study["retrievers"]) == 41
    assert {"hashing", "biencoder", "bm25", "hybrid", lean["serve"]} <= set(lean["retrievers"])
    for key in ("source", "tokenizer", "chunk", "prompt", "depth", "readers", "serve", "answer"):
        assert lean[key] == study[key], key
    for section in ("retrievers", "embedders", "bm25"):
        assert {n: study[section][n] for n in lean[section]} == lean[section], section
    assert "feedback-dense" in study["retrievers"] and "feedback-dense" not in lean["retrievers"]
    assert Corpus.of(study).answered() == Corpus.of(lean).answered() == ["bm25", "hybrid", "lexical-rerank"]


@pytest.mark.parametrize("name", ["history", "configs", "logs", "benchmarks"])
def test_a_corpus_named_like_a_folder_results_keeps_for_itself_is_refused(name):
    with pytest.raises(ConfigError, match=rf"corpora\.{name}: .* results/ keeps for itself"):
        corpus_config({"corpora": {name: {}}}, name)


@pytest.mark.parametrize("files, name", [([], "report"), (["workflow/config.yaml"], "report"),
                                         (["cfg/mine.yaml"], "mine"), (["workflow/config.scifact.yaml"], "scifact")])
def test_a_report_is_named_after_its_config_file(files, name):
    from minirag.artifacts.layout import report_name
    assert report_name({}, files) == name


@pytest.mark.parametrize("config, files", [({}, ["x$(touch PWNED).yaml"]), ({}, ["z;touch PWNED3;.yaml"]),
                                           ({}, ["y`touch PWNED`.yml"]), ({"report": "x\n"}, ["ok.yaml"]),
                                           ({"report": "../up"}, [])])
def test_a_report_name_that_cannot_be_a_file_name_is_refused_from_the_key_or_the_file_name(config, files):
    from minirag.artifacts.layout import report_name
    with pytest.raises(ValueError, match="cannot name the report"):
        report_name(config, files)


def test_the_config_check_refuses_a_source_that_is_not_there_naming_its_key(tmp_path):
    import subprocess
    import sys
    (tmp_path / "docs").mkdir()
    for source, key in (("{format: markdown, path: nowhere}", "path: nowhere"),
                        ("{format: markdown, path: docs, questions: q.jsonl}", "questions: q.jsonl")):
        (tmp_path / "mine.yaml").write_text(f"corpora:\n  c:\n    source: {source}\n", encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "minirag.config.load", "mine.yaml"], cwd=tmp_path,
                              capture_output=True, text=True)
        assert proc.returncode == 2 and proc.stderr == f"error: mine.yaml: corpora.c.source.{key} not found\n"
    (tmp_path / "q.jsonl").write_text("", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "minirag.config.load", "mine.yaml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "corpora.c.source.path: docs holds no document minirag reads" in proc.stderr
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "minirag.config.load", "mine.yaml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == "mine.yaml: a valid config (c)\n"
