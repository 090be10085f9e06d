"""COUNT: how many moves a position has, at once, from the cells' legal slot planes."""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .bitboard import add_all
from .cells import EnPassantCell
from .geometry import CHESS_PROMOTIONS, PROMOTING_SLOTS, PROMOTION_ORDER, SLOT_COUNT, SLOTS

__all__ = ["MoveCounter"]


class MoveCounter(wiring.Component):
    """The moves of the side to move, en passant aside: the popcount of every slot plane (the
    cells' slots are the legal moves), a promotion (``PROMOTING_SLOTS`` on the last rank) counted
    four times: queen, knight, rook, bishop (five in antichess: and king).

    Two stages: ``load`` in cycle t registers each plane's count (the cells' outputs of cycle
    t); ``count`` and ``en_passant`` (the en-passant cell has a capture, which is not counted:
    it is emitted legal or not) are their sum and flag from t+1 until the next ``load``.

    Interface attributes
    --------------------
    slots, en_passant : In, from ``SquareCells``.
    load : In(1).
    antichess : In(1), promotions to a king count too.
    count : Out(8), at most 218 in a legal position.
    en_passant_open : Out(1).
    """

    def __init__(self):
        super().__init__({
            "slots": In(64).array(SLOT_COUNT),
            "en_passant": In(EnPassantCell),
            "load": In(1),
            "antichess": In(1),
            "count": Out(8),
            "en_passant_open": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        plane_counts = [Signal(7, name=f"count_{slot.name}") for slot in SLOTS]
        promotion_counts = [Signal(4, name=f"promotions_{SLOTS[i].name}") for i in PROMOTING_SLOTS]
        with m.If(self.load):
            m.d.sync += [
                *(c.eq(add_all(self.slots[i][k] for k in range(64))) for i, c in enumerate(plane_counts)),
                *(c.eq(add_all(self.slots[i][k] for k in range(56, 64)))
                  for i, c in zip(PROMOTING_SLOTS, promotion_counts)),
                self.en_passant_open.eq(self.en_passant.valid & self.en_passant.slots.any()),
            ]
        promotions = add_all(promotion_counts)
        m.d.comb += self.count.eq(add_all(plane_counts) + (CHESS_PROMOTIONS - 1) * promotions
                                  + Mux(self.antichess, (len(PROMOTION_ORDER) - CHESS_PROMOTIONS) * promotions, 0))
        return m
