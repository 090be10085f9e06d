"""The favoured squares: where each side's quiet moves have cut off, as the move order's statistic.

The ``favoured`` search feature (features.py) orders a side's quiet moves to its favoured squares
before its other quiet moves (the generator's key: ``MoveKey.favoured``). A square is favoured
for a side when the side's quiet moves to it have cut off often: each side keeps a count per
destination square (in the mover's frame), one more at each cutoff by a quiet move there at a
full-width node (not in quiescence, whose quiet checks cut off for other reasons than where they
go), and a square is favoured when its count has reached ``FAVOURED_COUNT``. When a count would
pass its maximum every count of both sides is halved first, so the counts age: what cut off long
ago weighs less than what cuts off now. The counts start at zero with the transposition table
(they last as long as it does: a game's searches, or one analysis), and a search job reads them
once, as it starts: the generator's key, and so the order of a node's moves, stays the same for
the whole job, as the generator needs.

This is a history heuristic cut down to what a priority arbiter can use: a bit per destination,
not a score per move (Schaeffer's history table ranks every move by its counts; Stockfish's
by its piece and destination). Iterative deepening to depth 6 on 100 positions
(``python -m benchmarks.depth``) searched 11.2 % fewer nodes with it; a square favoured from a
count of 1 gave 7.9 % fewer, from 8 (the count's top bit) 1.9 % (BENCHMARKS.md, 2026-12-01).
Counting the cutoffs of quiescence's quiet checks too left nothing of the gain.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..handshake import Pulse

__all__ = ["COUNT_BITS", "FAVOURED_COUNT", "Cutoff", "FavouredSquares"]

#: A square's count: 0 .. 2**COUNT_BITS - 1.
COUNT_BITS = 4

#: A square is favoured from this count on.
FAVOURED_COUNT = 2

#: A quiet move that cut off: the side that made it (0 white, 1 black) and its destination in
#: that side's frame (the square's index, the ranks flipped for black).
Cutoff = data.StructLayout({"side": 1, "square": 6})


class FavouredSquares(wiring.Component):
    """The counts of quiet cutoffs per side and destination, and the favoured squares a job reads.

    Latency: a cutoff in cycle t is counted from cycle t + 1; ``load`` in cycle t sets
    ``favoured`` from cycle t + 1 (a cutoff in the same cycle is not in it).

    Interface attributes
    --------------------
    clear : In(1)               every count to 0 (with the transposition table)
    cutoff : In(Pulse(Cutoff))  count a quiet move's cutoff: the side's count at the square one
                                more; if it was at its maximum, every count is halved first
    load : In(Pulse(1))         a job starts: ``favoured`` becomes the squares whose counts have
                                reached ``FAVOURED_COUNT`` (payload 1), or none (payload 0: a
                                job that does not use them)
    favoured : Out(array of 2 planes)   per side, its favoured squares (mover's frame), as the
                                last ``load`` found them
    """

    clear: In(1)
    cutoff: In(Pulse(Cutoff))
    load: In(Pulse(1))
    favoured: Out(data.ArrayLayout(64, 2))

    def elaborate(self, platform):
        m = Module()
        top = (1 << COUNT_BITS) - 1
        counts = [[Signal(COUNT_BITS, name=f"count_{side}_{square}") for square in range(64)]
                  for side in range(2)]
        # Whether the cutoff's count is at its maximum: every count is halved first.
        full = Cat(*(count == top for side in counts for count in side))
        overflow = Signal()
        m.d.comb += overflow.eq(self.cutoff.valid & full.bit_select(Cat(self.cutoff.payload.square,
                                                                        self.cutoff.payload.side), 1))
        for side in range(2):
            for square, count in enumerate(counts[side]):
                hit = Signal(name=f"hit_{side}_{square}")
                m.d.comb += hit.eq(self.cutoff.valid & (self.cutoff.payload.side == side)
                                   & (self.cutoff.payload.square == square))
                with m.If(self.clear):
                    m.d.sync += count.eq(0)
                with m.Elif(overflow):
                    m.d.sync += count.eq((count >> 1) + hit)
                with m.Elif(hit):
                    m.d.sync += count.eq(count + 1)
        with m.If(self.load.valid):
            for side in range(2):
                m.d.sync += self.favoured[side].eq(
                    Cat(*(count >= FAVOURED_COUNT for count in counts[side])) & self.load.payload.replicate(64))
        return m
