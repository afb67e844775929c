# One rule per stage spec (each module of minirag/stages/ declares its own; minirag/pipeline/stages/
# finds them): inputs, outputs, log, benchmark, params and command line all derived from the spec.
# `python -m minirag.pipeline.stages` prints the table.
from minirag.pipeline.stages import STAGES

for spec in STAGES:
    this = SpecRule(spec)

    rule:
        name:
            spec.rule
        input:
            unpack(this.inputs),
            code=this.code if spec.job_code else code(spec.runs),
        output:
            **this.outputs(),
        log:
            str(L.log(spec.job, spec.per)),
        benchmark:
            str(L.benchmark(spec.job, spec.per))
        wildcard_constraints:
            **this.constraints(),
        conda:
            "../envs/minirag.yaml"
        params:
            module=spec.runs,
            argv=this.argv,
        shell:
            "python -m {params.module} {params.argv} 2> {log:q}"
