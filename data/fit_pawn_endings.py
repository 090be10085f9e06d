"""What a king is worth in a pawn ending: the fit behind ``PawnEndingKings.STEP``
(host/root_patterns.py).

    python data/fit_pawn_endings.py [--count 2500] [--seed 1] [--nodes 60000]

Needs Stockfish (``apt-get install stockfish``); nothing else runs it. Makes ``--count`` pawn
endings with real pawn structures — the pawns of a seeded position of ``quiet-moves.jsonl.gz``
(the games the piece-square fit uses), each pawn kept with probability 0.65 — and the two kings
and the side to move placed at random (legal, not over); scores each with Stockfish at
``--nodes`` (White's view, a mate as +-3000, clipped to +-1500 for the fit); and fits by least
squares the score on: the pawn difference; the kings' mean distance to the pawns, Black's
minus White's (the pattern's measure, in king steps); the passed pawns' ranks, White's minus
Black's; and the side to move (+1 White). Prints each fit's coefficients and residual, adding
one term at a time, so that what the kings' term explains is plain.
"""

import argparse
import gzip
import json
import random
import sys
from pathlib import Path

import chess
import chess.engine
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.peers import engine_command  # noqa: E402
from host.analysis import pawn_classes  # noqa: E402

TERMS = ("pawns", "kings' distance", "passers' ranks", "side to move")


def pawn_endings(count, rng):
    """Seeded pawn endings (``chess.Board``s) from the quiet-moves file's pawn structures."""
    rows = [json.loads(line)["epd"] for line in gzip.open(HERE / "quiet-moves.jsonl.gz", "rt")
            if line.startswith("{")]
    while count:
        source = chess.Board(rng.choice(rows) + " 0 1")
        board = chess.Board(None)
        for colour in chess.COLORS:
            for square in source.pieces(chess.PAWN, colour):
                if rng.random() < 0.65:
                    board.set_piece_at(square, chess.Piece(chess.PAWN, colour))
        free = [s for s in chess.SQUARES if board.piece_at(s) is None]
        for colour, square in zip(chess.COLORS, rng.sample(free, 2)):
            board.set_piece_at(square, chess.Piece(chess.KING, colour))
        board.turn = rng.choice(chess.COLORS)
        if board.is_valid() and not board.is_game_over() and board.pawns:
            count -= 1
            yield board


def features(board):
    """The fit's terms (:data:`TERMS`) of a pawn ending, White's view."""
    pawns = list(chess.scan_forward(board.pawns))

    def distance(colour):
        return sum(chess.square_distance(board.king(colour), p) for p in pawns) / len(pawns)

    def passers(colour):
        return sum(chess.square_rank(s) if colour == chess.WHITE else 7 - chess.square_rank(s)
                   for s in pawn_classes(board, colour).passed)

    return [len(board.pieces(chess.PAWN, chess.WHITE)) - len(board.pieces(chess.PAWN, chess.BLACK)),
            distance(chess.BLACK) - distance(chess.WHITE), passers(chess.WHITE) - passers(chess.BLACK),
            1 if board.turn == chess.WHITE else -1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=60_000)
    args = parser.parse_args(argv)
    engine = chess.engine.SimpleEngine.popen_uci(engine_command("stockfish"))
    engine.configure({"Threads": 1, "Hash": 32})
    rows, scores = [], []
    try:
        for board in pawn_endings(args.count, random.Random(args.seed)):
            info = engine.analyse(board, chess.engine.Limit(nodes=args.nodes))
            rows.append(features(board))
            scores.append(max(-1500, min(1500, info["score"].white().score(mate_score=3000))))
        name = engine.id.get("name")
    finally:
        engine.quit()
    x, y = np.array(rows, float), np.array(scores, float)
    print(f"{len(y)} pawn endings (seed {args.seed}), scored by {name} at {args.nodes} nodes")
    for used in range(1, len(TERMS) + 1):
        a = np.c_[x[:, :used], np.ones(len(y))]
        coefficients, *_ = np.linalg.lstsq(a, y, rcond=None)
        residual = np.sqrt(np.mean((y - a @ coefficients) ** 2))
        terms = ", ".join(f"{t} {c:.1f}" for t, c in zip(TERMS[:used], coefficients))
        print(f"  {terms}; constant {coefficients[-1]:.1f}; rms residual {residual:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
