"""Which code a benchmark ran: the commit of the checkout its modules were imported from.

A run's figures belong to the code that produced them. That code is the checkout Python imported
``hdl``, ``host`` and ``models`` from — with ``python -m`` the current directory, whatever
``PYTHONPATH`` says (the current directory comes first on ``sys.path``) — so it is read from where
the modules are, never from the current directory or the environment. The machine's engine
(``suprem uci``) is started in that same checkout (``benchmarks.peers``).
"""

import functools
import subprocess
from pathlib import Path

import hdl

__all__ = ["ROOT", "code_version", "code_line"]

#: The checkout (or installed tree) the project's modules were imported from.
ROOT = Path(hdl.__file__).resolve().parent.parent

#: What decides the machine's play and the benchmarks' measure: a change here is a change of code.
_CODE = ("hdl", "host", "models", "sim", "fpga", "data", "benchmarks", ":(exclude)benchmarks/results")


@functools.cache
def code_version():
    """The short commit of :data:`ROOT` (``"a6bdc70"``), with ``+changes`` where its code differs
    from that commit (uncommitted changes to the code, not to results), or ``"unknown"`` outside
    a git checkout."""
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30)

    try:
        commit = git("rev-parse", "--short", "HEAD")
        if commit.returncode != 0:
            return "unknown"
        changes = git("status", "--porcelain", "--untracked-files=no", "--", *_CODE)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return commit.stdout.strip() + ("+changes" if changes.stdout.strip() else "")


def code_line():
    """The line a benchmark prints with the machine's figures: which code made them."""
    return f"SUPREM's code: {code_version()}"
