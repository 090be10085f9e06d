"""CHUNKER's reasoning schemas: a position's result from its chunks' library values, without search.

Each schema is a sufficient condition, proved below from the libraries' meaning (host/chunker/
chunks.py), and checked against the exact database on every position it classifies (tests and
``suprem chunker --check``). A schema answers the winner (``chess.WHITE`` or ``chess.BLACK``),
``DRAWN`` or ``None`` (it cannot tell).
"""

import functools

import chess

from .chunks import ATTACKER, DEFENDER, Chunk, library
from .database import open_database
from .domain import DRAW, INVALID, Domain, is_win, plies

__all__ = ["DRAWN", "race", "supported", "SCHEMAS", "classify", "fastest"]

DRAWN = "draw"


def _codes(domain, board, colour):
    """``(files, codes)`` of ``colour``'s pawns."""
    return domain.white_files if colour == chess.WHITE else domain.black_files, domain.codes(board, colour)


def fastest(codes):
    """The fewest moves any of these pawns needs to promote unopposed (``None`` with no pawn)."""
    steps = [7 - code - (code == 1) for code in codes if code]
    return min(steps) if steps else None


def _squares(colour, files, codes, beside=False, here=False):
    """The squares on the ranks ahead of ``colour``'s pawns (and their own ranks too with
    ``here``): on their own files (where they will stand), or with ``beside`` on the files
    beside them (where they will attack)."""
    bb = 0
    for file, code in zip(files, codes):
        if not code:
            continue
        rank = chess.square_rank(Domain.pawn_square(colour, file, code))
        ranks = range(rank + (not here), 8) if colour == chess.WHITE else range(rank + here)
        for f in (file - 1, file + 1) if beside else (file,):
            if 0 <= f < 8:
                for r in ranks:
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
        if chess.BB_SQUARES[king] & (_squares(colour, files, codes)
                                     | _squares(not colour, other_files, other_codes, beside=True)):
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


@functools.cache
def _alone(domain, colour, passing):
    """The domain of ``colour``'s king and pawns against the other king alone (which may pass with
    ``passing``): made once, asked at every node."""
    files = domain.white_files if colour == chess.WHITE else domain.black_files
    return Domain(files, (), passing) if colour == chess.WHITE else Domain((), files, passing)


def supported(domain, board):
    """Level 2: one side's king and pawns (the paper's K3CPPvK) win against the other king,
    within the moves the other side's pawns need at the least, the king keeping to its area.

    The library is the exact database of ``colour``'s king and pawns against the other king
    alone, which may pass whenever it is not in check and has a move (its pawns' moves elsewhere)
    and otherwise may be stalemated (a draw), and of each won state the *king area*: the squares
    ``colour``'s king stands on in one winning strategy, over every defence. ``colour`` wins if
    the library wins in ``W`` of its moves with ``W <= R`` (``colour`` to move; ``W < R`` with
    the other side to move), ``R`` the other side's fastest unopposed pawn, and no square of the
    area is one the other side's pawns stand on or attack now or after any move of theirs.
    Sound: the strategy's king never meets those pawns (never in check, never stopped by one),
    the real defender's king has the library's moves or fewer, its other moves are passes, and
    no pawn of it promotes before move ``R``."""
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        if not any(codes):
            continue
        other_files, other_codes = _codes(domain, board, not colour)
        alone = _alone(domain, colour, True)
        library_board = board.copy(stack=False)
        for square in board.pieces(chess.PAWN, not colour):
            library_board.remove_piece_at(square)
        db = open_database(alone, quiet=True)
        index = alone.index(library_board)
        value = db.value_at(index)
        if value == DRAW or value == INVALID or is_win(value) != (board.turn == colour):
            continue
        moves = (plies(value) + 1) // 2
        others = fastest(other_codes)
        if others is not None and moves > others - (board.turn != colour):
            continue
        if db.area_at(index) & (_squares(not colour, other_files, other_codes, here=True)
                                | _squares(not colour, other_files, other_codes, beside=True)):
            continue
        return colour
    return None


def alone(domain, board):
    """Level 3: one side's pawns are all gone — the library of the other side's king and pawns
    against the bare king (the paper's K3CPPvK) gives the result exactly, draws included.

    That library is the exact database of the domain with the one side's files only (no
    passing: the bare king has nothing else to move), and such a position is one of its own."""
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        _, other_codes = _codes(domain, board, not colour)
        if any(other_codes) or not any(codes):
            continue
        value = open_database(_alone(domain, colour, False), quiet=True).value(board)
        return DRAWN if value == DRAW else board.turn if is_win(value) else not board.turn
    return None


#: The schemas by level.
SCHEMAS = {1: race, 2: supported, 3: alone}


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
