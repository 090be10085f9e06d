"""Make the seeded reference positions of this folder, or check them, with python-chess as the
oracle.

    python data/make_positions.py            # rewrite random-positions.epd and special-positions.epd
    python data/make_positions.py --check    # recompute every answer of every file; exit 1 on a difference

Each line is made from its own seed (the file's name, the global seed and the line's index), so
any one line can be made again alone and the files are the same on every machine and Python
version (``random.Random`` seeded by a string is deterministic). A line is
``FEN ; perft1 N ; perft2 N ; captures N ; check 0|1``: the legal moves, the leaves two plies
down, the legal captures (en passant included) and whether the side to move is in check.

``random-positions.epd``: positions of random legal games of 4 to 140 plies, where half the
plies pick among the captures, promotions, castlings and double pawn pushes when there are
any, so that captured material, promotions and en-passant squares are common. Finished games
(no legal move) are not kept.
``special-positions.epd``: for each of four kinds in turn (en passant, castling, promotion,
check) a position of a random game where that kind of move or state is there for the side to
move: a legal en-passant capture, a legal castling, a legal promotion, the king in check.
``perft-standard.epd`` holds the published perft counts of the six standard positions; this
script checks its first three depths.
"""

import argparse
import random
import sys
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sim.testing import python_chess_perft  # noqa: E402

HERE = Path(__file__).resolve().parent
SEED = 2026
RANDOM_COUNT = 2000
SPECIAL_PER_KIND = 100

__all__ = ["answers", "random_position", "special_position", "random_line", "special_line",
           "SPECIAL_KINDS", "check_file"]


def _lively(board, move):
    """A move that changes more than one square's worth of state."""
    return (board.is_capture(move) or move.promotion or board.is_castling(move)
            or (board.piece_type_at(move.from_square) == chess.PAWN
                and abs(move.to_square - move.from_square) == 16))


def _random_move(rng, board):
    moves = list(board.legal_moves)
    lively = [m for m in moves if _lively(board, m)]
    return rng.choice(lively if lively and rng.random() < 0.5 else moves)


def random_position(rng):
    """A position of a random game from the start (4 to 140 plies) with a legal move."""
    while True:
        board = chess.Board()
        for _ in range(rng.randint(4, 140)):
            if not any(board.legal_moves):
                break
            board.push(_random_move(rng, board))
        if any(board.legal_moves):
            return chess.Board(board.fen())


SPECIAL_KINDS = {
    "en passant": lambda b: b.has_legal_en_passant(),
    "castling": lambda b: any(b.is_castling(m) for m in b.legal_moves),
    "promotion": lambda b: any(m.promotion for m in b.legal_moves),
    "check": lambda b: b.is_check() and any(b.legal_moves),
}


def special_position(rng, kind):
    """The first position of a random game, past a random number of plies, that has ``kind``."""
    wanted = SPECIAL_KINDS[kind]
    while True:
        board, start = chess.Board(), rng.randint(4, 60)
        for ply in range(start + 200):
            if ply >= start and wanted(board):
                return chess.Board(board.fen())
            if not any(board.legal_moves):
                break
            board.push(_random_move(rng, board))


def answers(board):
    """The operations of a line: python-chess's answers for ``board``."""
    moves = list(board.legal_moves)
    perft2 = 0
    for move in moves:
        board.push(move)
        perft2 += board.legal_moves.count()
        board.pop()
    captures = sum(board.is_capture(m) for m in moves)
    return f"perft1 {len(moves)} ; perft2 {perft2} ; captures {captures} ; check {int(board.is_check())}"


def random_line(index, seed=SEED):
    board = random_position(random.Random(f"random-positions:{seed}:{index}"))
    return f"{board.fen()} ; {answers(board)}"


def special_line(index, seed=SEED):
    kind = list(SPECIAL_KINDS)[index // SPECIAL_PER_KIND]
    board = special_position(random.Random(f"special-positions:{seed}:{index}"), kind)
    return f"{board.fen()} ; {answers(board)}"


FILES = {
    "random-positions.epd": (random_line, RANDOM_COUNT),
    "special-positions.epd": (special_line, SPECIAL_PER_KIND * len(SPECIAL_KINDS)),
}


def check_file(path):
    """Every difference between a file's answers and python-chess's, as ``(line, text)``."""
    problems = []
    for number, text in enumerate(Path(path).read_text().splitlines(), 1):
        fen, _, rest = text.partition(";")
        board = chess.Board(fen.strip())
        ops = dict(op.split() for op in rest.split(";"))
        if "perft1" in ops:
            expected = answers(board)
            if rest.strip() != expected:
                problems.append((number, f"{rest.strip()} != {expected}"))
        for depth in (1, 2, 3):
            if f"D{depth}" in ops and python_chess_perft(board, depth) != int(ops[f"D{depth}"]):
                problems.append((number, f"D{depth} {ops[f'D{depth}']} != {python_chess_perft(board, depth)}"))
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="check every file's answers instead")
    args = parser.parse_args(argv)
    if args.check:
        failed = 0
        for name in ("perft-standard.epd", *FILES):
            problems = check_file(HERE / name)
            failed += len(problems)
            for number, text in problems:
                print(f"{name}:{number}: {text}")
            print(f"{name}: {'ok' if not problems else f'{len(problems)} differences'}")
        return 1 if failed else 0
    for name, (make_line, count) in FILES.items():
        lines = [make_line(index) for index in range(count)]
        (HERE / name).write_text("\n".join(lines) + "\n")
        print(f"{name}: {count} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
