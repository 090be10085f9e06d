"""Where the search's cycles go: cycles spent at each microinstruction, from the Amaranth
simulation of the whole machine.

    python -m benchmarks.microprofile [--fen FEN] [--depth D] [--tables SET] [--features SET]

The machine (SMALL evaluator, so that the Python simulator is bearable) searches one position
with the named table set and search features (all by default); every cycle of the job is
charged to the microinstruction executing in it (a stalled one is charged again each cycle it
waits). The table lists each microinstruction of the listing with its cycles, their share,
cycles per node, how often it was entered (a cycle whose micro-address differs from the
cycle's before; a microinstruction that jumps to itself counts once) and the cycles of an
entry, so a microprogrammer sees which waits and which steps a change should shorten. The
search's node count and value are checked against the reference search first.

The Python simulator runs a few hundred machine cycles per second: depth 2 or 3 from a quiet
position takes a minute or two.
"""

import argparse
import sys
from collections import Counter

import chess

from hdl.eval.tables import SMALL, TableKind, TableWrite
from hdl.search.controller import Job
from hdl.search.features import SearchFeatures
from hdl.search.frame import INFINITY
from hdl.search.microcode import program
from hdl.top import Machine
from models.position import setup_halfmoves
from models.search import ReferenceSearch
from sim.search_check import TABLE_SETS, table_store
from sim.testing import play_halfmoves, simulate

__all__ = ["profile"]


def _writes(store):
    """The download writes of a table store, skipping entries that are zero (memories start
    zeroed)."""
    for (unit, kind), entries in store.tables.items():
        for index, value in enumerate(entries):
            if value:
                yield {"address": {"index": index, "table": TableKind(kind), "unit": unit},
                       "data": value & 0xFFFFFF}


def profile(board, depth, store, params=SMALL, features=None):
    """``(cycles per micro-address Counter, entries per micro-address Counter, nodes, cycles,
    score)`` of the machine's search of ``depth`` plies from ``board`` with ``store`` downloaded
    and ``features`` on (all if None)."""
    features = SearchFeatures() if features is None else features
    machine = Machine(eval_params=params, max_ply=16, hash_bits=8)
    spent, entered = Counter(), Counter()
    outcome = {}

    async def testbench(ctx):
        await ctx.tick()
        ctx.set(machine.write.valid, 1)
        for write in _writes(store):
            ctx.set(machine.write.payload, TableWrite.const(write))
            await ctx.tick().until(machine.write.ready)
        ctx.set(machine.write.valid, 0)
        await play_halfmoves(ctx, machine.setup, setup_halfmoves(board))
        ctx.set(machine.side_in.valid, 1)
        ctx.set(machine.side_in.payload, 0 if board.turn else 1)
        await ctx.tick()
        ctx.set(machine.side_in.valid, 0)
        ctx.set(machine.history_clear, 1)
        await ctx.tick()
        ctx.set(machine.history_clear, 0)
        job = machine.job
        ctx.set(job.start.payload, {"job": Job.SEARCH, "depth": depth, "alpha": -INFINITY, "beta": INFINITY,
                                    "features": features.fields()})
        ctx.set(job.start.valid, 1)
        await ctx.tick()
        ctx.set(job.start.valid, 0)
        trail = []                      # the micro-address of each cycle the job is busy
        while ctx.get(job.busy):
            trail.append(ctx.get(machine.micro_address))
            await ctx.tick()
        outcome.update(nodes=ctx.get(job.count), cycles=ctx.get(job.cycles), score=ctx.get(job.score))
        # the job's counter counts the cycles after the search's first microinstruction clears it
        charged = trail[len(trail) - outcome["cycles"]:]
        spent.update(charged)
        entered.update(address for i, address in enumerate(charged) if i == 0 or charged[i - 1] != address)

    simulate(machine, testbench)
    return spent, entered, outcome["nodes"], outcome["cycles"], outcome["score"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fen", default="r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--tables", choices=TABLE_SETS, default="material")
    parser.add_argument("--features", type=SearchFeatures.parse, default=SearchFeatures(),
                        help="the search's features: all (default), none, names, or -name")
    args = parser.parse_args(argv)
    board = chess.Board(args.fen)
    store = table_store(SMALL, args.tables)
    expected = ReferenceSearch(SMALL, store, max_ply=16, hash_bits=8).search(board, args.depth, features=args.features)
    spent, entered, nodes, cycles, score = profile(board, args.depth, store, features=args.features)
    if (nodes, score) != (expected.nodes, expected.score):
        print(f"MISMATCH on {board.fen()}: hardware {nodes} nodes, value {score}; "
              f"reference {expected.nodes} nodes, value {expected.score}", file=sys.stderr)
        return 1
    p = program()
    listing = {int(line.split()[0]): line for line in p.listing().splitlines()}
    print(f"{board.fen()} depth {args.depth}, {args.tables} tables, features {args.features}: {nodes} nodes, "
          f"{cycles} cycles, "
          f"{cycles / nodes:.1f} cycles per node\n")
    print("| cycles | share | per node | entries | cycles per entry | microinstruction |")
    print("|---|---|---|---|---|---|")
    for address, count in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"| {count} | {100 * count / cycles:.1f} % | {count / nodes:.2f} | {entered[address]} | "
              f"{count / entered[address]:.2f} | `{listing.get(address, address)}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
