"""A reader that closes the pipe early (`python -m minirag search ... | head -1`) ends the command
quietly: no `error: [Errno 32] Broken pipe` line, no traceback at the interpreter's exit."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# `search` stands in for any command with more output than the reader takes: its function is
# replaced by one that prints 100,000 lines, so nothing needs building.
PROGRAM = """
import sys
import minirag.cli as cli
def many_lines(args):
    for i in range(100_000):
        print(f"line {i}")
cli.cmd_search = many_lines
sys.exit(cli.main(["search", "anything"]))
"""


def run_and_close_after_one_line(program: str) -> tuple[int, str]:
    proc = subprocess.Popen([sys.executable, "-c", program], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after its line
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert first == "line 0\n"
    return proc.returncode, err


def test_a_closed_pipe_ends_the_command_without_an_error_line():
    code, err = run_and_close_after_one_line(PROGRAM)
    assert err == ""
    assert code == 141  # as a shell reports a program that SIGPIPE ended


def test_output_the_reader_takes_whole_is_unchanged():
    out = subprocess.run([sys.executable, "-c", PROGRAM.replace("100_000", "3")], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, "line 0\nline 1\nline 2\n", "")
