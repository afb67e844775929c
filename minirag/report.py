"""Write results/report.md, its figures, and results/manifest.json from built artifacts.

The report reads only files the graph wrote (docs, chunks, questions, eval/*.json|csv,
answers, encoder sidecars, Snakemake benchmark files), so every figure in it names its
source. The manifest records the config, package versions and the sha256 of every input
and output file.

What it leaves out: computing metrics (evaluate.py, diagnose.py); it formats, it does not score.
"""

from __future__ import annotations

import csv
import platform
from collections import Counter
from importlib import metadata
from pathlib import Path

from .config import DIVERSIFIERS, FUSIONS, base_retrievers
from .io import atomic_write_text, read_json, read_jsonl, sha256_file, write_json
from .pipeline import CorpusArtifacts

TABLE_KEYS = ("hit@1", "hit@3", "hit@5", "mrr", "recall@5", "ndcg@10")
TABLE_HEADER = ["hit@1", "hit@3", "hit@5", "MRR", "recall@5", "nDCG@10"]
MIN_TAG_QUESTIONS = 10
SEED_HYBRID_MARGIN = 0.05  # the seed lab's acceptance: hybrid hit@5 >= best single + 5 pp
SEED_RECALL_TAG, SEED_RECALL = "conjugation", 0.95  # the seed's spec: recall@5 >= 0.95 on its verb-conjugation questions
PACKAGES = ("numpy", "pandas", "snakemake", "pyyaml", "matplotlib", "pystemmer")


def md_table(header: list[str], rows: list[list]) -> str:
    def cell(v):
        if v is None:
            return "–"
        return f"{v:.3f}" if isinstance(v, float) else str(v).replace("|", "\\|")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def sweep_groups(cc: dict) -> dict[tuple[str, str], list[str]]:
    """(swept retriever, parameter) -> the retrievers of its points, in config order."""
    groups: dict[tuple[str, str], list[str]] = {}
    for name, spec in cc["retrievers"].items():
        if "sweep_of" in spec:
            groups.setdefault((spec["sweep_of"], spec["sweep_param"]), []).append(name)
    return groups


def figure_paths(results: str, corpus: str, cc: dict) -> list[str]:
    """Every PNG the report writes for a corpus (the report rule declares them as outputs)."""
    root = Path(results) / corpus / "figures"
    paths = [root / f"sweep-{name}-{param}.png" for name, param in sweep_groups(cc)]
    paths += [root / f"loss-{e}.png" for e, spec in cc["embedders"].items() if spec["type"] == "biencoder"]
    return [str(p) for p in paths]


def describe_analyzer(analyzer: dict) -> str:
    """The analyzer steps beyond the seed's lowercased \\w+, as ", stopwords en+es, stem spanish"."""
    parts = []
    if analyzer.get("tokenizer", "word") != "word":
        parts.append(f"{analyzer['tokenizer']} tokenizer")
    if analyzer.get("stopwords"):
        parts.append(f"stopwords {'+'.join(analyzer['stopwords'])}")
    if analyzer.get("stemmer"):
        parts.append(f"stem {analyzer['stemmer']}")
    if analyzer.get("fold_accents"):
        parts.append("accents folded")
    if analyzer.get("cjk_bigrams"):
        parts.append("CJK bigrams")
    if not analyzer.get("lowercase", True):
        parts.append("case kept")
    return "".join(f", {p}" for p in parts)


def describe_retriever(cc: dict, name: str) -> str:
    spec = cc["retrievers"][name]
    kind = spec["type"]
    if kind == "dense":
        return f"dense, {spec['embedder']}"
    if kind == "bm25":
        idx = cc["bm25"][spec["index"]]
        extra = f", title field {idx['title_weight']:g}" if idx["title_weight"] else ""
        return f"BM25 {idx['variant']} k1={idx['k1']:g} b={idx['b']:g}{extra}{describe_analyzer(idx['analyzer'])}"
    if kind == "rrf":
        return f"RRF k={spec['k']} of {' + '.join(spec['of'])}"
    if kind == "linear":
        weights = spec.get("weights") or [spec["alpha"], round(1 - spec["alpha"], 6)]
        return f"linear {spec['norm']} {'/'.join(f'{w:g}' for w in weights)} of {' + '.join(spec['of'])}"
    if kind == "cap":
        return f"{spec['base']} + cap {spec['cap']} per document"
    return f"{spec['base']} + MMR λ={spec['lambda']:g}"


