"""The build history: what every report build measured, kept so that two builds can be compared.

    results/history.jsonl           one record per report build, appended, never rewritten (log.py)
    results/history/<sha256>.json   content-addressed snapshots: per corpus, each run's
                                    per-question scores and each reader's answers (snapshot.py)

`record.py` makes a build's record from the artifacts the report read; `diff.py` compares two
builds, or two runs of one build, question by question; `cli.py` is `python -m minirag history`
and `python -m minirag diff`.
"""
