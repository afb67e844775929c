"""The fault matrix's cases, one module per group (faults.py runs them):

documents, questions, config   input files a user writes, each field and shape misused
artifacts                      built files truncated, bit-flipped, replaced, deleted, and forged
                               with their hashes rewritten in every receipt (NaN, Inf, wrong
                               dtype or shape, malformed runs)
processes                      SIGTERM and SIGKILL during each long stage; resume == clean build
filesystem                     full disk, unwritable HOME and TMPDIR, symlinks, FIFOs
history                        results/history.jsonl cut short, filled, special, nested; diff misused
cli, http                      the command line and the HTTP service, misused
openai                         the `openai` reader against local misbehaving servers
injection                      shell and path injection through every config value that reaches a rule
"""

from importlib import import_module

GROUPS = ("documents", "questions", "config", "artifacts", "processes", "filesystem", "history", "cli", "http",
          "openai", "injection")


def all_cases() -> list:
    return [case for group in GROUPS for case in import_module(f"fault_cases.{group}").cases()]
