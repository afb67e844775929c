"""One module per stage of the graph; each is what one Snakemake rule runs.

`python -m minirag.stages.<stage> --settings JSON --<input> PATH ... --out PATH`: a stage
reads its inputs, calls the library, and writes its outputs atomically. Each module
imports only what its stage uses, so the rule that lists its files as inputs reruns when,
and only when, code the stage executes changes.

Stages run numpy on one BLAS thread (set here, before any stage imports numpy): at these
sizes it is as fast on shared cores, Snakemake runs jobs side by side instead, and the
bi-encoder's weights are byte-identical only for a fixed thread count. A variable the
user sets wins.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
