"""The priority arbiter: which destination cell holds the best move not yet done at a ply."""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..encoding import PieceType
from .bitboard import (
    encode_onehot,
    highest_onehot,
    msb_index,
    plane,
    registered,
    select_onehot,
    square_mask,
)
from .cells import EnPassantCell
from .geometry import CENTRALITY
from .layouts import GenMode, VictimOrder, victim_priority

__all__ = ["DestinationArbiter", "RINGS", "centrality_of"]

#: RINGS[c]: the squares of centrality c.
RINGS = [square_mask(*(s for s in range(64) if CENTRALITY[s] == c)) for c in range(4)]


def centrality_of(square):
    """The centrality (0..3) of a mover's-frame square, as logic."""
    bits = [Const(RINGS[c], 64).bit_select(square, 1) for c in range(4)]
    return Cat(bits[1] | bits[3], bits[2] | bits[3])


class DestinationArbiter(wiring.Component):
    """Picks the destination cell whose moves come next at a ply: the best cell not yet done.

    Two pipeline stages: the inputs of cycle t give the outputs of cycle t+1 (the cells'
    outputs must hold still across both); the register sits after the class selection. A
    cell's key prefix (victim, safety, centrality, square) is unique and fixed
    while the position is, so emitting moves in decreasing key order means always taking the
    best cell that still has moves; a ply only has to remember which cells it has finished
    (``done``) and, in the current cell, the next slot (kept by the generator). The best cell is
    found as the best (victim, safety) class with an eligible cell, then its most central ring,
    then its highest square: OR-reductions and priority encoders, each level decided in
    parallel, with no comparator per candidate. The en-passant cell competes as a 65th cell.
    The victim classes are ranked by ``victim_priority`` (``victim_order``: the most or the
    least valuable victim first).

    Interface attributes
    --------------------
    victim, safe, movable, movable_captures, movable_checks, en_passant : In, from ``SquareCells``.
    done : In(64), cells whose moves this ply has finished (mover's frame).
    en_passant_done : In(1), the en-passant cell is finished.
    mode : In(GenMode), the cells the ply's mode wants (already ALL when in check): those with
        a move; with a capture or promoting push (CAPTURES); and also those with a move that may
        give check (CHECKS). The en-passant cell competes in every mode.
    victim_order : In(VictimOrder).
    found : Out(1), some cell has moves left.
    square : Out(6), the winning cell (mover's frame).
    en_passant_cell : Out(1), the winner is the en-passant cell.
    """

    def __init__(self):
        super().__init__({
            "victim": In(64).array(7),
            "safe": In(64),
            "movable": In(64),
            "movable_captures": In(64),
            "movable_checks": In(64),
            "en_passant": In(EnPassantCell),
            "done": In(64),
            "en_passant_done": In(1),
            "mode": In(GenMode),
            "victim_order": In(VictimOrder),
            "found": Out(1),
            "square": Out(6),
            "en_passant_cell": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        safe = self.safe
        wanted = Signal(64)
        with m.Switch(self.mode):
            with m.Case(GenMode.CAPTURES):
                m.d.comb += wanted.eq(self.movable_captures)
            with m.Case(GenMode.CHECKS):
                m.d.comb += wanted.eq(self.movable_captures | self.movable_checks)
            with m.Default():
                m.d.comb += wanted.eq(self.movable)
        eligible = plane(m, "eligible", wanted & ~self.done)

        # The cells of each victim priority (layouts.victim_priority: the type, or reversed).
        reversed_order = self.victim_order == VictimOrder.LEAST_VALUABLE
        reversed_planes = {victim_priority(v, True): self.victim[v] for v in range(7)}
        by_priority = [Mux(reversed_order, reversed_planes[p], self.victim[p]) for p in range(7)]
        classes = [(v, s) for v in range(7) for s in (0, 1)]       # ascending priority
        class_planes = [plane(m, f"class_{v}_{s}", eligible & by_priority[v] & (safe if s else ~safe))
                        for v, s in classes]
        class_hits = Signal(len(classes))
        m.d.comb += class_hits.eq(Cat(*(p.any() for p in class_planes)))
        best_class_onehot = highest_onehot(m, "best_class_onehot", class_hits)
        board_found = Signal()
        m.d.comb += board_found.eq(eligible.any())
        # The en-passant cell: a pawn capture, so the pawn's victim class.
        ep = self.en_passant
        ep_prefix = Signal(12)
        m.d.comb += ep_prefix.eq(Cat(ep.square, centrality_of(ep.square), ep.safe,
                                     victim_priority(Const(PieceType.PAWN.value, 3), reversed_order)))
        ep_open = Signal()
        m.d.comb += ep_open.eq(ep.valid & ep.slots.any() & ~self.en_passant_done)

        # --- the pipeline register: the best class is known; ring and square next cycle ------
        best_class = Signal(64, name="best_class")
        best_victim = Signal(3, name="best_victim")
        best_safe = Signal(name="best_safe")
        m.d.sync += [
            best_class.eq(select_onehot(best_class_onehot, class_planes)),
            best_victim.eq(select_onehot(best_class_onehot, [Const(v, 3) for v, _ in classes])),
            best_safe.eq(select_onehot(best_class_onehot, [Const(s, 1) for _, s in classes])),
        ]
        board_found = registered(m, board_found, "board_found")
        ep_prefix = registered(m, ep_prefix, "ep_prefix")
        ep_open = registered(m, ep_open, "ep_open")
        ring_planes = [plane(m, f"best_ring_{c}", best_class & Const(RINGS[c], 64)) for c in range(4)]
        ring_hits = Signal(4)
        m.d.comb += ring_hits.eq(Cat(*(p.any() for p in ring_planes)))
        best_ring_onehot = highest_onehot(m, "best_ring_onehot", ring_hits)
        best_ring = encode_onehot(best_ring_onehot)
        best_ring_plane = plane(m, "best_ring", select_onehot(best_ring_onehot, ring_planes))
        board_square = msb_index(m, "winner", best_ring_plane)
        board_prefix = Signal(12)
        m.d.comb += board_prefix.eq(Cat(board_square, best_ring, best_safe, best_victim))
        ep_wins = Signal()
        m.d.comb += ep_wins.eq(ep_open & (~board_found | (ep_prefix > board_prefix)))
        m.d.comb += [
            self.found.eq(board_found | ep_wins),
            self.square.eq(Mux(ep_wins, ep_prefix[0:6], board_square)),
            self.en_passant_cell.eq(ep_wins),
        ]
        return m

