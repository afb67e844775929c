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

import yaml

from ..artifacts.safe_yaml import read_yaml
from .corpus import ConfigError, corpus_config
from .schema import config_schema


def validate(config: dict, where: str) -> None:
    import jsonschema
    errors = sorted(jsonschema.Draft202012Validator(config_schema()).iter_errors(config), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        key = ".".join(map(str, first.absolute_path)) or "(top level)"
        raise ConfigError(f"{where}: {key}: {first.message}")


def load_config(path: str | Path) -> dict:
    path = Path(path)
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
    validate(config, str(path))
    return config


def check_config_files(paths) -> None:
    """The bounds `read_yaml` keeps (no key twice in a mapping, no alias bomb, no deep nesting) on
    the config files Snakemake has already loaded by itself: its loader keeps the last of two equal
    keys silently. Raises ConfigError naming the file, the key and both lines."""
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
    """One corpus's checked settings from a config file."""
    try:
        return corpus_config(load_config(path), corpus)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}" if not str(exc).startswith(str(path)) else str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    """Check each config file given (exists, is a file, bounded YAML, schema, every corpus); one line each."""
    import sys

    from .corpus import corpus_names
    paths = sys.argv[1:] if argv is None else argv
    for path in paths:
        try:
            config = load_config(path)
            names = corpus_names(config)
            for name in names:
                load_corpus(path, name)
        except (ConfigError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"{path}: a valid config ({', '.join(names)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
