"""CHUNKER on its test positions: results against the exact database, nodes per level.

    python -m benchmarks.chunker [--file data/chunker-positions.epd] [--nodes N] [--depth D]
                                 [--levels 1,...] [--classes longest,won,...]

For each position: CHUNKER's result (``host/chunker/search.py``, all schemas or ``--levels``),
the depth it was proved at, its nodes by what decided them (like Table 4-1 of Campbell and
Berliner, "Using chunking to solve chess pawn endgames", 1984: interior nodes, the horizon, the
table, the game's ends and each schema level), its seconds, and the database's value: a result
that disagrees with the database is marked WRONG (and the script fails); one not proved within
the budget is "unknown". Then the totals per class.
"""

import argparse
import collections
import sys
import time

from host.chunker.database import open_database
from host.chunker.domain import PAPER, describe, is_win
from host.chunker.search import solve
from sim.testing import DATA
from sim.verification import checked_positions


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(DATA / "chunker-positions.epd"))
    parser.add_argument("--nodes", type=int, default=500_000, help="the node budget per position (500000)")
    parser.add_argument("--depth", type=int, default=80)
    parser.add_argument("--levels", help="the schema levels to use (all); empty for none")
    parser.add_argument("--classes", help="only these classes (c0), comma-separated")
    args = parser.parse_args(argv)
    levels = None if args.levels is None else [int(level) for level in args.levels.split(",") if level]
    classes = None if args.classes is None else set(args.classes.split(","))
    records, _ = checked_positions(args.file)
    db = open_database(PAPER)
    totals = collections.defaultdict(collections.Counter)
    wrong = 0
    print(f"{'id':8} {'class':20} {'database':12} {'CHUNKER':8} {'depth':>5} {'nodes':>9} {'s':>6}  by kind")
    for record in records:
        kind, ident = (record.operations.get(op, "").strip('"') for op in ("c0", "id"))
        if classes and kind not in classes:
            continue
        board = record.board
        value = db.value(board)
        truth = 0 if value == 0 else 1 if is_win(value) else -1
        start = time.monotonic()
        solution = solve(board, PAPER, max_depth=args.depth, max_nodes=args.nodes, levels=levels)
        seconds = time.monotonic() - start
        verdict = {None: "unknown", 1: "win", -1: "loss", 0: "draw"}[solution.value]
        if solution.value is not None and solution.value != truth:
            verdict, wrong = "WRONG", wrong + 1
        totals[kind]["positions"] += 1
        totals[kind]["solved"] += solution.value == truth
        totals[kind]["nodes"] += solution.total
        for name, count in solution.nodes.items():
            totals[kind][name] += count
        details = ", ".join(f"{name} {count}" for name, count in sorted(solution.nodes.items()))
        print(f"{ident:8} {kind:20} {describe(value):12} {verdict:8} {solution.depth:5} "
              f"{solution.total:9,} {seconds:6.1f}  {details}", flush=True)
    print()
    for kind, counts in totals.items():
        rest = ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items())
                         if name not in ("positions", "solved", "nodes"))
        print(f"{kind}: {counts['solved']}/{counts['positions']} solved, {counts['nodes']:,} nodes ({rest})")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
