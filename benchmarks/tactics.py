"""Tactical test positions at fixed node budgets: how many each engine solves.

    python -m benchmarks.tactics [--file data/tactics-dev.epd] [--nodes 10000,100000]
                                 [--engines suprem,sunfish,stockfish] [--features SET]
                                 [--root board|host] [--knowledge phase|root|material]

A position is solved when the engine's move, after a search of the budget (``go nodes``), is
one of the position's ``bm`` moves (or none of its ``am`` moves). Every engine runs on the same
positions and budgets in the same run; the machine on a simulated board (the same node counts
as on a real one), with the search features ``--features`` chooses (``all``, ``-singular``...:
the UCI check options); ``--root`` says who searches the root (the board, or the host's root
loop: the UCI option ``RootLoop``) and ``--knowledge`` the Oracle's knowledge. Printed: a line
per position and budget, then the solved counts.
"""

import argparse
import sys

import chess
import chess.engine

from hdl.search.features import SearchFeatures
from host.epd import EpdRecord, read_positions
from host.oracle import KNOWLEDGE
from sim.testing import DATA

from .peers import ENGINES, ROOTS, machine_options, open_engine


def _moves(board, text):
    return {board.parse_san(san) for san in text.replace(",", " ").split()} if text else set()


def solved(board, operations, move):
    """Whether ``move`` solves the position: one of its ``bm``, or none of its ``am``."""
    best, avoid = _moves(board, operations.get("bm")), _moves(board, operations.get("am"))
    return move in best if best else move not in avoid


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(DATA / "tactics-dev.epd"))
    parser.add_argument("--nodes", default="10000,100000", help="budgets, comma-separated")
    parser.add_argument("--engines", default="suprem,sunfish,stockfish")
    parser.add_argument("--features", type=SearchFeatures.parse, default=SearchFeatures(),
                        help="the machine's search features (all)")
    parser.add_argument("--root", choices=ROOTS, help="who searches the machine's root (the engine's default)")
    parser.add_argument("--knowledge", choices=KNOWLEDGE, help="the machine's Oracle knowledge (the default)")
    args = parser.parse_args(argv)
    budgets = [int(n) for n in args.nodes.split(",")]
    names = args.engines.split(",")
    for name in names:
        if name not in ENGINES:
            parser.error(f"no engine {name} (there are {', '.join(ENGINES)})")
    with open(args.file) as f:
        records = [r for r in read_positions(f.read().splitlines()) if isinstance(r, EpdRecord)]
    counts = {(name, nodes): 0 for name in names for nodes in budgets}
    for name in names:
        engine = open_engine(name)
        if name == "suprem":
            engine.configure(machine_options(args.features, args.root, args.knowledge))
        try:
            for record in records:
                for nodes in budgets:
                    result = engine.play(record.board, chess.engine.Limit(nodes=nodes), game=object())
                    ok = solved(record.board, record.operations, result.move)
                    counts[name, nodes] += ok
                    label = str(record.operations.get("id", record.line)).strip('"')
                    played = record.board.san(result.move) if result.move else "-"
                    print(f"{name:9} {nodes:>7} nodes  {label}: {played} {'solved' if ok else 'not solved'}",
                          flush=True)
        finally:
            engine.quit()
    print(f"{len(records)} positions of {args.file}")
    for nodes in budgets:
        print(f"{nodes:>7} nodes per position: " + ", ".join(f"{name} {counts[name, nodes]}" for name in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