class CorpusReport:
    def __init__(self, name: str, cc: dict, art: CorpusArtifacts, results: str):
        self.name, self.cc, self.art, self.results = name, cc, art, results
        self.docs = read_jsonl(art.docs)
        self.chunks = read_jsonl(art.chunks)
        self.questions = read_jsonl(art.questions)
        self.metrics = read_json(art.eval_dir / "metrics.json")
        self.retrieval = self.metrics["retrieval"]
        self.main = [r for r, s in cc["retrievers"].items() if "sweep_of" not in s]

    def link(self, path: str | Path) -> str:
        return Path(path).relative_to(self.results).as_posix()

    def h5(self, r: str, level: str = "chunk") -> float:
        return self.retrieval[r][level]["hit@5"]

    def render(self) -> str:
        out = [f"## Corpus `{self.name}`", ""]
        if self.cc.get("note"):
            out += [self.cc["note"].strip(), ""]
        for part in (self.overview, self.retrieval_tables, self.fusion, self.tags, self.slices, self.ablation,
                     self.sweeps, self.diagnosis, self.mechanisms, self.assertions, self.encoders, self.answers, self.stage_times):
            out += part()
        return "\n".join(out)

    def overview(self) -> list[str]:
        ch, m = self.cc["chunk"], self.metrics
        params = {"tokens": f"target {ch['target_tokens']} BPE tokens, overlap {ch['overlap']}",
                  "sections": f"one per section, budget {ch['max_tokens']} tokens per part",
                  "chars": f"{ch['size']} characters, overlap {ch['overlap']}",
                  "none": "one chunk per document"}[ch["strategy"]]
        chars = sorted(len(c["text"]) for c in self.chunks)
        counted = lambda key: ", ".join(f"{k}: {v}" for k, v in sorted(Counter(q[key] for q in self.questions).items()))  # noqa: E731
        return [f"- Source: `{self.cc['source']['path']}` ({self.cc['source']['format']}); {len(self.docs)} documents "
                f"({', '.join(f'{k}: {v}' for k, v in sorted(Counter(d['lang'] for d in self.docs).items()))}), "
                f"{sum(len(d['text']) for d in self.docs):,} characters.",
                f"- Chunking: `{ch['strategy']}` ({params}); {len(self.chunks)} chunks, "
                f"median {chars[len(chars) // 2] if chars else 0} characters.",
                f"- Questions: {m['questions']} ({m['answerable']} answerable); by language {counted('lang')}; "
                f"by difficulty {counted('difficulty')}.", ""]

    def retrieval_tables(self) -> list[str]:
        out = []
        for level, what in (("chunk", "a chunk is relevant when it overlaps the gold evidence span "
                                      "(any chunk of a gold document where gold has no span)"),
                            ("doc", "a document is relevant when it is a gold document; its rank is its best chunk's")):
            out += [f"### Retrieval, {level} level", "", f"Answerable questions only; {what}. "
                    "Source: `eval/metrics.json`.", ""]
            rows = [[f"`{r}`", describe_retriever(self.cc, r)] + [self.retrieval[r][level][k] for k in TABLE_KEYS]
                    for r in self.main]
            out += [md_table(["Retriever", "what"] + TABLE_HEADER, rows), ""]
        best = max(self.main, key=lambda r: (self.h5(r), self.retrieval[r]["chunk"]["mrr"]))
        self.best = best
        out += [f"Best retriever by chunk hit@5: `{best}`, hit@5 = {self.h5(best):.3f} "
                f"on {self.metrics['answerable']} answerable questions.", ""]
        return out

    def fusion(self) -> list[str]:
        fused = [r for r in self.main if self.cc["retrievers"][r]["type"] in FUSIONS]
        if not fused:
            return []
        rows = []
        for r in fused:
            channels = self.cc["retrievers"][r]["of"]
            best = max(channels, key=self.h5)
            delta = self.h5(r) - self.h5(best)
            rows.append([f"`{r}`", describe_retriever(self.cc, r), self.h5(r), f"`{best}` {self.h5(best):.3f}",
                         f"{delta * 100:+.1f} pp", "met" if delta >= SEED_HYBRID_MARGIN - 1e-9 else "not met",
                         self.retrieval[r]["chunk"]["mrr"], self.retrieval[r]["chunk"]["ndcg@10"]])
        return ["### Fusion", "",
                "Each fused run against the best of the channels it fuses (chunk-level hit@5). The seed lab's "
                "acceptance is a hybrid at least 5 percentage points above its best single channel; where it is "
                "not met, the diagnosis below shows why (channel overlap, shared misses, chunks always on top).", "",
                md_table(["Fused run", "what", "hit@5", "best channel", "Δ hit@5", "seed's +5 pp", "MRR", "nDCG@10"],
                         rows), ""]

    def tags(self) -> list[str]:
        tags = self.metrics.get("tags", {})
        counts = Counter(t for q in self.questions if q["answerable"] for t in q.get("tags", []))
        shown = [t for t, n in sorted(counts.items()) if n >= MIN_TAG_QUESTIONS]
        if not shown and SEED_RECALL_TAG not in counts:
            return []
        out = ["### By tag (chunk level)", ""]
        if SEED_RECALL_TAG in counts:
            best = max(self.main, key=lambda r: tags[r][SEED_RECALL_TAG]["chunk"]["recall@5"])
            recall = tags[best][SEED_RECALL_TAG]["chunk"]["recall@5"]
            out += [f"`{SEED_RECALL_TAG}` ({counts[SEED_RECALL_TAG]} answerable questions) is the seed's "
                    f"verb-conjugation set, whose spec asks recall@5 ≥ {SEED_RECALL:g} of the best retriever: "
                    f"best is `{best}` with recall@5 = {recall:.3f} "
                    f"({'met' if recall >= SEED_RECALL - 1e-9 else 'not met'}).", ""]
        if shown:
            rows = [[t, counts[t], f"`{r}`", tags[r][t]["chunk"]["hit@5"], tags[r][t]["chunk"]["recall@5"],
                     tags[r][t]["chunk"]["mrr"]] for t in shown for r in self.main]
            out += [f"Tags carried by at least {MIN_TAG_QUESTIONS} answerable questions.", "",
                    md_table(["tag", "n", "Retriever", "hit@5", "recall@5", "MRR"], rows), ""]
        return out

    def slices(self) -> list[str]:
        rows = [r for r in read_csv(self.art.eval_dir / "slices.csv") if r["level"] == "chunk" and r["retriever"] in self.main]
        cells = {(r["lang"], r["difficulty"], r["retriever"]): (float(r["hit@5"]), int(r["n"])) for r in rows}
        keys = list(dict.fromkeys((r["lang"], r["difficulty"]) for r in rows))
        table = [[lang, diff, cells[(lang, diff, self.main[0])][1]] + [cells[(lang, diff, r)][0] for r in self.main]
                 for lang, diff in keys]
        return ["### Slices: hit@5 by language and difficulty (chunk level)", "",
                "Source: `eval/slices.csv` (all metrics, both levels).", "",
                md_table(["lang", "difficulty", "n"] + [f"`{r}`" for r in self.main], table), ""]

    def diversity_means(self) -> dict[str, dict]:
        path = self.art.eval_dir / "diversity.csv"
        return {r["retriever"]: r for r in read_csv(path) if r["qid"] == "mean"} if path.exists() else {}

    def ablation(self) -> list[str]:
        div = self.diversity_means()
        retrievers = self.cc["retrievers"]
        bases = list(dict.fromkeys(s["base"] for s in retrievers.values() if s["type"] in DIVERSIFIERS))
        if not bases:
            return []
        rows = []
        for base in bases:
            family = [base] + sorted((r for r, s in retrievers.items() if s.get("base") == base),
                                     key=lambda r: (retrievers[r]["type"], retrievers[r].get("lambda", 0)))
            for r in family:
                d = div.get(r, {})
                rows.append([f"`{r}`", "none" if r == base else describe_retriever(self.cc, r), self.h5(r),
                             self.h5(r, "doc"), self.retrieval[r]["chunk"]["mrr"],
                             float(d["distinct_docs"]) if d.get("distinct_docs") else None,
                             float(d["mean_cosine"]) if d.get("mean_cosine") else None])
        k = self.cc["diagnose"]["k"]
        return ["### Diversification ablation", "",
                f"The same fused run with no diversification, a per-document cap, and MMR (sweep points included): "
                f"hit@5 at chunk and document level, MRR (chunk), distinct documents in the top {k} and the mean "
                f"pairwise cosine of the top-{k} chunk vectors (`{self.cc['diagnose']['embedder']}` vectors; lower = "
                "more diverse). A cap can only push a second chunk of the same page down, so it can cost chunk-level "
                "hits while keeping every page. Source: `eval/diversity.csv`.", "",
                md_table(["Run", "diversification", "hit@5", "hit@5 (doc)", "MRR", f"distinct docs in top {k}",
                          "mean pairwise cos"], rows), ""]

    def sweeps(self) -> list[str]:
        from .figures import plot_sweep
        out = []
        for (name, param), points in sweep_groups(self.cc).items():
            points = sorted([name] + points, key=lambda p: self.cc["retrievers"][p][param])
            values = [self.cc["retrievers"][p][param] for p in points]
            hit5 = [self.h5(p) for p in points]
            mrr = [self.retrieval[p]["chunk"]["mrr"] for p in points]
            png = Path(self.results) / self.name / "figures" / f"sweep-{name}-{param}.png"
            plot_sweep(png, f"{self.name}: {name}, sweeping {param}", param, values, {"hit@5": hit5, "MRR": mrr})
            out += [f"### Sweep: `{name}` over {param}", "",
                    f"Each point is its own run (`runs/{name}@{param}=<value>.trec`, and `runs/{name}.trec` for the "
                    f"configured value) and evaluation; chunk level.", "",
                    md_table([param, "run", "hit@5", "MRR", "nDCG@10"],
                             [[f"{v:g}", f"`{p}`", h, m, self.retrieval[p]["chunk"]["ndcg@10"]]
                              for v, h, m, p in zip(values, hit5, mrr, points)]),
                    "", f"![hit@5 against {param}]({self.link(png)})", ""]
        return out

    def diagnosis(self) -> list[str]:
        ev = self.art.eval_dir
        if not (ev / "diagnosis.csv").exists():
            return []
        diag = read_csv(ev / "diagnosis.csv")
        k = self.cc["diagnose"]["k"]
        shared = [r for r in diag if r["shared_miss"] == "True"]
        overlap = [r for r in read_csv(ev / "overlap.csv") if r["qid"] == "mean"]
        pairs = [[f"`{p.replace('|', '` vs `')}`", float(v)] for p, v in (overlap[0].items() if overlap else []) if p != "qid"]
        always = [r for r in read_csv(ev / "always_on_top.csv") if r["retriever"] in base_retrievers(self.cc)]
        out = ["### Diagnosis", "",
               "Files: `eval/diagnosis.csv` (per question, each channel's best rank of a gold chunk and of a gold "
               "document, and where it landed in each fused run), `eval/overlap.csv`, `eval/always_on_top.csv`, "
               "`eval/diversity.csv`.", "",
               f"- Questions where no base channel has a gold document in its top {k} (a blind spot no fusion of "
               f"them can fix): {len(shared)} of {len(diag)}."]
        if pairs:
            out += [f"- Mean top-{k} overlap between channels: " + "; ".join(f"{p} {v:.2f}" for p, v in pairs) + "."]
        share = f"{self.cc['diagnose']['always_share']:.0%}"
        if always:
            out += ["", f"Chunks in the top {k} of more than {share} of questions (\"always on top\"):", "",
                    md_table(["Channel", "chunk", "document", "questions"],
                             [[f"`{r['retriever']}`", r["chunk_id"], r["doc_id"], r["count"]] for r in always[:10]])]
        else:
            out += [f"- No chunk of a base channel is in the top {k} of more than {share} of questions "
                    "(no \"always on top\" hub)."]
        return out + [""]

    def mechanism_pairs(self) -> list[tuple[str, str, str]]:
        """(mechanism, run without it, run with it): a title field, a cap, MMR, each against its own control."""
        rets, pairs = self.cc["retrievers"], []
        for r, spec in rets.items():
            if "sweep_of" in spec:
                continue
            if spec["type"] in DIVERSIFIERS:
                pairs.append((describe_retriever(self.cc, r).split(" + ")[-1], spec["base"], r))
            elif spec["type"] == "bm25" and self.cc["bm25"][spec["index"]]["title_weight"]:
                mine = {**self.cc["bm25"][spec["index"]], "title_weight": 0.0}
                for other, o in rets.items():
                    if o["type"] == "bm25" and self.cc["bm25"][o["index"]] == mine:
                        pairs.append(("title field", other, r))
        return pairs

    def mechanisms(self) -> list[str]:
        path = self.art.eval_dir / "diagnosis.csv"
        pairs = self.mechanism_pairs()
        if not pairs or not path.exists():
            return []
        k = self.cc["diagnose"]["k"]
        diag = read_csv(path)

        def inside(row: dict, run: str) -> bool:
            return bool(row[f"{run}_doc"]) and int(row[f"{run}_doc"]) <= k

        rows = []
        for mech, without, with_ in pairs:
            fixed = [r["qid"] for r in diag if inside(r, with_) and not inside(r, without)]
            broken = [r["qid"] for r in diag if inside(r, without) and not inside(r, with_)]
            rows.append([mech, f"`{without}` → `{with_}`", len(fixed), ", ".join(fixed[:8]) + (" …" if len(fixed) > 8 else ""),
                         len(broken), ", ".join(broken[:8]) + (" …" if len(broken) > 8 else "")])
        return ["### What each mechanism fixes", "",
                f"Per question, from `eval/diagnosis.csv`: a gold document's best chunk enters the top {k} with the "
                f"mechanism (fixed) or leaves it (broken), against the same run without it.", "",
                md_table(["Mechanism", "runs", "fixed", "questions", "broken", "questions"], rows), ""]

    def assertions(self) -> list[str]:
        path = self.art.eval_dir / "assertions.md"
        if not self.cc["assertions"] or not path.exists():
            return []
        text = path.read_text(encoding="utf-8").strip()
        summary = text.splitlines()[-1]
        per_run: dict[str, list[bool]] = {}
        for r in read_json(path.with_suffix(".json")):
            per_run.setdefault(r["assertion"].split(":")[0].split(" ")[0], []).append(r["passed"])
        return [f"### Assertions: {summary}", "",
                f"From `{self.cc['assertions']}`, checked on the runs by `python -m minirag assert` "
                f"({'strict: a failure fails the build' if self.cc['strict'] else 'recorded; the build does not fail'}). "
                "Per run:", "",
                md_table(["Run", "what", "passed"], [[f"`{r}`", describe_retriever(self.cc, r) if r in self.cc["retrievers"] else "",
                                                      f"{sum(v)} of {len(v)}"] for r, v in per_run.items()]), "",
                "<details><summary>Every assertion</summary>", "", text, "", "</details>", ""]

    def encoders(self) -> list[str]:
        from .figures import plot_loss
        out = []
        for e, spec in self.cc["embedders"].items():
            if spec["type"] != "biencoder":
                continue
            side = read_json(self.art.encoder(e).with_suffix(".json"))
            losses = side["loss_per_epoch"]
            png = Path(self.results) / self.name / "figures" / f"loss-{e}.png"
            plot_loss(png, f"{self.name}: {e} training loss", losses)
            sources = ", ".join(f"{source} {n:,}" for source, n in side["pairs_by_source"].items())
            out += [f"### Encoder `{e}`", "",
                    f"MiniBiEncoder trained on {side['training_pairs']:,} pairs ({sources}); "
                    f"loss {losses[0]:.3f} → {losses[-1]:.3f} over {len(losses)} epochs. "
                    f"Source: `encoders/{e}.json`.", ""]
            out += self.against_controls(e) + [f"![training loss]({self.link(png)})", ""]
        return out

    def dense_runs(self) -> dict[str, str]:
        """{dense retriever: its embedder}."""
        retrievers = self.cc["retrievers"]
        return {r: retrievers[r]["embedder"] for r in self.main if retrievers[r]["type"] == "dense"}

    def against_controls(self, embedder: str) -> list[str]:
        """The seed's sanity check: a trained encoder's dense run against every untrained (hashing) one."""
        dense = self.dense_runs()
        controls = [r for r, e in dense.items() if self.cc["embedders"][e]["type"] == "hashing"]
        lines = []
        for trained in (r for r, e in dense.items() if e == embedder):
            for control in controls:
                t, c = self.retrieval[trained]["chunk"], self.retrieval[control]["chunk"]
                verdict = "beats" if t["hit@5"] > c["hit@5"] else "does not beat"
                lines.append(f"- `{trained}` {verdict} the untrained control `{control}` on chunk hit@5: "
                             f"{t['hit@5']:.3f} vs {c['hit@5']:.3f} ({(t['hit@5'] - c['hit@5']) * 100:+.1f} pp); "
                             f"nDCG@10 {t['ndcg@10']:.3f} vs {c['ndcg@10']:.3f}.")
        return lines + [""] if lines else []

    def answers(self) -> list[str]:
        answers = self.metrics.get("answers", {})
        if not answers:
            return []
        out = ["### Answers", "",
               f"Extractive reader over the top {self.cc['prompt']['k']} chunks of each run: contains the gold answer "
               "and cites a relevant chunk (answerable questions), abstains exactly when it should (all questions).", "",
               md_table(["Run", "reader", "contains answer", "cites relevant", "abstention acc.", "latency p50 (ms)", "p95 (ms)"],
                        [[f"`{r}`", a["reader"], a["contains_answer"], a["cites_relevant"], a["abstention_accuracy"],
                          a["latency_ms_p50"], a["latency_ms_p95"]] for r, a in answers.items()]), ""]
        best = self.best if self.best in answers else next(iter(answers))
        unanswerable = [q for q in self.questions if not q["answerable"]]
        if unanswerable:
            said = {r["qid"]: r for r in read_jsonl(self.art.answers(best))}
            out += [f"Unanswerable questions and what the reader said over `{best}`:", "",
                    md_table(["qid", "question", "answer"], [[q["qid"], q["query"], said[q["qid"]]["answer"]]
                                                            for q in unanswerable]), ""]
        return out

    def stage_times(self) -> list[str]:
        rows = []
        for path in sorted((self.art.root / "benchmarks").glob("*.tsv")):
            with open(path, encoding="utf-8") as fh:
                records = list(csv.DictReader(fh, delimiter="\t"))
            if records:
                rows.append([path.stem, float(records[-1]["s"]), round(float(records[-1].get("max_rss") or 0), 1)])
        if not rows:
            return []
        return ["### Stage wall times", "",
                f"From each job's Snakemake benchmark file (last run); {sum(r[1] for r in rows):.1f} s in all.", "",
                md_table(["Job", "seconds", "max RSS (MB)"], rows), ""]


