"""CHUNKER (Campbell and Berliner, "Using chunking to solve chess pawn endgames", 1984):
king-and-pawn endings of passed pawns, solved by search and chunk schemas.

``domain``: the positions, rules, index and value byte; ``database``: the exact retrograde
database (``retro.cpp``), which checks everything else; ``chunks``: the chunk libraries;
``schemas``: the reasoning schemas by level; ``search``: the proof search that asks them at
every node; ``check``: ``suprem chunker --check``. :func:`place` puts a position into the
paper's domain (mirrored if need be), as ``suprem chunker`` and the search driver's hand-off do;
:func:`visited` names where a game has been, for the hand-off's proof to go elsewhere."""

import chess

from .domain import PAPER, OutsideDomain

__all__ = ["place", "unmirror", "visited"]


def place(board, domain=PAPER):
    """``(inside, mirrored)``: ``board`` as a position of ``domain`` — itself, or mirrored left to
    right when its pawns stand on the mirrored files (``mirrored`` True: map its moves back
    with :func:`unmirror`). Raises ``OutsideDomain`` with what
    is wrong."""
    errors = []
    for mirrored in (False, True):
        inside = board.transform(chess.flip_horizontal) if mirrored else board.copy(stack=False)
        try:
            domain.index(inside)
            return inside, mirrored
        except OutsideDomain as error:
            errors.append(str(error))
    white = "".join(chess.FILE_NAMES[f] for f in domain.white_files)
    black = "".join(chess.FILE_NAMES[f] for f in domain.black_files)
    raise OutsideDomain(f"not a position of CHUNKER's domain (both kings; White's pawns on files {white}, "
                        f"Black's on {black}, or mirrored; at most one a file): {errors[0]}")


def _flip(square):
    return chess.square(7 - chess.square_file(square), chess.square_rank(square))


def unmirror(move):
    """A move of the mirrored position as a move of the original."""
    return chess.Move(_flip(move.from_square), _flip(move.to_square), move.promotion)


def visited(game, mirrored, domain=PAPER):
    """The indices in ``domain`` of the positions ``game`` (a ``chess.Board`` with its moves) has
    stood in since its last pawn move or capture with the other side to move: where a move of its
    current position would return. Each mirrored if ``mirrored`` (as :func:`place` placed the
    current one)."""
    seen, board = set(), game.copy()
    for plies in range(1, min(game.halfmove_clock, len(game.move_stack)) + 1):
        board.pop()
        if plies % 2:
            try:
                seen.add(domain.index(board.transform(chess.flip_horizontal) if mirrored else board))
            except OutsideDomain:
                break
    return frozenset(seen)
