"""Model of the repetition detector (hdl/search/repetition.py), and the game history a search
starts from."""

import chess

from hdl.search.repetition import CLOCK_LIMIT, fifty_move_draw

from .position import MachinePosition
from .zobrist import position_key

__all__ = ["repeats", "game_history", "is_irreversible", "drawn"]


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
    """``[(key, irreversible, clock)]`` of the positions of ``board``'s game that a repetition in
    the search can reach, oldest first, the position on the board last; the oldest is marked
    irreversible (nothing before it counts). ``clock`` is the position's fifty-move clock (plies
    since the last capture or pawn move, to ``CLOCK_LIMIT``): the board's halfmove clock for its
    own position (the one the search counts on from), less one a ply back (at least 0) for the
    others.

    These are the positions since the last irreversible move. When they span at most ``window``
    plies they are the game's own, in order. A longer stretch (a game shuffling its pieces for
    dozens of moves) would leave positions out of the detector's window that the rules still
    count — a third occurrence is a draw however far back the first two were — so the history is
    then compressed: each distinct position once, nearest the board those that stood twice
    already (one more is the rules' draw), then the most recently seen, each at a distance from
    the position on the board of its own parity (the side to move); a parity with fewer
    positions than the other repeats its last. At most ``window`` positions before the board's
    are kept, in that order."""
    game, stretch = board.copy(), []
    while True:
        key = position_key(MachinePosition.from_board(game), 0 if game.turn == chess.WHITE else 1)
        if not game.move_stack:
            stretch.append((key, True))
            break
        move = game.pop()
        irreversible = is_irreversible(game, move)
        stretch.append((key, irreversible))
        if irreversible:
            break
    if len(stretch) <= window + 1:
        return _clocked(stretch[::-1], board.halfmove_clock)
    root, seen = stretch[0], ({}, {})           # by parity (odd, even distance): key -> [times, newest]
    for distance, (key, _) in enumerate(stretch[1:], 1):
        times = seen[distance % 2 == 0].setdefault(key, [0, distance])
        times[0] += 1
    by_parity = [sorted(keys, key=lambda key: (keys[key][0] < 2, keys[key][1])) for keys in seen]
    entries = []
    for distance in range(1, window + 1):
        kept = by_parity[distance % 2 == 0]
        index = (distance - 1) // 2
        if index >= len(by_parity[0]) and index >= len(by_parity[1]):
            break
        entries.append(kept[min(index, len(kept) - 1)])
    return _clocked([(entries[-1], True)] + [(key, False) for key in entries[-2::-1]] + [(root[0], False)],
                    board.halfmove_clock)


def _clocked(entries, clock):
    """``entries`` [(key, irreversible)], the board's last, with clocks counting back from its."""
    last = len(entries) - 1
    return [(key, irreversible, min(max(clock - (last - index), 0), CLOCK_LIMIT))
            for index, (key, irreversible) in enumerate(entries)]


def repeats(entries, window=32):
    """Whether the last of ``entries`` [(key, irreversible, clock)] repeats the position 2, 4, ...
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


def drawn(entries, in_check, window=32):
    """Whether the node of the last of ``entries`` is drawn by its path (not asked at the root):
    a repetition (:func:`repeats`), or the fifty-move rule by its clock (``fifty_move_draw``;
    ``in_check``: the node is in check, in chess)."""
    return repeats(entries, window) or bool(fifty_move_draw(entries[-1][2], in_check))
