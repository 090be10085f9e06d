"""Pawn endings of CHUNKER's domain: the machine's move against the exact database.

    python -m benchmarks.endings [--count 100] [--seed 1] [--nodes 10000] [--without-chunk-race]

Positions drawn (seeded) from CHUNKER's domain (``host/chunker``: both kings, White's passed
pawns on a-c, Black's on f-h, the first safe promotion wins) where the side to move wins or
draws, both sides have pawns, no schema of levels 1-3 decides it, and not every move keeps that
value — so the move can be wrong. The machine searches each (a simulated board, the Oracle's
root knowledge, ``--nodes`` a move, a fresh table, CHUNKER's hand-off off: the board's search
and evaluation alone), and its move *keeps* the value if the exact database says so (a won
position stays won: the other side is lost after the move, or the move promotes safely; a drawn
one is not lost). Printed: the positions kept, won and drawn apart, and the nodes.
``--without-chunk-race`` leaves the chunk race (``host.root_patterns.ChunkRace``) out of the
Oracle's knowledge, so that its worth is the difference between two runs. The database is
built on first use (about 90 s; cached).
"""

import argparse
import random
import sys

import chess

from host.chunker.database import open_database
from host.chunker.domain import DRAW, INVALID, PAPER, is_loss, is_win
from host.chunker.schemas import classify
from host.driver import Limits, SearchDriver
from host.oracle import Oracle
from host.pattern_weights import WEIGHTS
from sim.board_sim import open_machine

__all__ = ["sample_positions", "keeps_value"]

#: The schema levels whose positions the sample leaves out (a schema decides them): those of the
#: figures in BENCHMARKS.md (2026-11-27). Levels 4 and 5 came later; asking them too would draw
#: other positions.
SAMPLED_LEVELS = (1, 2, 3)


def keeps_value(db, board, move):
    """Whether ``move`` keeps ``board``'s value in ``db`` (the exact database of a CHUNKER
    domain: a win stays a win, a draw a draw), by the domain's rules: a safe promotion wins; an
    unsafe one is taken, the same side to move."""
    before = db.value(board)
    if move.promotion:                  # the domain promotes to a queen; any piece promotes as safely
        move = chess.Move(move.from_square, move.to_square, chess.QUEEN)
    outcome = dict(db.domain.children(board))[move]
    if outcome == "win":
        return True
    plies, after = outcome
    value = db.value(after)
    if plies == 2:                      # the promotion taken: the mover is to move again
        return is_win(value) if is_win(before) else not is_loss(value)
    return is_loss(value) if is_win(before) else not is_win(value)


def sample_positions(db, count, seed):
    """``count`` seeded positions of ``db``'s domain, won or drawn for the side to move, both
    sides with pawns, no schema of :data:`SAMPLED_LEVELS` deciding them, and a move that would not
    keep the value."""
    domain, rng = db.domain, random.Random(seed)
    found = []
    while len(found) < count:
        index = rng.randrange(domain.size)
        value = db.value_at(index)
        if value == INVALID or is_loss(value):
            continue
        board = domain.board(index)
        if not (board.pieces(chess.PAWN, chess.WHITE) and board.pieces(chess.PAWN, chess.BLACK)):
            continue
        if classify(domain, board, SAMPLED_LEVELS)[0] is not None:
            continue
        moves = [move for move, _ in domain.children(board)]
        if len(moves) < 2 or all(keeps_value(db, board, move) for move in moves):
            continue
        found.append(board)
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--without-chunk-race", action="store_true")
    args = parser.parse_args(argv)
    db = open_database(PAPER)
    boards = sample_positions(db, args.count, args.seed)
    kept = {"win": [0, 0], "draw": [0, 0]}
    nodes = 0
    with open_machine(None) as hw:
        driver = SearchDriver(hw)
        driver.chunker = False
        if args.without_chunk_race:
            driver.oracle = Oracle(hw.eval_params, "root", weights={**WEIGHTS, "chunk-race": 0})
        for board in boards:
            iterations = driver.analyse(board, Limits(nodes=args.nodes), new_table=True)
            move = iterations[-1].pv[0]
            nodes += iterations[-1].total_nodes
            kind = "draw" if db.value(board) == DRAW else "win"
            ok = keeps_value(db, board, move)
            kept[kind][0] += ok
            kept[kind][1] += 1
            print(f"{board.fen():60} {kind:4} {board.san(move):6} {'kept' if ok else 'LOST'}", flush=True)
    total = sum(k for k, _ in kept.values())
    print(f"kept the value in {total} of {len(boards)} (won: {kept['win'][0]} of {kept['win'][1]}, drawn: "
          f"{kept['draw'][0]} of {kept['draw'][1]}); {nodes:,} nodes; chunk race "
          f"{'left out' if args.without_chunk_race else 'in'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
