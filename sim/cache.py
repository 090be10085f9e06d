"""The build cache (``~/.cache/suprem``, or ``$SUPREM_CACHE``): what it holds, and what has not
been used lately, to prune.

Every build is cached under a name that hashes its inputs (``sim.verilator``): the Verilog of
a top, a Verilated harness, a cocotb build, a CHUNKER database. A change of the sources makes
new entries and leaves the old ones behind, so the cache only grows (2.6 GB after one day of
the project's development on one machine, BENCHMARKS.md 2026-11-29). Each use of an entry sets its modification time
(``sim.verilator.mark_used``), so an entry's age is the time since it was last used, and
:func:`prune` removes the entries older than a number of days. An entry another process holds
the lock of (it is being built, or a cocotb test runs in it) is left alone.
"""

import contextlib
import fcntl
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from .verilator import cache_dir

__all__ = ["KINDS", "WORK", "Entry", "entries", "prune"]

#: The cache's parts: the subdirectory of each kind of build.
KINDS = {"verilog": "the Verilog of each top (Amaranth's output)",
         "build": "Verilated native harnesses (sim/harness)",
         "cocotb": "cocotb testbench builds",
         "chunker": "CHUNKER's exact databases and level 9's tempo libraries"}
#: The kind of a build's work directory left in the cache's root by a process that died.
WORK = "work"

_DAY = 86400.0
#: Whatever the days asked, an entry used within the last hour stays: a build in progress writes
#: in its work directory, which the lock of the entry it will become does not cover.
_MIN_AGE_DAYS = 1 / 24


@dataclass(frozen=True)
class Entry:
    """One cached build: its ``kind`` (a key of :data:`KINDS`, or :data:`WORK`), ``path``, size in bytes and the
    time of its last use (seconds since the epoch)."""

    kind: str
    path: Path
    size: int
    last_used: float

    def age_days(self, now=None):
        return ((time.time() if now is None else now) - self.last_used) / _DAY


def _size(path):
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return path.stat().st_size


def entries(root=None):
    """The cache's entries, kind by kind (lock files are not entries; a build's unfinished work
    directory left in the cache's root by a process that died is one, of kind :data:`WORK`)."""
    root = Path(root) if root is not None else cache_dir()
    found = []
    for kind in KINDS:
        folder = root / kind
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix == ".lock":
                continue
            with contextlib.suppress(FileNotFoundError):        # another process may remove it
                found.append(Entry(kind, path, _size(path), path.stat().st_mtime))
    for path in sorted(root.iterdir()):
        if path.is_dir() and path.name not in KINDS:
            with contextlib.suppress(FileNotFoundError):
                found.append(Entry(WORK, path, _size(path), path.stat().st_mtime))
    return found


def prune(days, root=None, now=None):
    """Remove the entries not used for ``days`` days (and their lock files); returns those
    removed. An entry whose lock another process holds is kept, and so is one used within the
    last hour."""
    if days < 0:
        raise ValueError(f"days must be 0 or more, not {days}")
    removed = []
    for entry in entries(root):
        if entry.age_days(now) < max(days, _MIN_AGE_DAYS):
            continue
        lock = Path(f"{entry.path}.lock")
        with open(lock, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue                                        # in use: being built, or a test runs in it
            if entry.path.is_dir():
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                entry.path.unlink(missing_ok=True)
            lock.unlink(missing_ok=True)
        removed.append(entry)
    return removed
