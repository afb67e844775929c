"""One module per stage of the graph; each is what one Snakemake rule runs, and declares that rule.

`python -m minirag.stages.<stage> --settings JSON --<input> PATH ... --out PATH`: a stage
reads its inputs, calls the library, and writes its outputs atomically. A module holds its
function and, as `STAGES`, its spec (pipeline/stage.py: its jobs, reads, settings, the
artifact kinds it makes, its size) with the graph queries only it asks; a module serving
several rules (curate and curate_shard) declares each. The specs are found by
pipeline/stages/, which imports every module here at each dry run: a module imports its
heavy libraries (pandas, matplotlib) inside its function. Each module imports only what
its stage uses, so the rule that lists its files as inputs reruns when, and only when,
code the stage executes changes.

Stages run numpy on one BLAS thread (set here, before any stage imports numpy): at these
sizes it is as fast on shared cores, Snakemake runs jobs side by side instead, and the
bi-encoder's weights are byte-identical only for a fixed thread count. A variable the
user sets wins.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
