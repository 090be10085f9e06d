"""The simulated board's search speed in wall time, beside sunfish's, measured in one run.

    python -m benchmarks.simspeed [--depth D] [--positions N] [--generator legal|lean]

Each position — the README's (`suprem analyze`'s example), then N - 1 of the search
benchmarks' seeded choice — is analysed on a simulated board as ``suprem analyze FEN --depth
D`` analyses it: the Oracle's root knowledge, iterative deepening from an empty table, all the
search's features. The wall time counted is the analysis's alone: a first analysis to depth 1
has downloaded the position's tables already (on a real board the link carries them; here the
simulated link runs at the simulation's speed). Then sunfish (PyPI, pinned in
``requirements-peers.txt``) searches each position for as many nodes as the machine took
(``go nodes``), timed the same way. Both run on this machine, one after the other, so their
ratio is the figure: each engine's nodes per second of wall time, and the machine's share of
sunfish's. Cycles come from the simulation, so the machine's hardware speed is printed too.
``--generator lean``: the simulated board of the smaller build (the ULX3S-85F's generator).
"""

import argparse
import sys
import time

import chess
import chess.engine

from benchmarks import BOARD_CLOCK_MHZ
from host.driver import Limits, SearchDriver
from sim.board_sim import open_machine

from .peers import open_engine
from .search import search_positions

README_FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--generator", choices=("legal", "lean"), default="legal",
                        help="the simulated board's move generator (legal)")
    args = parser.parse_args(argv)
    boards = [chess.Board(README_FEN)] + search_positions(max(0, args.positions - 1))
    runs = []       # (fen, nodes, cycles, wall seconds)
    with open_machine(None, legal_moves=args.generator == "legal") as hw:
        driver = SearchDriver(hw)
        for board in boards:
            driver.analyse(board, Limits(depth=1), new_table=True)       # the tables go down first
            start = time.perf_counter()
            iterations = driver.analyse(board, Limits(depth=args.depth), new_table=True)
            wall = time.perf_counter() - start
            nodes = iterations[-1].total_nodes
            cycles = iterations[-1].total_cycles
            runs.append((board.fen(), nodes, cycles, wall))
            print(f"suprem  {nodes:9,} nodes {wall:7.2f} s {nodes / wall:9,.0f} nodes/s  {board.fen()}", flush=True)
    sunfish = open_engine("sunfish", python=None)        # on CPython, as pip installs it for users
    sunfish_nodes = sunfish_wall = 0
    try:
        for fen, nodes, _, _ in runs:
            board = chess.Board(fen)
            start = time.perf_counter()
            info = sunfish.analyse(board, chess.engine.Limit(nodes=nodes))
            wall = time.perf_counter() - start
            searched = info.get("nodes", nodes)
            sunfish_nodes, sunfish_wall = sunfish_nodes + searched, sunfish_wall + wall
            print(f"sunfish {searched:9,} nodes {wall:7.2f} s {searched / wall:9,.0f} nodes/s  {fen}", flush=True)
    finally:
        sunfish.quit()
    nodes, cycles, wall = (sum(run[i] for run in runs) for i in (1, 2, 3))
    print(f"simulated board: {nodes:,} nodes in {wall:.1f} s of wall time: {nodes / wall:,.0f} nodes/s, "
          f"{cycles / wall:,.0f} cycles/s ({cycles / nodes:.1f} cycles per node: "
          f"{BOARD_CLOCK_MHZ * 1e6 * nodes / cycles:,.0f} nodes/s of hardware time at {BOARD_CLOCK_MHZ} MHz)")
    print(f"sunfish: {sunfish_nodes:,} nodes in {sunfish_wall:.1f} s: {sunfish_nodes / sunfish_wall:,.0f} nodes/s")
    print(f"the simulated board searches {(nodes / wall) / (sunfish_nodes / sunfish_wall):.2f} x sunfish's "
          f"nodes per second of wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
