"""The priority arbiter: which destination cell holds the best move below a threshold."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .bitboard import RANKS, msb_index, or_all, plane, square_mask
from .cells import EnPassantCell
from .geometry import CENTRALITY, SLOT_COUNT, SLOT_INDEX
from .layouts import MoveKey

__all__ = ["Threshold", "DestinationArbiter", "RINGS", "centrality_of"]

FULL = (1 << 64) - 1
#: RINGS[c]: the squares of centrality c.
RINGS = [square_mask(*(s for s in range(64) if CENTRALITY[s] == c)) for c in range(4)]
PUSH = SLOT_INDEX["pawn_push"]

#: What a request compares against: the key of the last move returned at its ply.
Threshold = data.StructLayout({
    "valid": 1,        # 0: nothing returned yet, every move is below
    "inclusive": 1,    # the move with exactly this key is still wanted (a further promotion)
    "key": MoveKey,
})


def centrality_of(square):
    """The centrality (0..3) of a mover's-frame square, as logic."""
    bits = [Const(RINGS[c], 64).bit_select(square, 1) for c in range(4)]
    return Cat(bits[1] | bits[3], bits[2] | bits[3])


class DestinationArbiter(wiring.Component):
    """Picks the destination cell with the best move whose key is below the threshold.

    Combinational. Each cell's key prefix (victim, safety, centrality, square) is unique, so
    the cells strictly below the threshold cell offer all their open slots, the threshold cell
    itself offers the slots after the threshold's attacker, and the cells above offer none.
    The winner is found as the best (victim, safety) class with an eligible cell, then its most
    central ring, then the highest square: OR-reductions and a 6-level priority tree, with no
    comparator per candidate. The en-passant cell competes as a 65th cell.

    Interface attributes
    --------------------
    slots, victim, safe, en_passant : In, from ``SquareCells``.
    threshold : In(Threshold).
    captures : In(1), capture-only mode (already overridden when in check).
    found : Out(1), some cell has an eligible move.
    square : Out(6), the winning cell (mover's frame).
    en_passant_cell : Out(1), the winner is the en-passant cell.
    slot_floor : Out(range(SLOT_COUNT + 1)), the winner's first eligible slot index.
    """

    def __init__(self):
        super().__init__({
            "slots": In(64).array(SLOT_COUNT),
            "victim": In(64).array(7),
            "safe": In(64),
            "en_passant": In(EnPassantCell),
            "threshold": In(Threshold),
            "captures": In(1),
            "found": Out(1),
            "square": Out(6),
            "en_passant_cell": Out(1),
            "slot_floor": Out(range(SLOT_COUNT + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        t = self.threshold
        key = t.key
        safe = self.safe

        # The slot floor in the threshold cell: slots after (or from, if inclusive) its attacker.
        floor = Signal(range(SLOT_COUNT + 1))
        m.d.comb += floor.eq(SLOT_COUNT - key.attacker - t.inclusive)

        # Cells whose key prefix is below the threshold's.
        below_in_ring = plane(m, "below_in_ring", (Const(1, 1) << key.square) - 1)
        ring_masks = [Const(r, 64) for r in RINGS]
        ring_lt = plane(m, "ring_lt", Mux(key.centrality == 0, 0,
                                          Mux(key.centrality == 1, ring_masks[0],
                                              Mux(key.centrality == 2, ring_masks[0] | ring_masks[1],
                                                  ~ring_masks[3]))))
        ring_eq = plane(m, "ring_eq", Mux(key.centrality == 0, ring_masks[0],
                                          Mux(key.centrality == 1, ring_masks[1],
                                              Mux(key.centrality == 2, ring_masks[2], ring_masks[3]))))
        order_lt = plane(m, "order_lt", ring_lt | (ring_eq & below_in_ring))
        same_victim_below = plane(m, "same_victim_below",
                                  Mux(key.safe, ~safe | order_lt, ~safe & order_lt))
        below_terms = []
        for v in range(7):
            below_terms.append(self.victim[v] & Mux(key.victim.as_value() > v, FULL,
                                                    Mux(key.victim.as_value() == v, same_victim_below, 0)))
        below = plane(m, "below", Mux(t.valid, or_all(below_terms), FULL))
        at_threshold = plane(m, "at_threshold", Mux(
            t.valid,
            (Const(1, 1) << key.square) & Array(self.victim)[key.victim.as_value()]
            & Mux(key.safe, safe, ~safe),
            0))

        # Eligible slots of every cell.
        eligible_terms = []
        capture_cells = plane(m, "capture_cells", Mux(self.captures, ~self.victim[0], FULL))
        promotion_cells = plane(m, "promotion_cells", Mux(self.captures, Const(RANKS[7], 64), FULL))
        for i in range(SLOT_COUNT):
            mode_mask = promotion_cells if i == PUSH else capture_cells
            open_here = below | Mux(floor <= i, at_threshold, 0)
            eligible_terms.append(plane(m, f"eligible_{i}", self.slots[i] & open_here & mode_mask))
        eligible = plane(m, "eligible", or_all(eligible_terms))

        # Best class (victim, then safety), then ring, then square.
        best = Const(0, 64)
        best_victim = Const(0, 3)
        best_safe = Const(0, 1)
        for v in range(7):
            for s in (0, 1):
                cls = plane(m, f"class_{v}_{s}", eligible & self.victim[v] & (safe if s else ~safe))
                hit = cls.any()
                best = Mux(hit, cls, best)
                best_victim = Mux(hit, v, best_victim)
                best_safe = Mux(hit, s, best_safe)
        best_class = plane(m, "best_class", best)
        in_ring = Const(0, 64)
        best_ring = Const(0, 2)
        for c in range(4):
            ring = plane(m, f"best_ring_{c}", best_class & ring_masks[c])
            hit = ring.any()
            in_ring = Mux(hit, ring, in_ring)
            best_ring = Mux(hit, c, best_ring)
        best_ring_plane = plane(m, "best_ring", in_ring)
        board_square = msb_index(m, "winner", best_ring_plane)
        board_found = eligible.any()
        board_prefix = Signal(12)
        m.d.comb += board_prefix.eq(Cat(board_square, best_ring, best_safe, best_victim))

        # The en-passant cell: a pawn capture, so victim class 1.
        ep = self.en_passant
        ep_prefix = Signal(12)
        m.d.comb += ep_prefix.eq(Cat(ep.square, centrality_of(ep.square), ep.safe, Const(1, 3)))
        t_prefix = Signal(12)
        m.d.comb += t_prefix.eq(Cat(key.square, key.centrality, key.safe, key.victim))
        ep_open = Signal(2)
        m.d.comb += ep_open.eq(ep.slots & Mux(
            ~t.valid | (ep_prefix < t_prefix), 0b11,
            Mux(ep_prefix == t_prefix, Cat(floor <= 0, floor <= 1), 0)))
        ep_wins = Signal()
        m.d.comb += ep_wins.eq(ep.valid & ep_open.any() & (~board_found | (ep_prefix > board_prefix)))

        winner_prefix = Mux(ep_wins, ep_prefix, board_prefix)
        m.d.comb += [
            self.found.eq(board_found | ep_wins),
            self.square.eq(Mux(ep_wins, ep.square, board_square)),
            self.en_passant_cell.eq(ep_wins),
            self.slot_floor.eq(Mux(t.valid & (winner_prefix == t_prefix), floor, 0)),
        ]
        return m

