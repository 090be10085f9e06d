"""CHUNKER's reasoning schemas: a position's result from its chunks' library values, without search.

Each schema is a sufficient condition, proved below from the libraries' meaning (host/chunker/
chunks.py), and checked against the exact database on every position it classifies (tests and
``suprem chunker --check``). A schema answers the winner (``chess.WHITE`` or ``chess.BLACK``),
``DRAWN`` or ``None`` (it cannot tell).
"""

import chess

from .chunks import ATTACKER, DEFENDER, Chunk, library

__all__ = ["DRAWN", "race", "SCHEMAS", "classify"]

DRAWN = "draw"


def _codes(domain, board, colour):
    files = domain.white_files if colour == chess.WHITE else domain.black_files
    codes = []
    for file in files:
        pawns = [sq for sq in board.pieces(chess.PAWN, colour) if chess.square_file(sq) == file]
        rank = chess.square_rank(pawns[0]) if pawns else None
        codes.append(0 if rank is None else rank if colour == chess.WHITE else 7 - rank)
    return files, codes


def fastest(codes):
    """The fewest moves any of these pawns needs to promote unopposed (``None`` with no pawn)."""
    steps = [7 - code - (code == 1) for code in codes if code]
    return min(steps) if steps else None


def _paths(colour, files, codes):
    """The squares ahead of ``colour``'s pawns on their files, up to the last rank."""
    bb = 0
    for file, code in zip(files, codes):
        if code:
            rank = code if colour == chess.WHITE else 7 - code
            ahead = range(rank + 1, 8) if colour == chess.WHITE else range(rank)
            for r in ahead:
                bb |= chess.BB_SQUARES[chess.square(file, r)]
    return bb


def _reach(colour, files, codes):
    """Every square ``colour``'s pawns attack now or after any of their moves."""
    bb = 0
    for file, code in zip(files, codes):
        if code:
            rank = code if colour == chess.WHITE else 7 - code
            ranks = range(rank + 1, 8) if colour == chess.WHITE else range(rank)
            for r in ranks:
                for f in (file - 1, file + 1):
                    if 0 <= f < 8:
                        bb |= chess.BB_SQUARES[chess.square(f, r)]
    return bb


def race(domain, board):
    """Level 1: one side's pawns outrun the other's, its king standing still.

    ``colour`` wins if its pawns promote, against the other king alone, within the moves the
    other side's pawns need at the least: the chunk's ``KCP`` distance (the defender may pass)
    counts ``colour``'s moves ``W``, the other side's fastest unopposed pawn its moves ``R``, and
    ``W <= R`` with ``colour`` to move (``W < R`` with the other side to move). Sound when
    ``colour``'s king stands off its pawns' paths and off every square the other pawns will ever
    attack: then ``colour`` only pushes pawns (the library's moves, no pass needed), its king is
    never checked and never blocks; the real defender has the library's king moves or fewer (it
    may not stand next to the other king nor take a pawn that king defends), and whatever else it
    does is a pass the library allows or a pawn move that cannot promote before move ``R``; more
    defenders only make a promotion safer."""
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        other_files, other_codes = _codes(domain, board, not colour)
        king = board.king(colour)
        if chess.BB_SQUARES[king] & (_paths(colour, files, codes) | _reach(not colour, other_files, other_codes)):
            continue
        chunk = Chunk(colour, files)
        turn = ATTACKER if board.turn == colour else DEFENDER
        plies = library(colour, tuple(files), "KCP")[(chunk.encode(codes) * 64 + board.king(not colour)) * 2 + turn]
        if plies is None:
            continue
        moves = (plies + 1) // 2
        others = fastest(other_codes)
        if others is None or moves <= others - (turn == DEFENDER):
            return colour
    return None


#: The schemas by level.
SCHEMAS = {1: race}


def classify(domain, board, levels=None):
    """``(level, result)`` of the first schema that classifies ``board``, or ``(None, None)``;
    ``levels`` (an iterable of levels) limits the schemas asked (all by default)."""
    for level, schema in SCHEMAS.items():
        if levels is not None and level not in levels:
            continue
        result = schema(domain, board)
        if result is not None:
            return level, result
    return None, None
