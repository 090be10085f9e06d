"""Bit formats private to the move generator and its users (controller, model, tests)."""

from amaranth.lib import data, enum

from ..encoding import MoveWord, Piece, PieceType
from .geometry import SLOT_COUNT

__all__ = ["MoveKey", "GenMode", "GenOp", "GenRequest", "GenResponse", "Context", "NextCell"]

#: The order of moves at one ply: the generator emits moves in strictly decreasing key order.
#: Compared as an unsigned integer, fields from the most significant down: what is captured,
#: whether the destination is safe, how central it is, the destination square (mover's
#: frame), the least valuable attacker first (its slot), and the promotion piece (queen, knight, rook, bishop).
MoveKey = data.StructLayout({
    "promotion_rank": 2,   # 3 for a queen promotion or no promotion, then 2, 1, 0 for N, R, B
    "attacker": range(SLOT_COUNT),   # SLOT_COUNT - 1 - slot index: higher = tried first
    "square": 6,           # the destination in the mover's frame
    "centrality": 2,       # geometry.CENTRALITY of the destination
    "safe": 1,             # the destination is not attacked by the opponent
    "victim": PieceType,   # the captured piece type (a pawn for en passant), EMPTY if none
})


class GenMode(enum.Enum, shape=2):
    ALL = 0
    CAPTURES = 1    # captures, capture-promotions and queen promotions; ALL when in check
    CHECKS = 2      # captures, every promotion and the quiet moves that may give check (the
                    # answer's ``may_check``): what a pruning search node searches; ALL when in
                    # check. A ply that changes mode finishes its current cell in the old one.
    KEEP = 3        # NEXT only: the mode the ply's current cell was entered in, never a change
                    # (the search's PREFETCH, answered while the board is about to change)


class GenOp(enum.Enum, shape=2):
    FIRST = 0       # start a ply afresh and return its best move
    NEXT = 1        # the best move this ply has not returned yet
    LEGAL = 2       # is ``move`` one the generator would emit here (in ALL mode)?
    COUNT = 3       # how many moves a fresh ply emits in ALL mode, en passant aside (``count``);
                    # ``found``: there is an en-passant capture besides (not known legal)


GenRequest = data.StructLayout({
    "op": GenOp,
    "mode": GenMode,
    "ply": 6,
    "move": MoveWord,          # the move asked about by LEGAL
})

GenResponse = data.StructLayout({
    "found": 1,                # a move was found (FIRST/NEXT), or the move is legal (LEGAL)
    "move": MoveWord,
    "key": MoveKey,
    "piece": Piece,            # the moving piece
    "victim": Piece,           # the captured piece (the pawn for en passant), empty if none
    "may_check": 1,            # 0: the move certainly gives no check (AttackerSelect.may_check)
    "count": 8,                # COUNT: the moves but en passant (at most 218 in a legal position)
})

#: What a ply remembers between requests besides its 64-bit mask of taken cells: the cell it
#: is emitting, the next slot and promotion piece there, and whether the cell has more.
Context = data.StructLayout({
    "started": 1,
    "mode": GenMode,       # the mode the current cell was entered in (ALL while in check)
    "en_passant_done": 1,  # the en-passant cell has been taken
    "current": 6,          # the cell being emitted (mover's frame)
    "current_en_passant": 1,
    "more": 1,             # the current cell has moves left
    "slot": range(SLOT_COUNT + 1),
    "promotion_rank": 2,   # 3: queen (or no promotion) next, then 2, 1, 0: knight, rook, bishop
})

#: The best cell after the current one, found one step ahead by the arbiter.
NextCell = data.StructLayout({
    "found": 1,
    "square": 6,
    "en_passant_cell": 1,
})
