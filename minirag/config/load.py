"""Read a config file the way the workflow does: YAML, the schema, then minirag's checks.

The command line (`search`, `answer`, `assert`) loads configs here, so a config the
workflow would refuse is refused with the same message, naming the file and the key path.
`python -m minirag.config.load FILE...` checks files before Snakemake is given them (`make
check-config`): Snakemake reads a `--configfile` before the workflow's own checks run, and
a folder or a missing file there ends in its traceback.

What it leaves out: Snakemake's merging of several config files (the workflow merges a
`--configfile` into workflow/config.yaml; here one file is one config).
"""

from __future__ import annotations

from pathlib import Path

from ..settings import did_you_mean
from ..text.corpus import SourceSettings
from .corpus import ConfigError, checked_corpus
from .typed import Corpus


def validate(config: dict, where: str) -> None:
    """The config against the schema; the first error as one line naming its key (an unknown
    key with the nearest known one), never the schema itself."""
    import jsonschema

    from .schema import config_schema  # here: search and answer skip the schema (and its imports)
    errors = sorted(jsonschema.Draft202012Validator(config_schema()).iter_errors(config), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        key = ".".join(map(str, first.absolute_path)) or "(top level)"
        raise ConfigError(f"{where}: {schema_message(first, key)}")


def schema_message(error, key: str) -> str:
    """One line for a schema error: an unknown key names the nearest known one."""
    known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        extra = sorted(k for k in error.instance if k not in known)
        if extra:
            where = f"{key}.{extra[0]}" if key != "(top level)" else str(extra[0])
            return f"{where}: unknown key{did_you_mean(extra[0], known)} (known: {', '.join(sorted(known))})"
    message = error.message if len(error.message) <= 200 else error.message[:200] + " ..."
    return f"{key}: {message}"


def load_config(path: str | Path, schema: bool = True, results: str | Path | None = None) -> dict:
    """The config file, checked against the JSON schema unless `schema` is False: `search`, `answer` and
    `serve` check only the corpus they open, with minirag's own checks of its settings (the dataclasses the
    schema is generated from: the same keys, types and bounds), and skip jsonschema's 0.1 s of imports.
    Given `results`, the YAML's value is read from the copy the report kept of these very bytes, if there
    is one (parsed.py), without loading PyYAML."""
    path = Path(path)
    if results is not None:
        from .parsed import read_parsed
        config = read_parsed(path, results)
        if config is not None:
            if schema:
                validate(config, str(path))
            return config
    import yaml

    from ..artifacts.safe_yaml import read_yaml
    try:
        config = read_yaml(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: a folder, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path}: expected a mapping with 'corpora'")
    if schema:
        validate(config, str(path))
    return config


def check_config_files(paths) -> None:
    """The bounds `read_yaml` keeps (no key twice in a mapping, no alias bomb, no deep nesting) on
    the config files Snakemake has already loaded by itself: its loader keeps the last of two equal
    keys silently. Raises ConfigError naming the file, the key and both lines."""
    import yaml

    from ..artifacts.io import read_text
    from ..artifacts.safe_yaml import check_events
    for path in dict.fromkeys(map(str, paths)):
        try:
            check_events(read_text(path), path, 100_000, 40)
        except (OSError, yaml.YAMLError):
            continue  # Snakemake read it already, and says so itself when it cannot
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


def load_corpus(path: str | Path, corpus: str) -> dict:
    """One corpus's checked settings from a config file, as builtins (corpus.py `corpus_config`)."""
    return dict(load_checked(path, corpus).config)


def load_checked(path: str | Path, corpus: str) -> Corpus:
    """One corpus's checked settings from a config file, typed (typed.py)."""
    try:
        return checked_corpus(load_config(path), corpus)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}" if not str(exc).startswith(str(path)) else str(exc)) from None


def missing_source(src: SourceSettings, name: str, folders_only: bool = False) -> str | None:
    """The first file or folder a corpus's `source` names that is not there (its key path and value), else None:
    a build would fail in its first job, after Snakemake cleared that job's previous outputs. `folders_only`:
    the check the workflow makes itself, where a dataset's missing file may be a download rule's output."""
    from ..text.corpus import FOLDERS
    from ..text.folder import holds_documents
    if folders_only and src.format not in FOLDERS:
        return None
    for key, value in (("path", src.path), ("questions", src.questions)):
        if value and not Path(value).exists():
            return f"corpora.{name}.source.{key}: {value} not found"
    glob = src.glob  # the format's own when the config names none (corpus.py)
    if glob and Path(src.path).is_dir() and not holds_documents(src.path, glob, src.format == "markdown"):
        return (f"corpora.{name}.source.path: {src.path} holds no document minirag reads (Markdown, text, HTML, "
                f"Word or PDF files matching {glob!r})")
    return None


def main(argv: list[str] | None = None) -> int:
    """Check each config file given (exists, is a file, bounded YAML, schema, every corpus and the files its
    source names); one line each."""
    import argparse
    import sys

    from ..artifacts.layout import report_name
    from .corpus import corpus_names
    ap = argparse.ArgumentParser(prog="python -m minirag.config.load", description=main.__doc__)
    ap.add_argument("paths", nargs="+", metavar="FILE", help="a config file (YAML), e.g. workflow/config.yaml")
    for path in ap.parse_args(argv).paths:
        try:
            config = load_config(path)
            names = corpus_names(config)
            for name in names:
                if (problem := missing_source(load_checked(path, name).source, name)):
                    raise ConfigError(f"{path}: {problem}")
            report_name(config, [path])  # the workflow's check of the report's name, before Snakemake runs
        except (ConfigError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"{path}: a valid config ({', '.join(names)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
