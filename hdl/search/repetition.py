"""Repetition detection in the move stack (Deep Blue: the last 32 plies), as a position is pushed.

The controller pushes each position it reaches (its Zobrist key, and whether the move that
reached it was irreversible: a capture, a pawn move, a change of castling rights) and pops it
when it unmakes the move; the game's positions before the root are pushed first. The newest
``window`` + 1 entries sit in registers, the top at 0, so ``window`` / 2 comparators in
parallel find whether the entry offered for a push stood on the board 2, 4, ... ``window``
plies earlier with only reversible moves since. Every entry is also written to a stack in block
RAM, from which the window's bottom is refilled when it pops.

Timing: ``repeated`` describes the entry offered at ``push``, in the same cycle (the entry
against the registered window), so the controller learns whether the position it pushes
repeats as it pushes it. A push or pop is taken every cycle (``ready`` is always high): the
block RAM is read at the depth the stack will have after this cycle's push or pop, so the
entry a pop in the next cycle refills the window's bottom with is there.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .zobrist import KEY_BITS

__all__ = ["RepetitionDetector", "StackEntry", "PathInterface"]

#: What the detector remembers of a position.
StackEntry = data.StructLayout({"key": KEY_BITS, "irreversible": 1})

#: The path of positions to the detector, from the side that walks it: ``push`` a position
#: reached (a stream; the detector takes one every cycle), ``pop`` the top one (taken when
#: ``push.ready``), and whether the position offered at ``push`` is ``repeated``.
PathInterface = wiring.Signature({
    "push": Out(stream.Signature(StackEntry)),
    "pop": Out(1),
    "repeated": In(1),
})


class RepetitionDetector(wiring.Component):
    """Interface attributes
    --------------------
    path : In(PathInterface)    ``push``: a position reached by a move (or from the game's
                                history); ``pop``: the top position is left (its move
                                unmade), taken with ``push.ready``; ``repeated``: the entry
                                offered at ``push`` repeats a position within the window
                                (whether or not ``push.valid``)
    clear : In(1)               empty the stack
    depth : Out               entries on the stack
    """

    def __init__(self, *, window=32, capacity=256):
        if window < 2 or window % 2:
            raise ValueError(f"the window must be an even number of plies >= 2, not {window}")
        if capacity < window + 1:
            raise ValueError(f"a capacity of {capacity} entries cannot hold a {window}-ply window")
        self._window, self._capacity = window, capacity
        super().__init__({
            "path": In(PathInterface),
            "clear": In(1),
            "depth": Out(range(capacity + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        w = self._window
        slots = [Signal(StackEntry, name=f"slot{i}") for i in range(w + 1)]
        valid = Signal(w + 1)                   # slot i holds an entry
        m.submodules.stack = stack = Memory(shape=StackEntry, depth=self._capacity, init=[])
        write, read = stack.write_port(), stack.read_port()

        m.d.comb += self.path.push.ready.eq(1)
        push = self.path.push.valid & (self.depth < self._capacity)
        pop = self.path.pop & (self.depth != 0)

        # The entry just below the window, for a pop to refill the bottom slot: read at the
        # depth the stack will have, so that it is there for a pop in the next cycle.
        depth_next = Signal.like(self.depth)
        m.d.comb += depth_next.eq(self.depth)
        with m.If(self.clear):
            m.d.comb += depth_next.eq(0)
        with m.Elif(push):
            m.d.comb += depth_next.eq(self.depth + 1)
        with m.Elif(pop):
            m.d.comb += depth_next.eq(self.depth - 1)
        m.d.comb += [read.addr.eq(depth_next - (w + 2)),
                     write.addr.eq(self.depth), write.data.eq(self.path.push.payload), write.en.eq(push)]
        below_exists = self.depth >= w + 2

        m.d.sync += self.depth.eq(depth_next)
        with m.If(self.clear):
            m.d.sync += valid.eq(0)
        with m.Elif(push):
            m.d.sync += [slots[0].eq(self.path.push.payload),
                         valid.eq(valid << 1 | 1)]
            m.d.sync += [slots[i].eq(slots[i - 1]) for i in range(1, w + 1)]
        with m.Elif(pop):
            m.d.sync += [slots[w].eq(read.data),
                         valid.eq(valid >> 1 | below_exists << w)]
            m.d.sync += [slots[i].eq(slots[i + 1]) for i in range(w)]

        # The offered entry against the window as it would be after the push: it would be the
        # top, and slot j-1 would be slot j. Plies back k (even) are comparable when none of
        # the moves reaching the newer positions (the offered one and slots 0..k-2) was
        # irreversible.
        entry = self.path.push.payload
        reversible = Signal(w + 1)              # reversible[k]: those moves, k plies back
        m.d.comb += [reversible[0].eq(1), reversible[1].eq(~entry.irreversible)]
        for k in range(2, w + 1):
            m.d.comb += reversible[k].eq(reversible[k - 1] & ~slots[k - 2].irreversible)
        matches = [valid[k - 1] & reversible[k] & (slots[k - 1].key == entry.key) for k in range(2, w + 1, 2)]
        m.d.comb += self.path.repeated.eq(Cat(*matches).any())
        return m
