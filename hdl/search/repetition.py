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

The fifty-move rule: every entry carries its position's ``clock``, the plies since the last
capture or pawn move (FIDE's halfmove clock, saturating at ``CLOCK_LIMIT``). A position the
search reaches gets the clock :func:`next_clock` gives from the top entry's and its move
(``zeroing``); the game's positions come from the host with their clocks. ``clock`` is the
offered entry's, in the same cycle as ``repeated``; :func:`fifty_move_draw` says what it makes
of a node.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .zobrist import KEY_BITS

__all__ = ["RepetitionDetector", "StackEntry", "Reached", "PathInterface", "CLOCK_BITS", "CLOCK_LIMIT",
           "FIFTY_MOVES", "next_clock", "fifty_move_draw"]

#: The fifty-move rule's clock: plies since the last capture or pawn move, to CLOCK_LIMIT.
CLOCK_BITS = 7
CLOCK_LIMIT = (1 << CLOCK_BITS) - 1
#: The clock at which the game is drawn (FIDE 9.3: fifty moves of each side).
FIFTY_MOVES = 100

#: What the detector remembers of a position: its key, whether the move that reached it was
#: irreversible (a capture, a pawn move, a castling right lost, a null move: no repetition
#: reaches across it) and its fifty-move ``clock``.
StackEntry = data.StructLayout({"key": KEY_BITS, "irreversible": 1, "clock": CLOCK_BITS})

#: A position the search reaches: its key, whether its move was irreversible, and whether the
#: move was ``zeroing`` (a capture or a pawn move: the clock starts again).
Reached = data.StructLayout({"key": KEY_BITS, "irreversible": 1, "zeroing": 1})

#: The path of positions to the detector, from the side that walks it: ``push`` a position
#: reached (a stream; the detector takes one every cycle), ``pop`` the top one (taken when
#: ``push.ready``), whether the position offered at ``push`` is ``repeated``, and its
#: fifty-move ``clock``.
PathInterface = wiring.Signature({
    "push": Out(stream.Signature(Reached)),
    "pop": Out(1),
    "repeated": In(1),
    "clock": In(CLOCK_BITS),
})


def next_clock(clock, zeroing):
    """The clock of a position reached from one of ``clock`` by a move, ``zeroing`` if it is a
    capture or a pawn move (ints): 0 after such a move, else one more, to CLOCK_LIMIT. From
    FIFTY_MOVES on the clock only grows — the game was drawn before the move, so nothing after
    it starts the count again."""
    if zeroing and clock < FIFTY_MOVES:
        return 0
    return min(clock + 1, CLOCK_LIMIT)


def fifty_move_draw(clock, in_check):
    """Whether a node whose position has the fifty-move ``clock`` is a draw: past FIFTY_MOVES,
    or at it unless in check (a mate on the hundredth ply still counts, FIDE 9.3; a node in check
    there is searched, and each of its moves leads to a draw). Ints and bools (the reference) or
    Amaranth values (the controller)."""
    return (clock > FIFTY_MOVES) | ((clock == FIFTY_MOVES) & (in_check == 0))


class RepetitionDetector(wiring.Component):
    """Interface attributes
    --------------------
    path : In(PathInterface)    ``push``: a position the search reaches by a move; ``pop``:
                                the top position is left (its move unmade), taken with
                                ``push.ready``; ``repeated``: the entry offered at ``push``
                                repeats a position within the window, ``clock`` its clock
                                (whether or not ``push.valid``)
    history : In(stream of StackEntry)
                                a position of the game before the root, with its clock
                                (taken every cycle; offered only while no search walks the
                                ``path``: it goes before a push there)
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
            "history": In(stream.Signature(StackEntry)),
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

        # The entry offered: a position the search reached, its clock from the top entry's, or
        # one of the game's from the host.
        reached = self.path.push.payload
        entry = Signal(StackEntry)
        top_clock = Signal(CLOCK_BITS)
        m.d.comb += top_clock.eq(Mux(valid[0], slots[0].clock, 0))
        with m.If(self.history.valid):
            m.d.comb += entry.eq(self.history.payload)
        with m.Else():
            m.d.comb += [
                entry.key.eq(reached.key), entry.irreversible.eq(reached.irreversible),
                entry.clock.eq(Mux(reached.zeroing & (top_clock < FIFTY_MOVES), 0,
                                   Mux(top_clock == CLOCK_LIMIT, CLOCK_LIMIT, top_clock + 1))),
            ]
        m.d.comb += [self.path.push.ready.eq(1), self.history.ready.eq(1), self.path.clock.eq(entry.clock)]
        offered = self.path.push.valid | self.history.valid
        push = offered & (self.depth < self._capacity)
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
                     write.addr.eq(self.depth), write.data.eq(entry), write.en.eq(push)]
        below_exists = self.depth >= w + 2

        m.d.sync += self.depth.eq(depth_next)
        with m.If(self.clear):
            m.d.sync += valid.eq(0)
        with m.Elif(push):
            m.d.sync += [slots[0].eq(entry),
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
        reversible = Signal(w + 1)              # reversible[k]: those moves, k plies back
        m.d.comb += [reversible[0].eq(1), reversible[1].eq(~entry.irreversible)]
        for k in range(2, w + 1):
            m.d.comb += reversible[k].eq(reversible[k - 1] & ~slots[k - 2].irreversible)
        matches = [valid[k - 1] & reversible[k] & (slots[k - 1].key == entry.key) for k in range(2, w + 1, 2)]
        m.d.comb += self.path.repeated.eq(Cat(*matches).any())
        return m
