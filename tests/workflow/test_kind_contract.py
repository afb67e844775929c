"""A retriever kind that reads a file no kind read before goes in as one class and its test: its
`reads` become the retrieve job's inputs and command line, the retrieve stage and `Sources` hand
it the file by its key, a server's sources hold it, and the report describes it. Neither
stages/retrieve.py nor `Sources` knows the kind."""

from dataclasses import dataclass

import pytest
import yaml
from support.project import MINI_CONFIG

from minirag.artifacts.integrity import load_records
from minirag.artifacts.layout import CorpusLayout
from minirag.config.corpus import corpus_config
from minirag.pipeline.graph import CorpusGraph
from minirag.pipeline.stages import BY_RULE
from minirag.query.built_corpus import BuiltCorpus
from minirag.rank.kinds import KINDS, RetrieverKind
from minirag.rank.kinds.base import file_key
from minirag.stages.common import parser_for
from minirag.stages.retrieve import retrieve, retrieve_reads


class TitleWords:
    """Ranks chunks by how many of the query's words their document's title holds."""

    def __init__(self, chunks, titles: dict[str, str]):
        self.rows = [(c.id, set(titles[c.doc_id].lower().split())) for c in chunks]

    def search(self, query, k=5):
        words = set(query.lower().split())
        scored = [(cid, float(len(words & title))) for cid, title in self.rows if words & title]
        return sorted(scored, key=lambda x: (-x[1], x[0]))[:k]

    def search_batch(self, queries, k):
        return [self.search(q, k) for q in queries]


@pytest.fixture
def title_kind():
    @dataclass(frozen=True)
    class TitleSettings:
        lowercase: bool = True

    class Titles(RetrieverKind):
        """The toy kind: its own file (the documents, under the key `titles`) and nothing else."""
        type, Settings = "titles-test", TitleSettings

        def reads(self, graph):
            return {file_key("titles"): str(graph.layout.docs)}

        def open(self, sources):
            docs = load_records(sources.file(file_key("titles"), "titles"), "documents")
            return TitleWords(sources.chunks, {d["doc_id"]: d["title"] for d in docs})

        def describe(self, cc):
            return "title words"
    yield Titles
    del KINDS["titles-test"]


def config_with_titles(built):
    config = yaml.safe_load(MINI_CONFIG)
    config["corpora"]["mini"]["retrievers"]["titles"] = {"type": "titles-test"}
    return corpus_config(config, "mini")


def test_a_kind_with_a_file_of_its_own_is_read_run_served_and_described_from_its_class(
        title_kind, mini_built, monkeypatch, tmp_path):
    monkeypatch.chdir(mini_built)
    cc = config_with_titles(mini_built)
    graph = CorpusGraph(cc, CorpusLayout.of("results", "mini"))
    docs = "results/mini/docs.jsonl"
    assert retrieve_reads(graph, "titles") == {"files": {"titles": docs}}
    spec = BY_RULE["retrieve"]
    argv = spec.argv(graph, {"name": "titles"})
    assert argv[argv.index("--files"):argv.index("--files") + 3] == ["--files", "titles", docs]
    assert docs in spec.inputs(graph, {"name": "titles"})["files"]

    args = vars(parser_for(retrieve).parse_args(argv))
    args.pop("receipt"), args.pop("debug")
    out = tmp_path / "titles.trec"
    retrieve(**{**args, "out": out})  # the fixture is shared: the run goes elsewhere
    run: dict[str, list[str]] = {}
    for line in out.read_text().splitlines():  # qid Q0 chunk rank score tag, in rank order
        qid, _, cid, *_ = line.split()
        run.setdefault(qid, []).append(cid)
    titles = {d["doc_id"]: set(d["title"].lower().split()) for d in load_records(docs, "documents")}
    doc_of = {c["id"]: c["doc_id"] for c in load_records("results/mini/chunks.jsonl", "chunks")}
    questions = {q["qid"]: set(q["query"].lower().split()) for q in load_records("results/mini/questions.jsonl", "questions")}
    ranked = {qid: ranking for qid, ranking in run.items() if ranking}
    assert ranked  # some question shares a word with a title
    for qid, ranking in ranked.items():  # its first chunk's document title shares a word with the question
        assert questions[qid] & titles[doc_of[ranking[0]]], qid

    assert graph.retriever_files()["titles"] == docs  # what a server's sources are given
    assert docs in graph.served()
    built = BuiltCorpus("mini", cc, "results")
    hits = built.search("irregular verbs", retriever="titles", k=3)["results"]
    assert hits and {h["doc_id"] for h in hits} == {"en/irregular-verbs.md"}
    assert {"name": "titles", "description": "title words"}.items() <= next(
        r for r in built.describe_retrievers() if r["name"] == "titles").items()
