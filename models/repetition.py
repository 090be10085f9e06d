"""Model of the repetition detector (hdl/search/repetition.py), and the game history a search
starts from."""

import chess

from .position import MachinePosition
from .zobrist import position_key

__all__ = ["repeats", "game_history", "is_irreversible"]


def is_irreversible(board, move):
    """Whether ``move`` (not yet made on ``board``) is irreversible as the move maker counts
    it: a capture, a pawn move, or a lost castling right (the king moves while it has one, or
    a rook's home square with a right is left or captured on), or the null move (no repetition
    reaches across it)."""
    if not move or board.is_capture(move) or board.piece_type_at(move.from_square) == chess.PAWN:
        return True
    rights = board.castling_rights
    own_rights = rights & (chess.BB_RANK_1 if board.turn == chess.WHITE else chess.BB_RANK_8)
    if board.piece_type_at(move.from_square) == chess.KING and own_rights:
        return True
    return bool(rights & (chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]))


def game_history(board, window=32):
    """``[(key, irreversible)]`` of the positions of ``board``'s game that a repetition in the
    search can reach: from the last irreversible move (at most ``window`` plies back) to the
    position on the board, oldest first. The oldest is marked irreversible: nothing before it
    counts."""
    entries = []
    game = board.copy()
    while True:
        key = position_key(MachinePosition.from_board(game), 0 if game.turn == chess.WHITE else 1)
        if not game.move_stack or len(entries) > window:
            entries.append((key, True))
            break
        move = game.pop()
        irreversible = is_irreversible(game, move)
        entries.append((key, irreversible))
        if irreversible:
            break
    return entries[::-1]


def repeats(entries, window=32):
    """Whether the last of ``entries`` [(key, irreversible)] repeats the position 2, 4, ...
    ``window`` entries before it with only reversible moves since (an entry's flag says the
    move that reached it was irreversible)."""
    if not entries:
        return False
    top = entries[-1][0]
    for k in range(1, min(window, len(entries) - 1) + 1):
        if entries[-k][1]:          # the move reaching the entry k - 1 below the top
            return False
        if k % 2 == 0 and entries[-1 - k][0] == top:
            return True
    return False
