"""The transposition table: what the search learnt about positions, kept in block RAM.

An entry holds check bits of the Zobrist key (the bits above the index), the depth searched,
the bound the value is (exact, lower, upper; 0 marks an empty entry), the value (mate scores
counted from the position, not the root) and the best move. Replacement is depth-preferred:
a store replaces an empty entry or one searched no deeper.

Two read ports: ``probe`` shows the entry at the current key's index (addressed by the key
the Zobrist unit will have next cycle, so that it shows in the same cycle as the key), ``slot``
the entry a store will replace (addressed by the node's frame, so that a node returning while
its last UNMAKE is still on the bus needs no settled key, and showing one cycle after its
address). ``clear`` empties the table, one entry per cycle (``busy``).
"""

from amaranth import Module, Signal
from amaranth.lib import data, enum, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import VALUE_WIDTH, MoveWord
from .zobrist import KEY_BITS

__all__ = ["Bound", "CHECK_BITS", "TableEntry", "TranspositionTable"]

#: Key bits above the index kept to tell positions sharing an entry apart.
CHECK_BITS = 16


class Bound(enum.Enum, shape=2):
    EMPTY = 0
    LOWER = 1       # the value is at least this (the search failed high)
    UPPER = 2       # at most this (failed low)
    EXACT = 3


TableEntry = data.StructLayout({
    "check": CHECK_BITS,
    "depth": 6,
    "bound": Bound,
    "value": VALUE_WIDTH,
    "move": MoveWord,
})


class TranspositionTable(wiring.Component):
    """Interface attributes
    --------------------
    key_next : In(64)               the key of the position probed, a cycle ahead
    probe : Out(TableEntry)         the entry at its index, in the next cycle
    hit : Out(1)                    ... and it is not empty and its check bits are the key's
    slot_index : In(index_bits)     the entry a store will go to
    slot : Out(TableEntry)          ... as it is, one cycle after
    store : In({valid, entry})      write ``entry`` at ``slot_index`` if it is empty or
                                    ``entry.depth`` >= its depth (``slot`` must be current)
    clear : In(1), busy : Out(1)    empty every entry
    """

    def __init__(self, *, index_bits=12):
        if not 1 <= index_bits <= KEY_BITS - CHECK_BITS:
            raise ValueError(f"index_bits must be 1..{KEY_BITS - CHECK_BITS}, not {index_bits}")
        self._index_bits = index_bits
        super().__init__({
            "key_next": In(KEY_BITS),
            "probe": Out(TableEntry),
            "hit": Out(1),
            "slot_index": In(index_bits),
            "slot": Out(TableEntry),
            "store": In(data.StructLayout({"valid": 1, "entry": TableEntry})),
            "clear": In(1),
            "busy": Out(1),
        })

    @property
    def index_bits(self):
        return self._index_bits

    def elaborate(self, platform):
        m = Module()
        bits = self._index_bits
        m.submodules.entries = entries = Memory(shape=TableEntry.size, depth=1 << bits, init=[])
        write = entries.write_port()
        probe_read = entries.read_port(transparent_for=(write,))
        slot_read = entries.read_port(transparent_for=(write,))

        check = Signal(CHECK_BITS)
        m.d.sync += check.eq(self.key_next[bits:bits + CHECK_BITS])
        m.d.comb += [
            probe_read.addr.eq(self.key_next[:bits]),
            self.probe.eq(probe_read.data),
            self.hit.eq((self.probe.bound != Bound.EMPTY) & (self.probe.check == check)),
            slot_read.addr.eq(self.slot_index),
            self.slot.eq(slot_read.data),
        ]

        sweep = Signal(bits)
        with m.If(self.clear & ~self.busy):
            m.d.sync += [self.busy.eq(1), sweep.eq(0)]
        with m.If(self.busy):
            m.d.comb += [write.addr.eq(sweep), write.data.eq(0), write.en.eq(1)]
            m.d.sync += sweep.eq(sweep + 1)
            with m.If(sweep == (1 << bits) - 1):
                m.d.sync += self.busy.eq(0)
        with m.Else():
            replace = (self.slot.bound == Bound.EMPTY) | (self.store.entry.depth >= self.slot.depth)
            m.d.comb += [write.addr.eq(self.slot_index), write.data.eq(self.store.entry),
                         write.en.eq(self.store.valid & replace)]
        return m