def package_versions() -> dict:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def manifest(settings: dict, config_path: str | None) -> dict:
    files = {}
    for name, cc in settings["corpora"].items():
        src = Path(cc["source"]["path"])
        pattern = cc["source"]["glob"] if cc["source"]["format"] == "markdown" else "**/*"
        sources = sorted(p for p in src.glob(pattern) if p.is_file())
        if cc["source"]["format"] == "markdown":
            sources.append(Path(cc["source"]["questions"]))
        if cc["assertions"]:
            sources.append(Path(cc["assertions"]))
        root = Path(settings["results"]) / name
        outputs = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
        files[name] = {"inputs": {str(p): sha256_file(p) for p in sources},
                       "outputs": {str(p): sha256_file(p) for p in outputs}}
    return {"config": config_path, "corpora": settings["corpora"], "packages": package_versions(), "files": files}


def write_report(settings: dict, out: str, manifest_path: str, config_path: str | None = None) -> None:
    parts = ["# minirag report", "",
             f"Built by `snakemake` from `{config_path}`. Every table is read from the artifact it names under "
             "`results/<corpus>/`; `results/manifest.json` holds the sha256 of every input and output.", ""]
    for name, cc in settings["corpora"].items():
        parts.append(CorpusReport(name, cc, CorpusArtifacts(Path(settings["results"]) / name), settings["results"]).render())
    atomic_write_text(out, "\n".join(parts).rstrip() + "\n")
    write_json(manifest_path, manifest(settings, config_path))
