"""COUNT: how many moves a position has, each cell's counted where it is, two ranks a cycle."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .bitboard import RANKS, add_all, plane_count
from .cells import EnPassantCell, legal_slot
from .geometry import CHESS_PROMOTIONS, PROMOTING_SLOTS, PROMOTION_ORDER, SLOT_COUNT

__all__ = ["MoveCounter", "COUNT_LATENCY", "RANKS_A_CYCLE"]


#: Ranks whose cells' counts are added to the total in a cycle.
RANKS_A_CYCLE = 2
_STEPS = 8 // RANKS_A_CYCLE

#: Cycles from ``load`` to the cycle ``done`` is high: one to pass ``load`` on, one to count
#: each cell, one per ``RANKS_A_CYCLE`` ranks.
COUNT_LATENCY = 2 + _STEPS


class MoveCounter(wiring.Component):
    """The moves of the side to move, en passant aside: the popcount of every slot plane, a
    promotion (``PROMOTING_SLOTS`` on the last rank) counted four times: queen, knight, rook,
    bishop (five in antichess: and king). The count is the legal moves' when the slots are the
    legal moves (the legal cells'; the lean cells' when no piece is ``pinned``).

    ``load`` in cycle t counts each cell's moves where its slots are: 64 counts of 6 bits, 384
    bits, are registered, where the 2,368 slot bits themselves would have to be gathered from
    the whole board. They are taken in t+1, from ``load`` registered (its fan-out to the 384
    registers, across the board, is then a path of its own): the slot planes and
    ``destinations`` of t+1 must be those of t (``MoveGenerator`` takes a COUNT only when no
    change is on its way to the cells), and may change from t+2; ``en_passant`` and ``pinned``
    are taken in t. Then two ranks a cycle — sixteen counts — are added to the total. ``done`` is
    high in cycle t + ``COUNT_LATENCY`` (t+6); ``count`` and ``inexact`` hold from then until
    the next ``load``. A ``load`` while counting starts again.

    Interface attributes
    --------------------
    slots, evading, en_passant : In, from ``SquareCells``.
    pinned : In(1), taken with the slots: they hold moves that may be illegal (the lean
        cells' pinned pieces' moves off their lines).
    load : In(1).
    antichess : In(1), promotions to a king count too.
    destinations : In(plane), taken with the slots: only the slots onto these cells count
        (antichess's capture rule, applied by ``MoveGenerator``).
    done : Out(1), the count is complete (one cycle).
    busy : Out(1), a count is under way or done this cycle (from t+1 to t+6): no ``load``.
    count : Out(8), at most 218 in a legal position.
    inexact : Out(1), the count is not the number of legal moves: the en-passant cell has a
        capture besides (emitted legal or not, and not counted), or the slots were ``pinned``.
    """

    def __init__(self):
        super().__init__({
            "slots": In(64).array(SLOT_COUNT),
            "evading": In(64),
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
        # Each cell's moves: its open slots, a promoting one 4 times (5 in antichess) on the
        # last rank, none off the destinations. At most 37 + 3 * 4 = 49: 6 bits.
        chess_extra, antichess_extra = CHESS_PROMOTIONS - 1, len(PROMOTION_ORDER) - 1
        taking = Signal()               # the cycle after ``load``: the cells' counts are taken
        m.d.sync += taking.eq(self.load)
        legal = [legal_slot(i, self.slots[i], self.evading) for i in range(SLOT_COUNT)]
        # A promotion's extra moves: its slot counted again on the last rank, once more in antichess.
        last_rank = Const(RANKS[7], 64)
        antichess_only = Mux(self.antichess, last_rank, 0)
        extra = ([legal[i] & last_rank for i in PROMOTING_SLOTS] * chess_extra
                 + [legal[i] & antichess_only for i in PROMOTING_SLOTS] * (antichess_extra - chess_extra))
        count_planes = plane_count(m, "moves", legal + extra)
        held = [Signal(64, name=f"count_plane_{k}") for k in range(len(count_planes))]    # 6: at most 49
        with m.If(taking):
            m.d.sync += [h.eq(c & self.destinations) for h, c in zip(held, count_planes)]
        cell_counts = [Cat(*(h[square] for h in held)) for square in range(64)]

        step = Signal(range(_STEPS))
        counting = Signal()
        with m.If(self.load):
            m.d.sync += [counting.eq(0), self.count.eq(0),
                         self.inexact.eq((self.en_passant.valid & self.en_passant.slots.any()) | self.pinned)]
        with m.Elif(taking):
            m.d.sync += [step.eq(0), counting.eq(1)]
        with m.Elif(counting):
            cells_a_step = 8 * RANKS_A_CYCLE
            group = [Array(cell_counts[cells_a_step * k + i] for k in range(_STEPS))[step] for i in range(cells_a_step)]
            m.d.sync += [self.count.eq(self.count + add_all(group)), step.eq(step + 1),
                         counting.eq(step != _STEPS - 1)]
        m.d.sync += self.done.eq(counting & (step == _STEPS - 1) & ~self.load & ~taking)
        m.d.comb += self.busy.eq(taking | counting | self.done)
        return m
