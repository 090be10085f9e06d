"""Test helpers: cocotb testbenches on Verilator, and the Amaranth simulator.

``run_cocotb`` turns an Amaranth top into Verilog (cached by HDL hash), builds it with cocotb's
Verilator runner once per distinct Verilog (cached by Verilog hash), and runs a cocotb test
module against it, returning each cocotb test's outcome.
``simulate`` runs async Amaranth testbenches on a component. ``reference_positions`` reads
the repository's reference positions (``data/``, described in its README); ``random_games``
makes seeded random positions for checks on positions no file holds.
"""

import hashlib
import os
import random
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from models.position import new_board, transfers

from .verilator import REPO, build_lock, cache_dir, mark_used, verilator_env, verilog_for

__all__ = ["DATA", "reference_positions", "run_cocotb", "simulate", "play_halfmoves", "random_games",
           "python_chess_perft"]

DATA = REPO / "data"
REFERENCE_FILES = ("perft-standard.epd", "random-positions.epd", "special-positions.epd")

# The testbenches reach the top-level ports only: cocotb's --public-flat-rw is turned back off
# for the submodules (every internal net public made the generator's build take many minutes).
COCOTB_BUILD_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "-O3", "--x-assign", "fast",
                     "--x-initial", "fast", "--no-public-flat-rw", "--public-depth", "1", "-CFLAGS", "-O1"]


def run_cocotb(name, make_top, test_module, test_dir, *, extra_env=None, testcase=None, packages=None):
    """Build ``make_top()`` as ``name``, run the cocotb ``test_module`` from ``test_dir``.

    Returns ``{test name: "pass" | "fail"}``.
    """
    from cocotb_tools.runner import get_runner
    verilog = verilog_for(name, make_top, packages=packages)
    import cocotb
    # The build's makefiles name cocotb's own sources by path: key on the installation too.
    digest = hashlib.sha256(verilog.read_bytes() + " ".join(COCOTB_BUILD_ARGS).encode()
                            + cocotb.__file__.encode() + cocotb.__version__.encode()).hexdigest()[:16]
    build_dir = cache_dir() / "cocotb" / f"{name}-{digest}"
    os.environ.update(verilator_env())
    runner = get_runner("verilator")
    if not (build_dir / name).exists():
        print(f"suprem: building {name} for cocotb (once; cached afterwards)...", file=sys.stderr)
    env = {"PYTHONPATH": os.pathsep.join([str(test_dir), str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.update(extra_env or {})
    with build_lock(build_dir):     # the build and its results file are one process's at a time
        # Verilator rewrites only the files that change, so on a cached build make has nothing to do.
        runner.build(sources=[verilog], hdl_toplevel=name, build_dir=build_dir,
                     build_args=COCOTB_BUILD_ARGS, timescale=("1ns", "1ps"))
        mark_used(build_dir)
        results = runner.test(test_module=test_module, hdl_toplevel=name, build_dir=build_dir,
                              test_dir=test_dir, extra_env=env, testcase=testcase,
                              timescale=("1ns", "1ps"))
        return _outcomes(Path(results))


def _outcomes(results_xml):
    """``{test name: "pass" | "fail"}`` from cocotb's results file."""
    tree = ElementTree.parse(results_xml)
    outcomes = {}
    for case in tree.iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        outcomes[case.get("name")] = "fail" if failed else "pass"
    return outcomes


def simulate(component, *testbenches, clocked=True, vcd=None, processes=()):
    """Run async testbenches (``async def tb(ctx)``) on ``component`` in the Amaranth simulator,
    with background ``processes`` (watchers) that run until the testbenches end."""
    from amaranth.sim import Simulator
    sim = Simulator(component)
    if clocked:
        sim.add_clock(1e-8)
    for testbench in testbenches:
        sim.add_testbench(testbench)
    for process in processes:
        sim.add_process(process)
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()


async def play_halfmoves(ctx, port, halfmoves, pairs=False):
    """Offer ``halfmoves`` back to back on a halfmove stream ``port`` (of ``HalfmovePair``) in an
    async testbench, two a transfer with ``pairs``; returns after the clock edge that takes
    the last one."""
    ctx.set(port.valid, 1)
    for bits in transfers(halfmoves, pairs):
        ctx.set(port.payload.as_value(), bits)
        while not ctx.get(port.ready):
            await ctx.tick()
        await ctx.tick()
    ctx.set(port.valid, 0)


def reference_positions(name, limit=None):
    """The first ``limit`` (all by default) positions of ``data/<name>`` as
    :class:`~host.epd.EpdRecord`; a missing file or a line that does not read is an error that
    names it, never an empty list."""
    from host.epd import EpdRecord, read_positions
    path = DATA / name
    try:
        text = path.read_text()
    except OSError as error:
        raise FileNotFoundError(f"reference positions {path} cannot be read ({error.strerror}); "
                                f"they are part of the repository: restore data/") from None
    records = list(read_positions(text.splitlines()))
    bad = [r for r in records if not isinstance(r, EpdRecord)]
    if bad or not records:
        raise ValueError(f"{path}: {len(bad)} unreadable lines ({bad[:2]})" if bad else f"{path} holds no position")
    return records[:limit]


def random_games(seed, count, plies, start=None, variant="chess"):
    """``count`` positions of seeded random games of ``variant`` (``models.position.VARIANTS``):
    from ``start`` (a FEN; the variant's initial position by default), a number of random legal
    moves drawn from ``plies`` (a range), fewer where a game ends."""
    rng, games = random.Random(seed), []
    for _ in range(count):
        game = new_board(variant, start)
        for _ in range(rng.choice(plies)):
            moves = list(game.legal_moves)
            if not moves:
                break
            game.push(rng.choice(moves))
        games.append(game)
    return games


def python_chess_perft(board, depth):
    """python-chess's perft: the leaves ``depth`` plies down from ``board`` (any variant's board:
    its legal moves), the last ply counted without making its moves."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total
