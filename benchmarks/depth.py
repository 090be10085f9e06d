"""Nodes and hardware cycles to complete a depth, with the search's features on and off.

    python -m benchmarks.depth [--depth D] [--positions N] [--features SET ...] [--root host] [--check]

Each of N positions (the seeded choice ``benchmarks.search`` makes from the random and special
files) is searched by iterative deepening on the Verilated machine — depths 1 to D, the
transposition table cleared before depth 1 and kept between depths, as the host drives it —
once per feature set (``all``, ``none``, ``-lmr``...: ``SearchFeatures.parse``). For each set:
the nodes and cycles of all iterations together, and the ratio of nodes to the first set's.
With ``--check`` every search is compared with the reference search too (value, best move,
nodes, principal variation: slow, the reference runs in Python). With ``--root host`` the
host's root loop (host/root.py) searches each root move as a job of its own, every iteration.
"""

import argparse
import sys
import time

from hdl.eval.tables import FULL
from hdl.search.features import SearchFeatures
from host.root import RootLoop
from sim.machine_sim import VerilatedMachine
from sim.search_check import TABLE_SETS, SearchPair, root_jobs, table_store

from .search import search_positions


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tables", choices=TABLE_SETS, default="patterns")
    parser.add_argument("--features", action="append", type=SearchFeatures.parse,
                        help="a feature set (repeatable; default: none, then all)")
    parser.add_argument("--check", action="store_true", help="compare every search with the reference")
    parser.add_argument("--root", choices=("board", "host"), default="board",
                        help="who searches the root: the board, or the host's root loop (host/root.py)")
    args = parser.parse_args(argv)
    sets = args.features or [SearchFeatures.none(), SearchFeatures()]
    chosen = search_positions(args.positions, args.seed)
    store = table_store(FULL, args.tables)
    wrong, totals = 0, []
    with VerilatedMachine(FULL) as hw:
        pair = SearchPair(hw, store)

        def search(board, depth, **window):
            nonlocal wrong
            if not args.check:
                return pair.search(board, depth, **window)
            result, _, diffs = pair.compare(board, depth, **window)
            if diffs:
                wrong += 1
                print(f"MISMATCH {board.fen()}: {'; '.join(diffs)}")
            return result

        for features in sets:
            nodes = cycles = 0
            start = time.perf_counter()
            for board in chosen:
                if args.root == "host":
                    more = _root_loop(search, board, args.depth, features)
                    nodes, cycles = nodes + more[0], cycles + more[1]
                    continue
                for depth in range(1, args.depth + 1):
                    result = search(board, depth, clear_table=depth == 1, features=features)
                    nodes += result.nodes
                    cycles += result.cycles
            totals.append(nodes)
            print(f"features {features}, root {args.root}: depth {args.depth} on {args.positions} positions: "
                  f"{nodes:,} nodes, "
                  f"{cycles:,} cycles ({cycles / nodes:.2f} per node), {nodes / totals[0]:.3f} x the first set's "
                  f"nodes, {cycles / 1e6 / max(1, args.positions):.2f} M cycles per position "
                  f"(wall {time.perf_counter() - start:.0f} s)", flush=True)
    if args.check:
        print(f"{wrong} mismatches")
    return 1 if wrong else 0


def _root_loop(search, board, max_depth, features):
    """Iterative deepening to ``max_depth`` by the host's root loop, each root move's job run by
    ``search`` (the table cleared before the first): ``(nodes, cycles)``."""
    loop, job = RootLoop(list(board.legal_moves)), root_jobs(search, board, features=features)
    nodes = cycles = 0
    for depth in range(1, max_depth + 1):
        result = loop.iterate(job, depth)
        nodes, cycles = nodes + result.nodes, cycles + result.cycles
    return nodes, cycles


if __name__ == "__main__":
    sys.exit(main())
