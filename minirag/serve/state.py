"""What the server answers from: one consistent load of a built corpus, swapped whole when the graph rebuilds it.

`Snapshot` is a `BuiltCorpus` with every retriever and reader opened at once (each artifact
checked against its receipt, vectors and indexes against the chunks' content hashes), plus
the sha256 of each artifact it read. A request takes the current snapshot once and uses
only it, so no request sees half of an old and half of a new index.

`LiveCorpus` holds the current snapshot and watches the corpus's `receipts/` folder: every
job of the graph ends by writing its receipt atomically (a rename in that folder), so the
folder's modification time moves whenever an artifact is replaced. When it has moved and
then stayed still for `settle_s`, a new snapshot is loaded beside the old one and swapped in
by one assignment. A load that fails (the graph is half-way through: a new chunks file, old
vectors) keeps the old snapshot and is tried again at the next change.

What it leaves out: HTTP (app.py) and watching the config file (a config edit takes effect
with the rebuild it causes).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..artifacts.io import sha256_file
from ..query.built_corpus import BuiltCorpus


def served_files(corpus, root: Path) -> list[Path]:
    """What a snapshot of the corpus at `root` reads: the inputs of its retrieve, candidates and
    generate jobs, from their stage specs (CorpusGraph.served)."""
    from ..artifacts.layout import CorpusLayout
    from ..pipeline.graph import CorpusGraph
    # what is not there is not loaded either (a corpus without questions has no metrics)
    return [Path(p) for p in CorpusGraph(corpus, CorpusLayout(Path(root))).served() if Path(p).is_file()]


def manifest_path(configfile: str | Path, results: str | Path) -> Path:
    """The manifest the config's report writes (results/manifest.json for the default config)."""
    from ..artifacts.layout import report_name, report_paths
    from ..config.load import load_config
    return report_paths(results, report_name(load_config(configfile), [configfile]))[1]


@dataclass
class Snapshot:
    built: BuiltCorpus
    artifacts: dict[str, str]  # path (relative to the results folder's parent) -> sha256, as in the manifest
    loaded_at: float = field(default_factory=time.time)

    @classmethod
    def load(cls, configfile: str | Path, corpus: str, results: str | Path) -> "Snapshot":
        # Hash first: a file replaced while we open it changes the receipts folder, which loads again.
        from ..config.load import load_checked
        root = Path(results) / corpus
        artifacts = {str(p): sha256_file(p) for p in served_files(load_checked(configfile, corpus), root)}
        built = BuiltCorpus.open(configfile, corpus, results).load_all()
        return cls(built, artifacts)


def _load_summary(configfile: str, corpus: str, results: str) -> tuple[str, dict]:
    try:
        built = Snapshot.load(configfile, corpus, results).built
    except Exception as exc:
        return str(exc), {}
    return "", {"chunks": len(built.by_id), "retrievers": len(built.retriever_names()),
                "readers": len(built.reader_names())}


def check_loads(configfile: str | Path, corpus: str, results: str | Path) -> dict:
    """Load a snapshot in a child process and drop it: what a server with worker processes does
    before it starts them, so that a bad corpus stops it at once without the parent holding a copy.
    Returns the counts of what loaded; raises ValueError with the load's error."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        error, summary = pool.submit(_load_summary, str(configfile), corpus, str(results)).result()
    if error:
        raise ValueError(error)
    return summary


class LiveCorpus:
    """The current snapshot of a corpus, reloaded in the background when the graph rewrites it."""

    def __init__(self, configfile: str | Path, corpus: str, results: str | Path, settle_s: float = 1.0,
                 poll_s: float = 0.5, log=print):
        self.configfile, self.corpus, self.results = configfile, corpus, Path(results)
        self.settle_s, self.poll_s, self.log = settle_s, poll_s, log
        self.receipts = self.results / corpus / "receipts"
        self.manifest = manifest_path(configfile, results)
        self.started = time.time()
        self.reloads, self.failed_reloads, self.last_error = 0, 0, ""
        self._seen = self._stamp()
        self.current = Snapshot.load(configfile, corpus, results)  # startup refuses to start on a failure
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _stamp(self) -> int | None:
        try:
            return self.receipts.stat().st_mtime_ns
        except OSError:
            return None

    def check(self) -> bool:
        """Load a new snapshot if the receipts changed and have settled; True when one was swapped in."""
        stamp = self._stamp()
        if stamp == self._seen or stamp is None:
            return False
        time.sleep(self.settle_s)
        if self._stamp() != stamp:
            return False  # still being written: look again at the next poll
        self._seen = stamp
        try:
            snapshot = Snapshot.load(self.configfile, self.corpus, self.results)
        except Exception as exc:  # a half-rebuilt corpus: keep serving the old one
            self.failed_reloads += 1
            self.last_error = str(exc)
            self.log(f"serve: artifacts changed but do not load yet ({exc}); still serving the previous ones")
            return False
        self.current, self.last_error = snapshot, ""
        self.reloads += 1
        self.log(f"serve: reloaded {self.corpus} ({len(snapshot.artifacts)} artifacts)")
        return True

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            self.check()

    def start(self) -> "LiveCorpus":
        self._thread = threading.Thread(target=self._watch, name="minirag-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
