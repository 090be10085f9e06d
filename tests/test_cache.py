"""The build cache: processes that need the same build at once (the suite's workers, benchmarks
side by side) build it once, the others waiting for it; each use marks an entry, and pruning
removes what was not used lately, never what another process holds. The builds' C++ compiler:
the one asked for, else clang++ where installed, each compiler's builds apart and alike."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.testing import reference_positions
from sim.verilator import REPO, build_lock

HOLDER = """
import sys, time
from pathlib import Path
from sim.verilator import build_lock
log = Path(sys.argv[2])
with build_lock(sys.argv[1]):
    log.write_text(log.read_text() + "held ")
    time.sleep(1.0)
    log.write_text(log.read_text() + "released ")
"""


def test_a_second_builder_waits_for_the_first(tmp_path):
    target, log = tmp_path / "build" / "harness-0123", tmp_path / "log"
    log.write_text("")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(target), str(log)], cwd=REPO)
    deadline = time.monotonic() + 30
    while "held" not in log.read_text():
        assert time.monotonic() < deadline and holder.poll() is None, "the first process never took the lock"
        time.sleep(0.02)
    with build_lock(target):            # waits until the first lets go
        log.write_text(log.read_text() + "second ")
    assert holder.wait(timeout=30) == 0
    assert log.read_text() == "held released second "
    with build_lock(target):            # free again at once, and reentered from the same process later
        pass


def _entry(path, age_days, now, size=10):
    """A cache entry at ``path`` (a directory when the name has no suffix) last used ``age_days`` ago."""
    import os
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix:
        path.write_bytes(b"x" * size)
    else:
        path.mkdir()
        (path / "Vboard").write_bytes(b"x" * size)
    os.utime(path, (now - age_days * 86400, now - age_days * 86400))
    return path


def test_prune_removes_what_was_not_used_lately_and_keeps_what_is_locked(tmp_path):
    from sim.cache import entries, prune
    now = time.time()
    old_build = _entry(tmp_path / "build" / "board-0123", 20, now)
    Path(f"{old_build}.lock").write_text("")
    held = _entry(tmp_path / "build" / "machine-4567", 30, now)
    recent = _entry(tmp_path / "verilog" / "board-89ab.v", 2, now)
    old_db = _entry(tmp_path / "chunker" / "abc-vs-fgh-cdef.db", 40, now, size=1000)
    dead_work = _entry(tmp_path / "board-x1y2", 3, now)
    assert {(e.kind, e.path.name, e.size) for e in entries(tmp_path)} == {
        ("build", "board-0123", 10), ("build", "machine-4567", 10), ("verilog", "board-89ab.v", 10),
        ("chunker", "abc-vs-fgh-cdef.db", 1000), ("work", "board-x1y2", 10)}
    with build_lock(held):                  # another process building or using it
        removed = prune(7, tmp_path, now=now)
    assert sorted(e.path.name for e in removed) == ["abc-vs-fgh-cdef.db", "board-0123"]
    assert not old_build.exists() and not Path(f"{old_build}.lock").exists() and not old_db.exists()
    assert held.exists() and recent.exists() and dead_work.exists()
    assert sorted(e.path.name for e in prune(1, tmp_path, now=now)) == ["board-89ab.v", "board-x1y2", "machine-4567"]
    assert entries(tmp_path) == []


def test_prune_keeps_what_was_used_within_the_hour_and_refuses_negative_days(tmp_path):
    import pytest

    from sim.cache import prune
    now = time.time()
    fresh = _entry(tmp_path / "build" / "board-0123", 0.01, now)
    assert prune(0, tmp_path, now=now) == [] and fresh.exists()
    with pytest.raises(ValueError):
        prune(-1, tmp_path, now=now)


def test_a_cached_verilog_is_marked_used_when_taken(tmp_path, monkeypatch):
    import os

    from sim.verilator import hdl_source_hash, verilog_for
    monkeypatch.setenv("SUPREM_CACHE", str(tmp_path))
    now = time.time()
    path = _entry(tmp_path / "verilog" / f"top-{hdl_source_hash(('link',))}.v", 10, now)

    def make_top():
        raise AssertionError("a cached Verilog is not made again")
    assert verilog_for("top", make_top, packages=("link",)) == path
    assert now - os.stat(path).st_mtime < 60


def test_the_compiler_is_the_one_asked_for_or_clang_where_installed(monkeypatch):
    """``$SUPREM_CXX`` if set (refused if not on the PATH), else clang++ if installed, else g++."""
    from sim import verilator
    installed = {"g++": "/usr/bin/g++", "clang++": "/usr/bin/clang++"}
    monkeypatch.setattr(verilator.shutil, "which", installed.get)
    monkeypatch.delenv("SUPREM_CXX", raising=False)
    assert verilator.cxx_compiler() == "clang++"
    monkeypatch.setenv("SUPREM_CXX", "g++")
    assert verilator.cxx_compiler() == "g++"
    monkeypatch.setenv("SUPREM_CXX", "icpx")
    with pytest.raises(RuntimeError, match="SUPREM_CXX names 'icpx', which is not on the PATH"):
        verilator.cxx_compiler()
    monkeypatch.delenv("SUPREM_CXX")
    del installed["clang++"]
    assert verilator.cxx_compiler() == "g++"
    del installed["g++"]
    with pytest.raises(RuntimeError, match="no C..? compiler"):
        verilator.cxx_compiler()


@pytest.mark.skipif(not (shutil.which("clang++") and shutil.which("g++")), reason="needs both g++ and clang++")
def test_gcc_and_clang_builds_simulate_the_same_generator(monkeypatch):
    """Both compilers' builds of the generator's harness, each cached under its own key, count
    the same leaves in the same cycles: perft 2 on the six standard positions."""
    from sim.movegen_sim import VerilatedMovegen, movegen_executable
    records = reference_positions("perft-standard.epd")
    answers, executables = [], set()
    for compiler in ("g++", "clang++"):
        monkeypatch.setenv("SUPREM_CXX", compiler)
        executable = movegen_executable(quiet=True)
        executables.add(executable)
        with VerilatedMovegen(executable=executable) as hw:
            answers.append([])
            for record in records:
                hw.set_position(record.board)
                answers[-1].append(hw.perft(2))
    assert len(executables) == 2
    assert answers[0] == answers[1]
    assert [leaves for leaves, _ in answers[0]] == [int(record.operations["D2"]) for record in records]
