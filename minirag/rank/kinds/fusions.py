"""Fusion kinds: a ranking made from the runs named in `of` (Reciprocal Rank Fusion, a linear mix)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

from ...datasets.dev_split import has_dev_questions
from ...settings import SettingsError, setting, settings_to_dict
from ..fit import fit_weights
from ..fusion import linear_fusion, reciprocal_rank_fusion
from ..ranking import Ranking, Retriever
from .base import Combining, RetrieveJob, file_key


@dataclass(frozen=True)
class FitQuestionsSettings:
    """The questions a fitted fusion fits on when the corpus has no dev split: synthesised from the
    corpus (answer/reading/retrieval_questions.py, the fit_questions stage), kept only if no upstream
    trained component trained on them."""
    n: int = setting(1000, minimum=1)                       # questions synthesised per family, before that filter
    # generic: any markdown; learner: a grammar KB; empty: the families of the encoders feeding the fusion
    # that train on synthesised questions, else generic (chosen on the KB's dev split, bench/fit_synthetic.py)
    families: tuple[Literal["learner", "generic"], ...] = ()
    seed: int = 0                                           # which questions
    # the fitted weights = (1 - shrink) * the fit set's best + shrink * equal weights: synthetic questions favour
    # the channel trained on their templates (0: the best grid point; 0.5 chosen on dev, bench/fit_synthetic.py)
    shrink: float = setting(0.5, minimum=0, maximum=1)

    def synthesis(self) -> dict:
        """The settings the fit_questions stage reads (`shrink` is the retrieve stage's)."""
        return {k: v for k, v in settings_to_dict(self).items() if k != "shrink"}


class Fusion(Combining):
    """A kind that combines the runs named in its `of` setting, with weights the config gives or,
    with `fit: true`, fitted by the retrieve stage (rank/fit.py) on the dev split or, for a corpus
    without one, on held-out synthetic questions (the fit_questions stage's file, ranked live by every
    retriever feeding it), and kept in the run's receipt, where a live retriever reads them back
    (`fitted_weights`)."""
    family, upstream_key, fuses = "fusion", "of", True
    config_keys = ("feeding", "fit_questions")  # a synthetic fit's (config_reads)
    fitted: list[float] | None = None
    synthetic: dict | None = None  # {"feeding": settings by name, "fit_questions": {"shrink"}} (bind)

    def upstream(self) -> list[str]:
        return list(self.s.of)

    def retrieve_settings(self) -> dict:
        """Its settings but `fit_questions`: the fit_questions job's (its questions are the retrieve job's
        input); a synthetic fit reads their `shrink` apart (`config_reads`)."""
        return {k: v for k, v in self.spec().items() if k != "fit_questions"}

    def fits_on_synthetic(self, corpus) -> bool:
        """Whether it fits on held-out synthetic questions: `fit: true` in a corpus without dev questions."""
        return self.s.fit and not has_dev_questions(corpus.source)

    def config_reads(self, corpus) -> dict:
        """A synthetic fit ranks its questions live with every retriever feeding it (their settings: a change
        re-fits) and shrinks the best weights by its `fit_questions.shrink`; nothing otherwise."""
        if not self.fits_on_synthetic(corpus):
            return {}
        retrievers = corpus.retrievers
        return {"feeding": {r: {**retrievers[r].retrieve_settings(), **retrievers[r].config_reads(corpus)}
                            for r in corpus.feeding(self.name)},
                "fit_questions": {"shrink": self.s.fit_questions.shrink}}

    def bind(self, part) -> None:
        self.synthetic = {k: part[k] for k in self.config_keys} if "feeding" in part else None

    def reads(self, graph) -> dict:
        """A synthetic fit reads its questions and what every retriever feeding it ranks them with."""
        if not self.fits_on_synthetic(graph.corpus):
            return {}
        files = {file_key("fit_questions", self.name): str(graph.layout.at("fit_questions", name=self.name))}
        for r in graph.corpus.feeding(self.name):
            files.update(graph.corpus.retrievers[r].serves(graph))
        return files

    def serves(self, graph) -> dict:
        """Fitted weights are read back from the run's receipt."""
        return graph.fitted(self.name) if self.s.fit else {}

    def given_weights(self) -> list[float]:
        raise NotImplementedError

    def fuse(self, rankings: list[Ranking], weights: list[float], depth: int) -> Ranking:
        raise NotImplementedError

    def weights(self, sources) -> list[float]:
        if not self.s.fit:
            return self.given_weights()
        if self.fitted is None:
            self.fitted = self.fitted_weights(sources)
        return self.fitted

    def fitted_weights(self, sources) -> list[float]:
        """The weights its retrieve job fitted, from its run's receipt (the file key `fitted:<name>`)."""
        from ...artifacts.io import read_json
        from ...artifacts.missing import MissingArtifact
        path = sources.path("fitted", self.name, "receipt of the fitted fusion")
        receipt = read_json(path)
        if not isinstance(receipt, dict) or "weights" not in receipt.get("fitted", {}):
            raise MissingArtifact(f"{path}: no fitted weights; re-run retrieve {self.name}")
        return [float(w) for w in receipt["fitted"]["weights"]]

    def combine(self, query, rankings, sources, depth) -> Ranking:
        return self.fuse(rankings, self.weights(sources), depth)

    def rank(self, job: RetrieveJob) -> tuple[list[Ranking], dict | None]:
        """With `fit`, its weights fitted first (`fit_on`), then recorded in the run's receipt."""
        fitted = self.fit_on(job) if self.s.fit else None
        if fitted is not None:
            job.log(f"retrieve: {self.name}: weights {fitted['weights']} fitted on {fitted['fitted_on']}")
        return super().rank(job)[0], fitted

    def fit_on(self, job: RetrieveJob) -> dict:
        """Fit the weights on held-out synthetic questions in a corpus without dev questions (bound:
        `config_reads`), else on the answerable dev questions' runs; what the receipt records."""
        if self.synthetic is None:
            dev = [q for q in job.questions if q.get("split") == "dev" and q.get("answerable", True)]
            return self.fit(job.inputs, job.judged(dev), job.depth)
        from ...artifacts.integrity import load_records
        qs = load_records(job.sources.path("fit_questions", self.name, "fit questions of fusion"), "fit questions")
        feeding = self.synthetic["feeding"]
        inputs, qrels, fitted_on = self.synthetic_inputs(qs, lambda r: job.live(feeding, r), job.depth)
        return self.fit(inputs, qrels, job.depth, fitted_on, self.synthetic["fit_questions"]["shrink"])

    def synthetic_inputs(self, qs: list[dict], feeding: Callable[[str], Retriever],
                         depth: int) -> tuple[list[dict], dict, str]:
        """The held-out synthetic questions `qs` (stages/fit_questions.py) ranked by each run it fuses live
        (`feeding(name)`: its live retriever), their qrels (the chunk each was made from) and what the
        receipt says they are."""
        inputs = []
        for r in self.upstream():
            live = feeding(r)
            inputs.append({q["qid"]: live.search(q["query"], k=depth) for q in qs})
        families = sorted({q["family"].split(":")[0] for q in qs})
        return inputs, {q["qid"]: {q["chunk"]: 1} for q in qs}, \
            f"synthetic: {len(qs)} held-out questions (families {', '.join(families) or 'none'})"

    def fit(self, inputs: list[dict], qrels: dict, depth: int, fitted_on: str = "dev", shrink: float = 0.0) -> dict:
        """Fit the weights on the questions' qrels (the dev split's, or `fitted_on` says which; none: the
        given weights), the best grid point shrunk `shrink` of the way to equal weights (rank/fit.py);
        what the receipt records."""
        if not qrels:
            self.fitted = self.given_weights()
            none = "no dev questions" if fitted_on == "dev" else f"no dev questions, {fitted_on}"
            return {"weights": self.fitted, "fitted_on": f"nothing: {none}; the config's weights"}
        record = fit_weights(lambda rs, w: self.fuse(rs, w, depth), inputs, qrels, shrink)
        self.fitted = record["weights"]
        if shrink:
            best = "/".join(f"{w:g}" for w in record["argmax"]["weights"])
            fitted_on += f"; their best weights {best} shrunk {shrink:g} of the way to equal weights"
        return {**record, "fitted_on": fitted_on}

    def weights_text(self, corpus=None) -> str:
        """The weights as the report names them: given, or fitted on dev or on synthetic questions."""
        if not self.s.fit:
            return "/".join(f"{w:g}" for w in self.given_weights())
        if corpus is None or not self.fits_on_synthetic(corpus):
            return "weights fitted on dev"
        shrink = self.s.fit_questions.shrink
        return "weights fitted on held-out synthetic questions" + (f", shrunk {shrink:g} towards equal" if shrink else "")


@dataclass(frozen=True)
class RRFSettings:
    """Reciprocal rank fusion of two or more runs."""
    of: tuple[str, ...] = setting(min_items=2)  # the retrievers whose runs are fused
    k: int = setting(60, minimum=1)             # the constant of Cormack et al. 2009
    weights: tuple[float, ...] = ()             # one weight per run of `of` (weighted RRF); default all 1
    fit: bool = False                           # fit the weights on the dev split (rank/fit.py), not `weights`
    fit_questions: FitQuestionsSettings = FitQuestionsSettings()  # what fit fits on without a dev split

    def check(self, where: str) -> None:
        if self.weights and len(self.weights) != len(self.of):
            raise SettingsError(f"{where}.weights: one weight per retriever in 'of' ({len(self.of)})")


class RRF(Fusion):
    """Reciprocal Rank Fusion of the runs in `of`, each contributing its top max(depth, 20)."""
    type, Settings, sweepable = "rrf", RRFSettings, ("k",)

    def given_weights(self) -> list[float]:
        return list(self.s.weights) or [1.0] * len(self.s.of)

    def fuse(self, rankings, weights, depth) -> Ranking:
        n = max(depth, 20)
        plain = not self.s.fit and not self.s.weights  # the unweighted formula, bit for bit
        return reciprocal_rank_fusion([r[:n] for r in rankings], self.s.k, top_k=depth,
                                      weights=None if plain else weights)

    def describe(self, corpus) -> str:
        weighted = f", {self.weights_text(corpus)}" if self.s.fit or self.s.weights else ""
        return f"RRF k={self.s.k}{weighted} of {' + '.join(self.s.of)}"


@dataclass(frozen=True)
class LinearSettings:
    """A weighted sum of two runs' normalised scores."""
    of: tuple[str, ...] = setting(min_items=2)           # the retrievers whose scores are fused
    alpha: float = setting(0.6, minimum=0, maximum=1)    # weight of the first of `of` (the seed's 0.6 dense); 1 - alpha the second
    norm: Literal["minmax", "zscore"] = "minmax"         # how each ranking's scores are normalised first
    weights: tuple[float, ...] = ()                      # one weight per run of `of`, instead of alpha
    fit: bool = False                                    # fit the weights on the dev split (rank/fit.py)
    fit_questions: FitQuestionsSettings = FitQuestionsSettings()  # what fit fits on without a dev split

    def check(self, where: str) -> None:
        if self.weights and len(self.weights) != len(self.of):
            raise SettingsError(f"{where}.weights: one weight per retriever in 'of' ({len(self.of)})")
        if not self.weights and not self.fit and len(self.of) != 2:
            raise SettingsError(f"{where}.weights: alpha weighs two runs; give one weight per retriever in 'of'")

    def resolved_weights(self) -> list[float]:
        if not self.weights and len(self.of) != 2:  # fitted: equal weights until fitted
            return [1.0 / len(self.of)] * len(self.of)
        return list(self.weights) or [self.alpha, 1.0 - self.alpha]


class Linear(Fusion):
    """A weighted sum of normalised scores of the runs in `of` (the seed write-up's hybrid)."""
    type, Settings, sweepable = "linear", LinearSettings, ("alpha",)

    def given_weights(self) -> list[float]:
        return self.s.resolved_weights()

    def fuse(self, rankings, weights, depth) -> Ranking:
        return linear_fusion(rankings, weights, norm=self.s.norm, top_k=depth)

    def describe(self, corpus) -> str:
        if self.s.fit:
            return f"linear {self.s.norm} {self.weights_text(corpus)} of {' + '.join(self.s.of)}"
        weights = list(self.s.weights) or [self.s.alpha, round(1 - self.s.alpha, 6)]
        return f"linear {self.s.norm} {'/'.join(f'{w:g}' for w in weights)} of {' + '.join(self.s.of)}"
