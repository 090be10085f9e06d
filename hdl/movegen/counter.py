"""COUNT: how many moves a position has, from the cells' legal slot planes, a rank a cycle."""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .bitboard import add_all
from .cells import EnPassantCell
from .geometry import CHESS_PROMOTIONS, PROMOTING_SLOTS, PROMOTION_ORDER, SLOT_COUNT

__all__ = ["MoveCounter", "COUNT_LATENCY"]

#: Cycles from ``load`` to the cycle ``done`` is high: one to take the planes, one a rank.
COUNT_LATENCY = 9


class MoveCounter(wiring.Component):
    """The moves of the side to move, en passant aside: the popcount of every slot plane, a
    promotion (``PROMOTING_SLOTS`` on the last rank) counted four times: queen, knight, rook,
    bishop (five in antichess: and king). The count is the legal moves' when the slots are the
    legal moves (the legal cells'; the lean cells' when no piece is ``pinned``).

    ``load`` in cycle t takes the slot planes (the cells' outputs of cycle t) into a register
    (the planes may change from t+1); then one rank a cycle — the 37 planes' 8 bits of it, 296
    bits — is added to the total, so that a few hundred adders count the 2,368 bits rather than
    an adder tree as wide as the board. ``done`` is high in cycle t + ``COUNT_LATENCY`` (t+9);
    ``count`` and ``inexact`` hold from then until the next ``load``. A ``load`` while counting
    starts again.

    Interface attributes
    --------------------
    slots, en_passant : In, from ``SquareCells``.
    pinned : In(1), taken with the slots: they hold moves that may be illegal (the lean
        cells' pinned pieces' moves off their lines).
    load : In(1).
    antichess : In(1), promotions to a king count too.
    destinations : In(plane), taken with the slots: only the slots onto these cells count
        (antichess's capture rule, applied by ``MoveGenerator``).
    done : Out(1), the count is complete (one cycle).
    busy : Out(1), a count is under way or done this cycle (from t+1 to t+9): no ``load``.
    count : Out(8), at most 218 in a legal position.
    inexact : Out(1), the count is not the number of legal moves: the en-passant cell has a
        capture besides (emitted legal or not, and not counted), or the slots were ``pinned``.
    """

    def __init__(self):
        super().__init__({
            "slots": In(64).array(SLOT_COUNT),
            "en_passant": In(EnPassantCell),
            "pinned": In(1),
            "load": In(1),
            "antichess": In(1),
            "destinations": In(64),
            "done": Out(1),
            "busy": Out(1),
            "count": Out(8),
            "inexact": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        held = [Signal(64, name=f"held_{i}") for i in range(SLOT_COUNT)]
        held_destinations = Signal(64)
        rank = Signal(3)
        counting = Signal()
        with m.If(self.load):
            m.d.sync += [*(h.eq(s) for h, s in zip(held, self.slots)), held_destinations.eq(self.destinations),
                         rank.eq(0), counting.eq(1),
                         self.count.eq(0),
                         self.inexact.eq((self.en_passant.valid & self.en_passant.slots.any()) | self.pinned)]
        with m.Elif(counting):
            keep = held_destinations.word_select(rank, 8)
            row = [h.word_select(rank, 8) & keep for h in held]
            moves = add_all(bit for r in row for bit in r)
            # On the last rank a promotion is 4 moves (5 in antichess): the extra ones.
            promotions = add_all(bit for i in PROMOTING_SLOTS for bit in row[i])
            extra = Mux(self.antichess, len(PROMOTION_ORDER) - 1, CHESS_PROMOTIONS - 1)
            m.d.sync += [self.count.eq(self.count + moves + Mux(rank == 7, extra * promotions, 0)),
                         rank.eq(rank + 1), counting.eq(rank != 7)]
        m.d.sync += self.done.eq(counting & (rank == 7) & ~self.load)
        m.d.comb += self.busy.eq(counting | self.done)
        return m
