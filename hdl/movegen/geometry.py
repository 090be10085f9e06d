"""Static chess geometry shared by the generator hardware and its model.

The generator works in the *mover's frame*: when black is to move the board is flipped
vertically (square ``s`` becomes ``s ^ 56``), so the side to move always moves up the board,
its pawns start on the second rank and castle on the first. Everything in this module is in
that frame.

A **slot** is one way a move can arrive at a destination square: "a pawn capturing from the
south-west", "a knight two up and one right", "a queen sliding in from the north", ... Every
pseudo-legal move is one slot of one destination (promotions aside), so a destination's
candidate moves are a 37-bit vector. Slots are listed in the static priority the hardware uses
inside a square: least valuable attacker first (pawn, knight, bishop, rook, queen, king).
"""

from dataclasses import dataclass

__all__ = [
    "DIRECTIONS", "KNIGHT_STEPS", "Slot", "SLOTS", "SLOT_COUNT", "SLOT_INDEX",
    "CENTRALITY", "square", "file_of", "rank_of", "step_square",
    "PROMOTION_ORDER", "CHESS_PROMOTIONS", "TOP_PROMOTION", "ray_squares", "PROMOTING_SLOTS",
]

#: The eight directions as (name, file step, rank step), clockwise from north.
DIRECTIONS = [
    ("N", 0, 1), ("NE", 1, 1), ("E", 1, 0), ("SE", 1, -1),
    ("S", 0, -1), ("SW", -1, -1), ("W", -1, 0), ("NW", -1, 1),
]
ORTHOGONAL = ["N", "E", "S", "W"]
DIAGONAL = ["NE", "SE", "SW", "NW"]

#: A knight's eight leaps as (file step, rank step).
KNIGHT_STEPS = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]


def square(file, rank):
    return rank * 8 + file


def file_of(sq):
    return sq & 7


def rank_of(sq):
    return sq >> 3


def step_square(sq, df, dr):
    """The square ``(df, dr)`` away from ``sq``, or None off the board."""
    f, r = file_of(sq) + df, rank_of(sq) + dr
    if 0 <= f < 8 and 0 <= r < 8:
        return square(f, r)
    return None


@dataclass(frozen=True)
class Slot:
    """One way a move reaches its destination.

    ``kind`` is one of ``pawn_capture``, ``push``, ``double_push``, ``leap``, ``ray``,
    ``castle``; ``piece`` the python-chess type of the moving piece; ``step`` the (file, rank)
    displacement of one step of the move (a ray repeats it).
    """
    name: str
    kind: str
    piece: int
    step: tuple


def _slots():
    P, N, B, R, Q, K = 1, 2, 3, 4, 5, 6
    dirs = {name: (df, dr) for name, df, dr in DIRECTIONS}
    slots = [
        Slot("pawn_x_from_sw", "pawn_capture", P, (1, 1)),
        Slot("pawn_x_from_se", "pawn_capture", P, (-1, 1)),
        Slot("pawn_push", "push", P, (0, 1)),
        Slot("pawn_double_push", "double_push", P, (0, 2)),
    ]
    slots += [Slot(f"knight_{df:+d}{dr:+d}", "leap", N, (df, dr)) for df, dr in KNIGHT_STEPS]
    slots += [Slot(f"bishop_{d}", "ray", B, dirs[d]) for d in DIAGONAL]
    slots += [Slot(f"rook_{d}", "ray", R, dirs[d]) for d in ORTHOGONAL]
    slots += [Slot(f"queen_{d}", "ray", Q, (df, dr)) for d, df, dr in DIRECTIONS]
    slots += [Slot(f"king_{d}", "leap", K, (df, dr)) for d, df, dr in DIRECTIONS]
    slots += [Slot("castle", "castle", K, (0, 0))]
    return slots


#: All slots, highest priority (index 0) first.
SLOTS = _slots()
SLOT_COUNT = len(SLOTS)
SLOT_INDEX = {slot.name: i for i, slot in enumerate(SLOTS)}
#: The slots whose moves promote when they reach the last rank: a pawn's captures and push.
PROMOTING_SLOTS = [i for i, slot in enumerate(SLOTS) if slot.kind in ("pawn_capture", "push")]


def _centrality():
    # Chebyshev rings around the centre: d4-e5 is 3, the ring around it 2, then 1, the edge 0.
    def ring(sq):
        return max(abs(2 * file_of(sq) - 7), abs(2 * rank_of(sq) - 7)) // 2
    return [3 - ring(sq) for sq in range(64)]


#: ``CENTRALITY[sq]`` (0..3): among destinations with equal victim and safety, more central
#: ones are tried first, and within a ring the higher square index (mover's frame: the more
#: advanced rank, then the file nearer h). Together they order the 64 squares strictly.
CENTRALITY = _centrality()

#: Promotion pieces in the order they are generated (python-chess piece types): queen, knight,
#: rook, bishop, and in antichess the king. A move's key field ``promotion_rank`` counts down
#: from ``len(PROMOTION_ORDER) - 1`` (the queen, or no promotion).
PROMOTION_ORDER = [5, 2, 4, 3, 6]
#: How many of them chess has (the king is antichess's only).
CHESS_PROMOTIONS = 4
#: The ``promotion_rank`` of the first (the queen, and of a move that does not promote).
TOP_PROMOTION = len(PROMOTION_ORDER) - 1


def ray_squares(sq, df, dr):
    """The squares from ``sq`` (excluded) to the edge in direction (df, dr), nearest first."""
    out = []
    target = step_square(sq, df, dr)
    while target is not None:
        out.append(target)
        target = step_square(target, df, dr)
    return out
