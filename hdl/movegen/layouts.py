"""Bit formats private to the move generator and its users (controller, model, tests)."""

from amaranth.hdl import Mux
from amaranth.lib import data, enum

from ..encoding import MoveWord, Piece
from .geometry import SLOT_COUNT

__all__ = ["MoveKey", "GenMode", "GenOp", "GenRequest", "GenResponse", "Context", "NextCell",
           "Variant", "VictimOrder", "GenConfig", "CHESS", "victim_priority", "safe_field"]


class Variant(enum.Enum, shape=1):
    """The rules the generator follows (docs/architecture.md §5.1)."""
    CHESS = 0
    ANTICHESS = 1   # captures compulsory, no check, no castling, promotion to king too


class VictimOrder(enum.Enum, shape=1):
    """Which captures come first: the most valuable victim (chess), or the least (the
    antichess paper's reversed priority)."""
    MOST_VALUABLE = 0
    LEAST_VALUABLE = 1


#: What a search sets the generator to (START carries it): its rules and its capture order.
GenConfig = data.StructLayout({"variant": Variant, "victim_order": VictimOrder})

#: The configuration of chess as the machine has always played it.
CHESS = {"variant": Variant.CHESS, "victim_order": VictimOrder.MOST_VALUABLE}


def victim_priority(victim_type, least_valuable_first):
    """The key's ``victim`` field of a move capturing ``victim_type`` (0: no capture): the type
    itself, or with the least valuable victim first 7 minus it (a pawn 6 .. a king 1). Python
    integers give an integer; Amaranth values (either argument) give logic."""
    if isinstance(victim_type, int) and isinstance(least_valuable_first, int):
        return 7 - victim_type if victim_type and least_valuable_first else victim_type
    return Mux(least_valuable_first & (victim_type != 0), 7 - victim_type, victim_type)


def safe_field(attacked, offer):
    """The key's ``safe`` field of a move whose destination the opponent ``attacked`` (or not):
    1 when it is not attacked, and the other way round for an ``offer`` — in antichess, a move
    to an empty square other than the en-passant one, where an attacked square forces the reply
    and goes first. Python booleans or integers give an integer; Amaranth values (the cells'
    planes, a bit per square) give logic."""
    if isinstance(attacked, (bool, int)) and isinstance(offer, (bool, int)):
        return int(not attacked) ^ int(bool(offer))
    return ~attacked ^ offer


#: The order of moves at one ply: the generator emits moves in strictly decreasing key order.
#: Compared as an unsigned integer, fields from the most significant down: what is captured,
#: whether the destination is safe, how central it is, the destination square (mover's
#: frame), the least valuable attacker first (its slot), and the promotion piece (queen, knight,
#: rook, bishop, and in antichess king: ``geometry.PROMOTION_ORDER``).
MoveKey = data.StructLayout({
    "promotion_rank": 3,   # 4 for a queen promotion or no promotion, then 3, 2, 1, 0 for N, R, B, K
    "attacker": range(SLOT_COUNT),   # SLOT_COUNT - 1 - slot index: higher = tried first
    "square": 6,           # the destination in the mover's frame
    "centrality": 2,       # geometry.CENTRALITY of the destination
    "safe": 1,             # the destination is not attacked by the opponent, but for an offer
                           # (antichess): it is (safe_field)
    "victim": 3,           # the captured piece type (a pawn for en passant), 0 if none; reversed
                           # for the least valuable victim first (victim_priority)
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
    "promotion_rank": 3,   # 4: queen (or no promotion) next, then 3, 2, 1, 0: knight, rook, bishop, king
})

#: The best cell after the current one, found one step ahead by the arbiter.
NextCell = data.StructLayout({
    "found": 1,
    "square": 6,
    "en_passant_cell": 1,
})
