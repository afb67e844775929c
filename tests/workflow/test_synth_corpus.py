"""The corpora of the cost curve: the synthetic one (Zipfian words, seeded topics) and a BEIR
corpus replicated with perturbation. Both are BEIR folders minirag's own loader reads."""

import json
import re
from collections import Counter
from dataclasses import replace
from itertools import product
from string import ascii_lowercase

import numpy as np
import pytest
from support.project import snakemake

from minirag.datasets.beir import curate_beir, load_beir_questions, read_qrels
from minirag.datasets.replicate_corpus import write_replicated
from minirag.datasets.synth_corpus import SynthSettings, write_synthetic
from minirag.datasets.zipf import fit_zipf_exponent
from minirag.settings import SettingsError, settings_from_dict

# Letters-only stand-in words (aa, ab, ...): the tests do not need wordfreq's list.
VOCAB = ["".join(p) for n in (2, 3, 4) for p in product(ascii_lowercase, repeat=n)][:20_000]
SMALL = SynthSettings(vocab_size=len(VOCAB), topics=50, topic_boost=20.0, queries=40, train_queries=30)


def lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def corpus(folder):
    return [json.loads(line) for line in lines(folder / "corpus.jsonl")]


def test_same_settings_same_bytes_and_a_smaller_corpus_is_the_start_of_a_larger_one(tmp_path):
    write_synthetic(2500, SMALL, tmp_path / "a", vocab=VOCAB)
    write_synthetic(2500, SMALL, tmp_path / "b", vocab=VOCAB)
    write_synthetic(1500, SMALL, tmp_path / "c", vocab=VOCAB)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "qrels/train.tsv", "synth.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert lines(tmp_path / "c" / "corpus.jsonl") == lines(tmp_path / "a" / "corpus.jsonl")[:1500]
    write_synthetic(2500, replace(SMALL, seed=1), tmp_path / "d", vocab=VOCAB)
    assert lines(tmp_path / "d" / "corpus.jsonl")[0] != lines(tmp_path / "a" / "corpus.jsonl")[0]


@pytest.mark.parametrize("s", [1.0, 1.3])
def test_word_counts_follow_the_configured_zipf_exponent_despite_the_topics(tmp_path, s):
    write_synthetic(3000, replace(SMALL, zipf_s=s), tmp_path, vocab=VOCAB)
    counts = Counter(w for d in corpus(tmp_path) for w in re.findall(r"[a-z]+", d["text"].lower()))
    fitted = fit_zipf_exponent(np.array(list(counts.values())), 1, 2000)
    assert abs(fitted - s) < 0.06, fitted


def test_fit_zipf_exponent_recovers_an_exact_law():
    ranks = np.arange(1, 501)
    assert fit_zipf_exponent(1e6 * ranks ** -1.2) == pytest.approx(1.2)


def test_ids_are_unique_qrels_name_existing_passages_and_splits_target_different_passages(tmp_path):
    write_synthetic(2000, SMALL, tmp_path, vocab=VOCAB)
    ids = [d["_id"] for d in corpus(tmp_path)]
    assert len(ids) == len(set(ids)) == 2000
    test, train = read_qrels(tmp_path / "qrels" / "test.tsv"), read_qrels(tmp_path / "qrels" / "train.tsv")
    assert len(test) == 40 and len(train) == 30
    targets = [d for q in (test | train).values() for d in q]
    assert set(targets) <= set(ids) and len(targets) == len(set(targets)) == 70
    queries = [json.loads(line)["_id"] for line in lines(tmp_path / "queries.jsonl")]
    assert sorted(queries) == sorted(test | train)


def test_a_query_is_distinctive_words_of_its_passage(tmp_path):
    write_synthetic(2000, replace(SMALL, query_noise=0), tmp_path, vocab=VOCAB)
    text = {d["_id"]: set(re.findall(r"[a-z]+", d["text"].lower())) for d in corpus(tmp_path)}
    head = set(VOCAB[:SMALL.topic_min_rank - 1])  # the, of, ...: never chosen as distinctive
    qrels = read_qrels(tmp_path / "qrels" / "test.tsv")
    for rec in map(json.loads, lines(tmp_path / "queries.jsonl")):
        if rec["_id"] in qrels:
            words = rec["text"].split()
            (target,) = qrels[rec["_id"]]
            assert len(words) == SMALL.query_words and set(words) <= text[target] and not set(words) & head


def test_minirags_beir_loader_reads_the_folder(tmp_path):
    write_synthetic(1200, SMALL, tmp_path, vocab=VOCAB)
    docs = curate_beir(tmp_path)
    questions = load_beir_questions(tmp_path, "test", docs)
    assert len(docs) == 1200 and all(d["title"] and d["text"] for d in docs)
    assert len(questions) == 40 and all(q["answerable"] for q in questions)


