import gc
import os
import sys

# One BLAS thread, as a Snakemake job with one thread has (Snakemake sets these to the job's
# threads): a query's vector then comes out bit-identical to the one the retrieve stage wrote
# in the run file (OpenBLAS picks different kernels for one thread and for several), and a
# query's small matrix products gain nothing from a second thread. Set before numpy loads;
# a variable the user set wins.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")


def started_for_this_command() -> bool:
    """Whether the interpreter was started as `python [options] -m minirag ...`, not this module run
    inside another program (the tests' runpy), whose collector must be left as it was."""
    argv = getattr(sys, "orig_argv", [])
    return "-m" in argv and argv[argv.index("-m") + 1:argv.index("-m") + 2] == ["minirag"]


# A command runs once and keeps nearly all it allocates to its end (the modules, the artifacts it
# loads): the cyclic garbage collector's passes over them were a tenth of a cold `answer`. Off for
# the command's run; `serve`, which runs for days, turns it back on (cli.py), and it is on again
# when main returns (the module can be run inside another process, as the tests do).
gc.disable()
try:
    from .cli import main  # noqa: E402

    code = main()
finally:
    gc.enable()
if started_for_this_command():
    # The interpreter exits next, and its last collection walks every object still alive (~20 ms
    # after an answer); frozen, they are freed as usual, without that walk.
    gc.freeze()
sys.exit(code)
