"""The experiment config: settings dataclasses gathered per corpus, checks, stage params, the schema."""
