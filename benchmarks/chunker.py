"""CHUNKER on its test positions: results against the exact database, nodes per level.

    python -m benchmarks.chunker [--file data/chunker-positions.epd] [--nodes N] [--depth D]
                                 [--levels 1,...] [--classes longest,won,...]
    python -m benchmarks.chunker --play N [--seed S] [--nodes N]
    python -m benchmarks.chunker --proofs N [--seed S] [--nodes N] [--levels 1,...]
    python -m benchmarks.chunker --along ID [--plies 20,18,...] [--nodes N] [--levels 1,...]

For each position: CHUNKER's result (``host/chunker/search.py``, all schemas or ``--levels``),
the depth it was proved at, its nodes by what decided them (like Table 4-1 of Campbell and
Berliner, "Using chunking to solve chess pawn endgames", 1984: interior nodes, the horizon, the
table, the game's ends and each schema level), its seconds, and the database's value: a result
that disagrees with the database is marked WRONG (and the script fails); one not proved within
the budget is "unknown". Then the totals per class.

With ``--play N``: ``N`` seeded won positions of the domain (a win of at least 9 plies for the
side to move, both sides with pawns) that CHUNKER proves within the engine's hand-off budget
(``CHUNKER_NODES``, or ``--nodes``, and ``CHUNKER_LEVELS``), each played out as the hand-off plays it against the
exact database's longest defence (``host.chunker.check.play_out``): how many end in the safe
promotion, in a draw by the rules (repetition, fifty moves) or with the proof lost, and the plies
played against the database's.

With ``--proofs N``: how many of ``N`` such seeded won positions (proved or not) CHUNKER proves
within the hand-off's budget, with the hand-off's levels or ``--levels``, and in how many nodes
and seconds: what a change of the schemas or the search does for the engine's hand-off.

With ``--along ID``: the shipped position ``ID``'s line in the exact database (the loser
resisting longest), solved from each of ``--plies`` (its positions that many plies on): how far
back along the longest wins the search reaches within the budget, the database's value, CHUNKER's
result, depth, nodes, level 10's games opened (each a table, built unless cached) and seconds.
"""

import argparse
import collections
import functools
import itertools
import random
import sys
import time

import chess

from host.chunker.check import play_out
from host.chunker.database import open_database
from host.chunker.domain import LOSS, PAPER, describe, is_win, plies
from host.chunker.schemas import joint_games_open
from host.chunker.search import solve
from host.driver import CHUNKER_LEVELS, CHUNKER_NODES
from sim.testing import DATA
from sim.verification import checked_positions


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(DATA / "chunker-positions.epd"))
    parser.add_argument("--nodes", type=int, help="the node budget per position (500000; with --play the "
                                                  f"hand-off's, {CHUNKER_NODES})")
    parser.add_argument("--depth", type=int, default=80)
    parser.add_argument("--levels", help="the schema levels to use (all); empty for none")
    parser.add_argument("--classes", help="only these classes (c0), comma-separated")
    parser.add_argument("--play", type=int, metavar="N", help="play out N seeded proved wins instead")
    parser.add_argument("--proofs", type=int, metavar="N", help="count the proofs of N seeded wins instead")
    parser.add_argument("--seed", type=int, default=1, help="with --play or --proofs: the positions' seed (1)")
    parser.add_argument("--along", metavar="ID", help="solve the database's line of the shipped position ID instead")
    parser.add_argument("--plies", default="20,18,16,14,12,10,8,6,4,2,0",
                        help="with --along: the plies of the line to solve from (20,18,...,0)")
    args = parser.parse_args(argv)
    levels = None if args.levels is None else [int(level) for level in args.levels.split(",") if level]
    if args.along is not None:
        return _along(args.file, args.along, [int(ply) for ply in args.plies.split(",")], args.nodes or 500_000,
                      args.depth, levels)
    if args.play is not None:
        return _play(args.play, args.seed, args.nodes or CHUNKER_NODES)
    if args.proofs is not None:
        return _proofs(args.proofs, args.seed, args.nodes or CHUNKER_NODES,
                       CHUNKER_LEVELS if levels is None else levels)
    args.nodes = args.nodes or 500_000
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


