"""Artifacts on disk: the plumbing every layer above stands on.

    io.py           atomic writes, JSON / JSONL / npy / npz reading and writing, sha256 of bytes
    layout.py       where a corpus's artifacts live under results/, and which stage wrote a file
    missing.py      an artifact that is not there: the error naming the command that builds it
    trec_lines.py   a TREC run file's lines, parsed (what content.py checks and evaluation reads)
    content.py      what each kind of artifact must hold (shapes, finite values, known ids)
    content_candidates.py  the same for a candidates file (types, known ids, probabilities)
    integrity.py    receipts: what each job read and wrote, by sha256, checked before every load;
                    and that every file the config's jobs write is there (verify)
    candidates.py   the candidates loader: receipt, then content
    kept.py         files a job keeps between runs (update() outputs) refused when not regular files
    safe_yaml.py    bounded YAML for everything a user writes (front matter, configs, assertions)

What it leaves out: what the artifacts mean (the packages that make and read them).
"""