def test_passage_lengths_follow_the_settings(tmp_path):
    write_synthetic(2000, replace(SMALL, length_median=60.0, min_words=30, max_words=120), tmp_path, vocab=VOCAB)
    lengths = np.array([len(d["text"].split()) for d in corpus(tmp_path)])
    assert lengths.min() >= 30 and lengths.max() <= 120 and 55 <= np.median(lengths) <= 65


def test_bad_settings_name_their_key(tmp_path):
    with pytest.raises(SettingsError, match="synth.query_words"):
        settings_from_dict(SynthSettings, {"query_words": 12, "query_pool": 5}, "synth")
    with pytest.raises(SettingsError, match="synth.topic_boost"):
        write_synthetic(500, replace(SMALL, topics=10, topic_boost=11.0, queries=5, train_queries=0), tmp_path,
                        vocab=VOCAB)
    with pytest.raises(ValueError, match="synth.queries"):
        write_synthetic(50, SMALL, tmp_path, vocab=VOCAB)


@pytest.fixture
def beir(tmp_path):
    src = tmp_path / "src"
    (src / "qrels").mkdir(parents=True)
    docs = [{"_id": f"{i}", "title": f"title {i}", "text": " ".join(f"w{i}x{j}" for j in range(30))}
            for i in range(10)]
    (src / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (src / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{i}", "text": f"query {i}"}) + "\n"
                                               for i in range(4)), encoding="utf-8")
    (src / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\t1\t1\nq1\t8\t2\nq2\t9\t1\n")
    (src / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\nq3\t2\t1\n")
    return src


def test_a_replica_keeps_the_originals_and_adds_perturbed_copies_with_new_ids(tmp_path, beir):
    out = tmp_path / "out"
    write_replicated(beir, 25, SynthSettings(), out)
    got, source = corpus(out), corpus(beir)
    assert got[:10] == source and len({d["_id"] for d in got}) == 25
    assert [d["_id"] for d in got[10:12]] == ["0-r1", "1-r1"] and got[-1]["_id"] == "4-r2"
    copy = got[10]["text"].split()
    assert copy != source[0]["text"].split() and set(copy) <= set(source[0]["text"].split())
    assert read_qrels(out / "qrels" / "test.tsv") == read_qrels(beir / "qrels" / "test.tsv")
    write_replicated(beir, 25, SynthSettings(), tmp_path / "again")
    assert (out / "corpus.jsonl").read_bytes() == (tmp_path / "again" / "corpus.jsonl").read_bytes()
    assert len(curate_beir(out)) == 25


def test_a_replica_smaller_than_its_source_judges_only_the_passages_it_holds(tmp_path, beir):
    write_replicated(beir, 5, SynthSettings(), tmp_path / "out")
    assert read_qrels(tmp_path / "out" / "qrels" / "test.tsv") == {"q0": {"1": 1}}
    assert [json.loads(x)["_id"] for x in lines(tmp_path / "out" / "queries.jsonl")] == ["q0", "q3"]


def test_the_vocabulary_is_wordfreqs_english_words_in_frequency_order():
    pytest.importorskip("wordfreq")
    from minirag.datasets.synth_corpus import english_vocabulary
    words = english_vocabulary(2000)
    assert words[:3] == ["the", "to", "and"] and len(set(words)) == 2000
    assert all(re.fullmatch("[a-z]+", w) for w in words)


@pytest.mark.workflow
def test_the_rules_write_both_folders_and_a_corpus_config_builds_on_one(project, beir):
    """The rule file as the Snakefile will include it: a synthetic and a replicated folder, each
    passage count a target, the replica's source from synth.sources; then a BEIR corpus on it."""
    pytest.importorskip("wordfreq")
    snakefile = project / "Snakefile"
    if "synth.smk" not in snakefile.read_text(encoding="utf-8"):
        snakefile.write_text(snakefile.read_text(encoding="utf-8") + '\ninclude: "workflow/rules/synth.smk"\n',
                             encoding="utf-8")
    (project / "synth.yaml").write_text(
        "build: [tiny]\nsynth: {queries: 20, train_queries: 5, vocab_size: 5000, topics: 20, topic_boost: 10,\n"
        f"        sources: {{scifact: {beir}}}}}\n"
        "corpora:\n  tiny:\n    source: {format: beir, path: data/synth/1200, default_lang: en}\n"
        "    chunk: {strategy: none}\n"
        "    retrievers: {bm25: {type: bm25, index: plain}}\n", encoding="utf-8")
    snakemake(project, "data/synth/1200/corpus.jsonl", "data/synth/scifact/25/corpus.jsonl", "results/tiny/runs/bm25.trec",
              configfile="synth.yaml")
    assert len(lines(project / "data/synth/1200/corpus.jsonl")) == 1200
    assert len(lines(project / "data/synth/scifact/25/corpus.jsonl")) == 25
    assert len(lines(project / "results/tiny/runs/bm25.trec")) > 0
    dry = snakemake(project, "data/synth/1200/corpus.jsonl", "-n", configfile="synth.yaml")
    assert "Nothing to be done" in dry.stdout + dry.stderr
