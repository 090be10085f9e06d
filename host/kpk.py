"""King and pawn against king, exactly: the root's moves judged by a database of the ending.

The database is CHUNKER's (``host/chunker``) for the domain of one pawn on one file against a
bare king (``Domain(white_files=(file,), black_files=())``, built by its retrograde solver on
first use, about two seconds, and cached): every position's value for the side to move, a win or
loss with its distance in plies, or a draw. Its rule is the paper's: the side that promotes
safely (its new piece not taken at once) wins. In chess a safe promotion wins too, unless it
stalemates; so a promotion that stalemates is never chosen here (a queen's is replaced by a
rook's where that does not stalemate), and ``tests/test_kpk.py`` checks that every won
position with the pawn's side to move has a winning move that is no stalemating promotion:
the database's wins and draws are those of chess. A position with Black's pawn is read
colour-flipped (``chess.Board.mirror``), a pawn on the e- to h-files on its own file's database.

:func:`judge` gives the root's value and its best moves: the wins in the fewest plies, the
draws, or the losses in the most; :func:`line` the winner's line to its safe promotion;
:func:`winning_capture` the capture that wins fastest by leaving king and pawn against king.
"""

import functools
from typing import NamedTuple

import chess

from .chunker import place
from .chunker.database import open_database
from .chunker.domain import DRAW, Domain, capture_of, is_win, plies

__all__ = ["Judgement", "is_kpk", "judge", "line", "winning_capture", "domain_of"]

#: The longest line :func:`line` follows (the ending's longest win is far shorter).
MAX_LINE = 128


class Judgement(NamedTuple):
    """The root's value for the side to move (1 win, 0 draw, -1 loss), in how many plies (the
    pawn's side promotes safely; 0 for a draw), and the moves that keep it best: the fewest
    plies to a win, the most to a loss, every move that holds a draw."""

    value: int
    plies: int
    moves: tuple


def is_kpk(board):
    """Whether ``board`` is king and pawn against king (either side's pawn)."""
    return chess.popcount(board.occupied) == 3 and chess.popcount(board.pawns) == 1


@functools.cache
def domain_of(file):
    """The database's domain of a White pawn on ``file`` (0 = a), mirrored onto files a-d."""
    return Domain(white_files=(min(file, 7 - file),), black_files=())


def _as_white(board):
    """``board`` with the pawn White's: itself, or colour-flipped (moves flip back by
    ``_flip``)."""
    pawn_white = bool(board.pawns & board.occupied_co[chess.WHITE])
    return (board.copy(stack=False), False) if pawn_white else (board.mirror(), True)


def _flip(move):
    return chess.Move(chess.square_mirror(move.from_square), chess.square_mirror(move.to_square), move.promotion)


def _value(board):
    """The database's value byte of a position with White's pawn (the side to move's view)."""
    domain = domain_of(chess.square_file(chess.lsb(board.pawns)))
    inside, _ = place(board, domain)            # mirrored left to right for a pawn on e-h
    return open_database(domain, quiet=True).value(inside)


def _outcomes(board):
    """Each legal move of ``board`` (White's pawn) with its value for the side to move, as
    ``(move, value, plies)``: a safe promotion that does not stalemate wins in 1 (a queen's, or a
    rook's where the queen's stalemates; a promotion that stalemates draws), a move that takes
    the pawn or leaves it to be taken draws, any other the database's value of the position
    after, seen from this side."""
    found = []
    for move in board.legal_moves:
        if move.promotion not in (None, chess.QUEEN):
            continue
        after = board.copy(stack=False)
        after.push(move)
        if move.promotion:
            taken = capture_of(after, move.to_square) is not None
            if not taken and after.is_stalemate():
                rook = chess.Move(move.from_square, move.to_square, chess.ROOK)
                after = board.copy(stack=False)
                after.push(rook)
                move = rook
            if taken or after.is_stalemate():
                found.append((move, 0, 0))
            else:
                found.append((move, 1, 1))
            continue
        if not after.pawns or not any(after.legal_moves):
            found.append((move, 0, 0))          # the pawn taken, or a stalemate
            continue
        value = _value(after)
        if value == DRAW:
            found.append((move, 0, 0))
        else:
            found.append((move, -1 if is_win(value) else 1, plies(value) + 1))
    return found


def judge(board):
    """The :class:`Judgement` of ``board`` (king and pawn against king, the side to move with
    a legal move; raises ValueError otherwise)."""
    if not is_kpk(board):
        raise ValueError(f"not king and pawn against king: {board.fen()}")
    inside, flipped = _as_white(board)
    outcomes = _outcomes(inside)
    if not outcomes:
        raise ValueError(f"no legal move: {board.fen()}")
    value = max(v for _, v, _ in outcomes)
    kept = [(move, n) for move, v, n in outcomes if v == value]
    best = min(n for _, n in kept) if value > 0 else max(n for _, n in kept)
    moves = tuple(_flip(move) if flipped else move for move, n in kept if n == best)
    return Judgement(value, best, moves)


def line(board):
    """The winner's line from ``board`` (a position :func:`judge` finds won or lost) to its safe
    promotion: the winner's first best move each time, the loser's too (one that resists
    longest)."""
    board, moves = board.copy(stack=False), []
    while len(moves) < MAX_LINE:
        judgement = judge(board)
        if judgement.value == 0:
            raise ValueError(f"a drawn position has no winning line: {board.fen()}")
        move = judgement.moves[0]
        moves.append(move)
        if move.promotion:
            return moves
        board.push(move)
    raise RuntimeError(f"no promotion within {MAX_LINE} plies of the line: {board.fen()}")   # never, if exact


def winning_capture(board):
    """``(capture, plies)``: of the captures of ``board`` that leave king and pawn against king
    lost for the other side, the one that wins in the fewest plies (its own one more than the
    position's after); None if there is none (or the board has not four men: two kings, a pawn,
    and what is taken)."""
    if chess.popcount(board.occupied) != 4:
        return None
    best = None
    for move in board.generate_legal_captures():
        after = board.copy(stack=False)
        after.push(move)
        if not is_kpk(after) or not any(after.legal_moves):
            continue
        judgement = judge(after)
        if judgement.value == -1 and (best is None or judgement.plies + 1 < best[1]):
            best = (move, judgement.plies + 1)
    return best
