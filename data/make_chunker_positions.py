"""CHUNKER's test positions, chosen from the exact database: ``chunker-positions.epd``.

    python data/make_chunker_positions.py [--seed 2026] [--per-class 8] [--out data/chunker-positions.epd]

The paper names Averbakh's positions 535-547 but gives no diagrams, so the test set comes from
the exact database of the domain (``host/chunker/database.py``, built on first use; NumPy to
scan it), in four classes, each line an EPD with ``id``, ``c0`` the class and ``c1`` the
database's value for the side to move (``win in N``, ``loss in N`` plies, ``draw``):

- ``longest``: the positions with the longest forced wins of the domain (both sides to move:
  the winner to move, and the loser), at most one per pawn configuration;
- ``won``, ``lost``, ``drawn``: a seeded uniform sample of the valid positions of each result,
  and ``deep won`` / ``deep lost``: the same among results 20 plies or more away;
- ``natural move loses``: a won position where pushing the most advanced pawn one square (the
  racing move, like the paper's b3 in no. 547) loses; ``c2`` names that move.

Seeded: the same database gives the same file.
"""

import argparse
import random
import sys
from pathlib import Path

import chess

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from host.chunker.database import BLOCK, Database, open_database  # noqa: E402
from host.chunker.domain import DRAW, INVALID, PAPER, describe, is_loss, is_win, plies  # noqa: E402

DEEP = 20


def scan(db):
    """``(longest, by_class)``: ``longest`` the indices of the longest decisive values (one per
    pawn configuration, the longest first), ``by_class`` a reservoir of indices per class."""
    import numpy as np

    best = []                                   # (plies, index) per configuration
    for config in range(db.domain.configs):
        block = np.frombuffer(db.block(config), dtype=np.uint8)
        decisive = (block != INVALID) & (block != DRAW)
        if not decisive.any():
            continue
        distance = np.where(block >= 128, block.astype(int) - 128, block.astype(int))
        distance[~decisive] = -1
        place = int(np.argmax(distance))
        best.append((int(distance[place]), config * BLOCK + place))
    best.sort(key=lambda item: (-item[0], item[1]))
    return [index for _, index in best]


def sample(db, rng, wanted, count, tries=20_000_000):
    """``count`` indices drawn uniformly among the valid positions whose value ``wanted`` accepts."""
    found = []
    for _ in range(tries):
        index = rng.randrange(db.domain.size)
        value = db.value_at(index)
        if value != INVALID and wanted(value) and index not in found:
            found.append(index)
            if len(found) == count:
                break
    return found


def natural_move(board):
    """The push of the side to move's most advanced pawn one square, if it can move."""
    pawns = sorted(board.pieces(chess.PAWN, board.turn),
                   key=lambda sq: -chess.square_rank(sq) if board.turn == chess.WHITE else chess.square_rank(sq))
    for square in pawns[:1]:
        target = square + (8 if board.turn == chess.WHITE else -8)
        for move in board.legal_moves:
            if move.from_square == square and move.to_square == target and move.promotion in (None, chess.QUEEN):
                return move
    return None


def natural_losses(db, rng, count):
    found = []
    while len(found) < count:
        index = rng.randrange(db.domain.size)
        value = db.value_at(index)
        if not is_win(value) or plies(value) < 9:
            continue
        board = db.domain.board(index)
        move = natural_move(board)
        if move is None:
            continue
        outcome = dict(db.domain.children(board)).get(move)
        if outcome is None or outcome == "win":
            continue
        after = db.value(outcome[1])
        loses = is_win(after) if outcome[0] == 1 else is_loss(after)
        if loses:
            found.append((index, board.san(move)))
    return found


def line(db, index, number, kind, note=None):
    board = db.domain.board(index)
    text = f'{board.epd()} id "CH.{number:03d}"; c0 "{kind}"; c1 "{describe(db.value_at(index))}";'
    return text + (f' c2 "{note}";' if note else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--per-class", type=int, default=8)
    parser.add_argument("--out", default=str(HERE / "chunker-positions.epd"))
    args = parser.parse_args(argv)
    db: Database = open_database(PAPER)
    rng = random.Random(args.seed)
    lines = []

    def add(indices, kind):
        for index in indices:
            lines.append(line(db, index, len(lines) + 1, kind))

    add(scan(db)[:args.per_class], "longest")
    add(sample(db, rng, is_win, args.per_class), "won")
    add(sample(db, rng, is_loss, args.per_class), "lost")
    add(sample(db, rng, lambda v: v == DRAW, args.per_class), "drawn")
    add(sample(db, rng, lambda v: is_win(v) and plies(v) >= DEEP, args.per_class), "deep won")
    add(sample(db, rng, lambda v: is_loss(v) and plies(v) >= DEEP, args.per_class), "deep lost")
    for index, san in natural_losses(db, rng, args.per_class):
        lines.append(line(db, index, len(lines) + 1, "natural move loses", f"{san} loses"))
    header = (f"# CHUNKER test positions of {PAPER.name()}, made by data/make_chunker_positions.py "
              f"--seed {args.seed} --per-class {args.per_class} from the exact database (values for the side to move)")
    Path(args.out).write_text("\n".join([header, *lines]) + "\n")
    print(f"{len(lines)} positions written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
