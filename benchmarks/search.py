"""The hardware search on the Verilated machine: cycles per node, projected nodes/s, and the
search's efficiency against the minimal tree.

    python -m benchmarks.search [--positions N] [--depth D] [--tables SET] [--features SET] [--fmax MHZ]
                                [--variant antichess] [--victims most-valuable|least-valuable]
                                [--generator legal|lean]

N positions (a seeded choice from the random and special files) are searched at depth D with
an empty transposition table, and every result is checked against the reference search
(value, best move, nodes), with the search's features ``--features`` (all by default; ``none``
is plain alpha-beta). Cycles per node is total cycles / total nodes. ``--generator lean``:
the machine of the smaller build, whose generator leaves pins to the search (the same nodes,
a few more cycles).

``--variant antichess``: N positions of seeded random antichess games instead, searched as the
host searches antichess (``host/antichess.py``: its capture order, the features of
``--features``, the antichess table unless ``--tables`` says otherwise). ``--victims`` sets the
generator's capture order instead of the host's choice.

Efficiency: the nodes of the search divided by the nodes of the same search with perfect move
ordering — the reference search again, its table holding the best move of every node of the
first search and giving only moves (no cutoffs), so that each node tries its best move first.
Quiescence and extensions are in both counts. Hitech measured 1.4 against the minimal tree.
"""

import argparse
import random
import sys
import time

from benchmarks import BOARD_CLOCK_MHZ
from hdl.eval.tables import FULL
from hdl.movegen.layouts import VictimOrder
from hdl.search.features import SearchFeatures
from host.antichess import victim_order
from models.search import ReferenceSearch, TranspositionTable
from sim.machine_sim import VerilatedMachine
from sim.search_check import TABLE_SETS, SearchPair, table_store
from sim.testing import random_games, reference_positions


class _MovesOnly(TranspositionTable):
    """A table whose entries give moves but never decide a node."""

    def probe(self, key):
        entry = super().probe(key)
        if entry is None:
            return None
        from dataclasses import replace
        return replace(entry, depth=-1)


def _ordered_nodes(reference, board, depth, features=None, victim_order=VictimOrder.MOST_VALUABLE):
    """Nodes of the search when every node's best move (from a first search) comes first."""
    reference.search(board, depth, features=features, victim_order=victim_order)
    first = reference.table
    ordered = _MovesOnly(first.index_bits)
    ordered.entries = dict(first.entries)
    reference.table = ordered
    return reference.search(board, depth, clear_table=False, features=features, victim_order=victim_order).nodes


def search_positions(count, seed=1, variant="chess"):
    """The search benchmarks' positions (python-chess boards): a seeded choice from the random and
    special files; antichess: positions of seeded random games that are not over."""
    if variant == "antichess":
        games = random_games(seed, 3 * count, range(2, 60), variant=variant)
        return [game for game in games if not game.is_game_over()][:count]
    records = reference_positions("random-positions.epd") + reference_positions("special-positions.epd")
    return [record.board for record in random.Random(seed).sample(records, count)]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--tables", choices=TABLE_SETS, help="the evaluator's tables (patterns; antichess's)")
    parser.add_argument("--variant", choices=("chess", "antichess"), default="chess")
    parser.add_argument("--victims", choices=("most-valuable", "least-valuable"),
                        help="the generator's capture order (the host's choice for the variant)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--generator", choices=("legal", "lean"), default="legal",
                        help="the machine's move generator (legal)")
    parser.add_argument("--features", type=SearchFeatures.parse, default=SearchFeatures(),
                        help="the search's features: all (default), none, names, or -name")
    parser.add_argument("--fmax", type=float, default=BOARD_CLOCK_MHZ,
                        help=f"MHz for the projection ({BOARD_CLOCK_MHZ}: the ULX3S-85F build's core clock)")
    args = parser.parse_args(argv)
    chosen = search_positions(args.positions, args.seed, args.variant)
    args.tables = args.tables or ("antichess" if args.variant == "antichess" else "patterns")
    store = table_store(FULL, args.tables)
    nodes = cycles = ordered = wrong = 0
    start = time.perf_counter()
    with VerilatedMachine(FULL, legal_moves=args.generator == "legal") as hw:
        pair = SearchPair(hw, store)
        for board in chosen:
            features, order = args.features, victim_order(board)
            if args.victims:
                order = VictimOrder.LEAST_VALUABLE if args.victims == "least-valuable" else VictimOrder.MOST_VALUABLE
            hw_result, _, diffs = pair.compare(board, args.depth, features=features, victim_order=order)
            if diffs:
                wrong += 1
                print(f"MISMATCH {board.fen()}: {'; '.join(diffs)}")
            nodes += hw_result.nodes
            cycles += hw_result.cycles
            ordered += _ordered_nodes(ReferenceSearch(FULL, store), board, args.depth, features, order)
    wall = time.perf_counter() - start
    print(f"{len(chosen)} {args.variant} positions, depth {args.depth}, {args.tables} tables, features "
          f"{args.features}, victims {args.victims or 'as the host'}: {wrong} mismatches")
    print(f"nodes {nodes:,}, cycles {cycles:,}: {cycles / nodes:.2f} cycles per node; "
          f"{args.fmax * 1e6 * nodes / cycles:,.0f} nodes/s at {args.fmax} MHz")
    print(f"efficiency: {nodes / ordered:.2f} x the nodes of the best-move-first search ({ordered:,})")
    print(f"wall {wall:.0f} s (hardware and reference searches, this machine)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