def _along(file, ident, plies_on, nodes, depth, levels):
    records, _ = checked_positions(file)
    found = [record.board for record in records if record.operations.get("id", "").strip('"') == ident]
    if not found:
        raise SystemExit(f"no position {ident!r} in {file}")
    db = open_database(PAPER)
    line, board = [found[0].copy(stack=False)], found[0].copy()
    for move in db.line(board):
        board.push(move)
        line.append(board.copy(stack=False))
    print(f"{'ply':>3} {'position':45} {'database':12} {'CHUNKER':8} {'depth':>5} {'nodes':>9} {'games':>5} {'s':>6}")
    for ply in plies_on:
        if not 0 <= ply < len(line):
            raise SystemExit(f"ply {ply}: the line has plies 0 to {len(line) - 1}")
        board, opened, start = line[ply], joint_games_open(), time.monotonic()
        solution = solve(board, PAPER, max_depth=depth, max_nodes=nodes, levels=levels,
                         progress=functools.partial(_searched, ply, start, opened))
        verdict = {None: "unknown", 1: "win", -1: "loss", 0: "draw"}[solution.value]
        print(f"{ply:3} {board.fen():45} {describe(db.value(board)):12} {verdict:8} {solution.depth:5} "
              f"{solution.total:9,} {joint_games_open() - opened:5} {time.monotonic() - start:6.1f}", flush=True)
    return 0


def _searched(ply, start, opened, depth, nodes):
    """A long search's progress, on standard error: each depth searched without a proof."""
    print(f"  ply {ply}: depth {depth} searched, {nodes:,} nodes, {joint_games_open() - opened:,} games, "
          f"{time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)


def _won_positions(db, seed):
    """Seeded won positions of the domain, without end: ``(board, value)``, a win of at least 9
    plies for the side to move, both sides with pawns."""
    rng = random.Random(seed)
    while True:
        index = rng.randrange(PAPER.size)
        value = db.value_at(index)
        if not 9 <= value < LOSS:
            continue
        board = PAPER.board(index)
        if all(any(PAPER.codes(board, colour)) for colour in chess.COLORS):
            yield board, value


def _proofs(count, seed, nodes, levels):
    db = open_database(PAPER)
    proved = total = 0
    start = time.monotonic()
    for board, _ in itertools.islice(_won_positions(db, seed), count):
        solution = solve(board, PAPER, max_nodes=nodes, levels=levels)
        proved += solution.value == 1
        total += solution.total
    print(f"{proved} of {count} seeded wins (seed {seed}) proved within {nodes:,} nodes, levels "
          f"{','.join(map(str, levels))}: {total:,} nodes, {time.monotonic() - start:.0f} s")
    return 0


def _play(count, seed, nodes):
    db = open_database(PAPER)
    endings, lengths, start = collections.Counter(), [], time.monotonic()
    print(f"{'position':45} {'database':12} {'ending':10} {'plies':>5}")
    for board, value in _won_positions(db, seed):
        if sum(endings.values()) >= count:
            break
        if solve(board, PAPER, max_nodes=nodes, levels=CHUNKER_LEVELS).value != 1:
            continue
        ending, length = play_out(db, board, nodes, CHUNKER_LEVELS)
        endings[ending] += 1
        if ending == "won":
            lengths.append((length, plies(value)))
        print(f"{board.fen():45} {describe(value):12} {ending:10} {length:5}", flush=True)
    played, best = sum(length for length, _ in lengths), sum(best for _, best in lengths)
    print(f"\n{count} proved wins (seed {seed}, {nodes:,} nodes a proof): " +
          ", ".join(f"{n} {ending}" for ending, n in endings.most_common()) +
          (f"; the won ones in {played:,} plies against the database's {best:,} ({played / best:.2f} x)"
           if lengths else "") + f"; {time.monotonic() - start:.0f} s")
    return 0 if endings["won"] == count else 1


if __name__ == "__main__":
    sys.exit(main())
