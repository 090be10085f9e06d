"""The build cache's lock: processes that need the same build at once (the suite's workers,
benchmarks side by side) build it once, the others waiting for it."""

import subprocess
import sys
import time

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
