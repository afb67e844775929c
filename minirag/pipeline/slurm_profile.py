"""The SLURM profile (workflow/profiles/slurm/config.yaml), generated from the stage specs:

    python -m minirag.pipeline.slurm_profile > workflow/profiles/slurm/config.yaml

Each stage's `Size` (pipeline/stage.py) becomes its rule's line under `set-resources`, one thread
each under `set-threads`; the rules written out in workflow/rules/ (the report, downloads and
generated corpora, whose shape is their own) are sized here. A new stage is sized in its spec, and
tests/workflow/test_profiles.py fails until this file is regenerated.

What it leaves out: site settings (partition, account), which belong on the command line or in a
profile of the user's own.
"""

from __future__ import annotations

from .stage import Size
from .stages import STAGES

# The rules of workflow/rules/*.smk, sized by hand: no spec describes them.
OTHER_RULES = {
    "note_missing": Size(512, 1),
    "report": Size(),
    "download_beir": Size(1024, 60, "fetches and unpacks a BEIR zip (SciFact's is 3 MB, the largest are GBs)"),
    "synth_corpus": Size(2048, 30, "a generated corpus for scale runs is written in one job, as big as asked for"),
    "replicate_corpus": Size(2048, 30, "as synth_corpus"),
}

HEADER = """\
# Run the build on a SLURM cluster: each job is submitted with sbatch by
# snakemake-executor-plugin-slurm (pip install '.[slurm]'), from a login node whose file
# system the compute nodes share.
#
#   snakemake --profile workflow/profiles/slurm results/report.md
#
# Site settings go on the command line or in a profile of your own, e.g.
#   --default-resources slurm_partition=short slurm_account=myproj mem_mb=1024 runtime=10
# (without a partition the cluster's default one is used; without an account the plugin
# guesses one from your past jobs). bench/slurm_cluster.py runs the fixture build through
# this profile on a single-node cluster it starts on this machine (bench/README.md).
#
# Generated from the stage specs: python -m minirag.pipeline.slurm_profile > workflow/profiles/slurm/config.yaml
# (a stage's size is its spec's `size`, minirag/pipeline/stage.py); edit those, not this file.
executor: slurm
jobs: 100            # jobs queued or running at once
latency-wait: 60     # an output written on a node may take a while to show on the login node (NFS)

# A rule missing below gets these: the smallest request any rule has.
default-resources:
  mem_mb: 1024
  runtime: 10

# One CPU for every rule. Stages run numpy on one BLAS thread by design, and Snakemake
# exports OPENBLAS_NUM_THREADS={threads} to each job: more threads would not make a stage
# faster but would change the bi-encoder's weights (OpenBLAS sums in another order), so
# the build would no longer be byte-identical to a local one. Jobs run side by side instead
# (and, with `shards: N`, the chunk/embed/BM25 work of one corpus too).
"""

SIZES_NOTE = """
# Memory (MB) and wall time (minutes) per rule, from the Snakemake benchmark files of the
# real builds (KB, SciFact, Dify 200/2000: results/*/benchmarks/*.tsv), as printed by
#   python bench/rule_resources.py results --profile workflow/profiles/slurm/config.yaml
# mem_mb = 2 x the largest max_rss + 512 MB for the Snakemake process that runs the job in
# its allocation, at least 1024, rounded up to 256; runtime = 3 x the longest wall time, at
# least 10 minutes, rounded up to 5. Largest seen: embed (minilm on SciFact, 528 MB, 731 s),
# train_biencoder (331 MB, 284 s), train_reader (258 MB, 246 s); every other rule stayed
# under 220 MB and 20 s. A corpus much bigger than SciFact (5,183 documents) needs more for
# the rules that grow with it (embed, train_*, retrieve, bm25): raise them with
# --set-resources embed:mem_mb=4096 embed:runtime=120, or in a profile of your own.
"""


def sizes() -> dict[str, Size]:
    """Every rule of the workflow -> its size: the specs' in graph order, then the written-out rules."""
    return {**{spec.rule: spec.size for spec in STAGES}, **OTHER_RULES}


def render() -> str:
    by_rule = sizes()
    threads = "".join(f"  {rule}: 1\n" for rule in by_rule)
    resources = "".join(f"  {rule}: {{mem_mb: {s.mem_mb}, runtime: {s.runtime}}}" + (f"  # {s.why}" if s.why else "")
                        + "\n" for rule, s in by_rule.items())
    return f"{HEADER}set-threads:\n{threads}{SIZES_NOTE}set-resources:\n{resources}"


def main(argv: list[str] | None = None) -> None:
    import argparse
    argparse.ArgumentParser(prog="python -m minirag.pipeline.slurm_profile",
                            description="Print the SLURM profile the stage specs size "
                                        "(> workflow/profiles/slurm/config.yaml).").parse_args(argv)
    print(render(), end="")


if __name__ == "__main__":
    main()
