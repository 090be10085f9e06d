"""The transposition table: what the search learnt about positions, kept in block RAM.

An entry holds check bits of the Zobrist key (the bits above the index), the depth searched,
the bound the value is (exact, lower, upper; 0 marks an empty entry), the value (mate scores
counted from the position, not the root), the best move and the search's generation (the host
counts its searches from new roots, modulo 4). Replacement is depth-preferred within a
generation: a store replaces an empty entry, one of another generation, or one searched no
deeper. So the deep entries of a game's earlier searches still answer probes, but give way to
the current search's stores instead of piling up.

Two read ports: ``probe`` shows the entry at the current key's index (addressed by the key
the Zobrist unit will have next cycle, so that it shows in the same cycle as the key), the
other the entry a store will replace (addressed by the frame the search will have in the next
cycle, ``slot_ahead``, so that a node returning while its last UNMAKE is still on the bus
needs no settled key, and a parent returning in the cycle after its child finds its own entry
read: the read sees a store in the same cycle). ``clear`` empties the table, one entry per cycle (``busy``).
"""

from amaranth import Module, Signal
from amaranth.lib import data, enum, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import VALUE_WIDTH, MoveWord
from ..handshake import Pulse
from .zobrist import KEY_BITS

__all__ = ["Bound", "CHECK_BITS", "GENERATION_BITS", "HashEntry", "HashInterface", "TranspositionTable"]

#: Key bits above the index kept to tell positions sharing an entry apart.
CHECK_BITS = 15

#: The bits of a search's generation (an entry of another generation may be replaced).
GENERATION_BITS = 2


class Bound(enum.Enum, shape=2):
    EMPTY = 0
    LOWER = 1       # the value is at least this (the search failed high)
    UPPER = 2       # at most this (failed low)
    EXACT = 3


HashEntry = data.StructLayout({
    "check": CHECK_BITS,
    "depth": 6,
    "bound": Bound,
    "value": VALUE_WIDTH,
    "move": MoveWord,
    "generation": GENERATION_BITS,
})


def HashInterface(index_bits):
    """The search's port of a table of ``2**index_bits`` entries, from the search's side: the
    ``probe`` at the position's key and whether it is a ``hit``; the entry a store goes to
    (``slot_index``), and the one a store in the next cycle would go to (``slot_ahead``)."""
    return wiring.Signature({
        "probe": In(HashEntry),
        "hit": In(1),
        "slot_index": Out(index_bits),
        "slot_ahead": Out(index_bits),
        "store": Out(Pulse(HashEntry)),
    })


class TranspositionTable(wiring.Component):
    """Interface attributes
    --------------------
    key_next : In(64)               the key of the position probed, a cycle ahead
    search : In(HashInterface)     ``probe``: the entry at its index, in the next cycle;
                                    ``hit``: ... it is not empty and its check bits are the
                                    key's; ``store``: written at ``slot_index`` if that entry
                                    (read at ``slot_ahead`` the cycle before) is empty, of
                                    another generation, or the store's depth >= its depth
    clear : In(1), busy : Out(1)    empty every entry
    """

    def __init__(self, *, index_bits=12):
        if not 1 <= index_bits <= KEY_BITS - CHECK_BITS:
            raise ValueError(f"index_bits must be 1..{KEY_BITS - CHECK_BITS}, not {index_bits}")
        self._index_bits = index_bits
        super().__init__({
            "key_next": In(KEY_BITS),
            "search": In(HashInterface(index_bits)),
            "clear": In(1),
            "busy": Out(1),
        })

    @property
    def index_bits(self):
        return self._index_bits

    def elaborate(self, platform):
        m = Module()
        bits = self._index_bits
        m.submodules.entries = entries = Memory(shape=HashEntry.size, depth=1 << bits, init=[])
        write = entries.write_port()
        probe_read = entries.read_port(transparent_for=(write,))
        slot_read = entries.read_port(transparent_for=(write,))

        port = self.search
        slot = Signal(HashEntry)               # the entry at slot_index, as it is
        check = Signal(CHECK_BITS)
        m.d.sync += check.eq(self.key_next[bits:bits + CHECK_BITS])
        m.d.comb += [
            probe_read.addr.eq(self.key_next[:bits]),
            port.probe.eq(probe_read.data),
            port.hit.eq((port.probe.bound != Bound.EMPTY) & (port.probe.check == check)),
            slot_read.addr.eq(port.slot_ahead),
            slot.eq(slot_read.data),
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
            stored = port.store.payload
            replace = ((slot.bound == Bound.EMPTY) | (slot.generation != stored.generation)
                       | (stored.depth >= slot.depth))
            m.d.comb += [write.addr.eq(port.slot_index), write.data.eq(port.store.payload),
                         write.en.eq(port.store.valid & replace)]
        return m
