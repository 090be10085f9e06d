"""Downloadable storage of a unit: table memories and configuration words.

Each unit receives the download port's writes already decoded for it (:data:`UnitWrite`) and
the checksum engine's sweep (:data:`Inspect`). While a sweep is active every table's read port
follows the sweep index instead of the datapath, so a table is read back through the same port
the datapath uses. A table that reads two addresses a cycle (``second_read``: the description
tables of an evaluator taking two halfmoves a transfer) reads its second on the port the
download writes through: the two share one address, the write's while one is written (no
job runs then), so that Yosys maps both onto a block RAM's second port (``fpga/build.py``
tells it that a read and a write to one address in one cycle never matter here).
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from .tables import DATA_BITS, INDEX_BITS, TableKind

__all__ = ["UnitWrite", "Inspect", "TableMemory", "ConfigWords"]

#: A download write addressed to this unit.
UnitWrite = data.StructLayout({"en": 1, "table": TableKind, "index": INDEX_BITS, "data": DATA_BITS})

#: The checksum engine's sweep: while ``active``, tables are read at ``index``.
Inspect = data.StructLayout({"active": 1, "table": TableKind, "index": INDEX_BITS})


class TableMemory(wiring.Component):
    """One downloadable table in block RAM; reads ``data`` one cycle after ``addr`` (and, with
    ``second_read``, ``data_b`` one cycle after ``addr_b``).

    Interface attributes
    --------------------
    write : In(UnitWrite)   written when ``en``, ``table`` is this table's kind, ``index`` < depth
    inspect : In(Inspect)   while active, the read address is the sweep index
    addr : In(range(depth)) the datapath's read address
    data : Out(width)       the entry read at the previous cycle's address
    addr_b, data_b          the second read (``second_read`` only), on the write's port: what it
                            reads in a cycle that writes is unspecified
    """

    def __init__(self, kind, width, depth, *, second_read=False):
        self._kind = TableKind(kind)
        self._width = width
        self._depth = depth
        self._second_read = second_read
        second = {"addr_b": In(range(depth)), "data_b": Out(width)} if second_read else {}
        super().__init__({
            "write": In(UnitWrite), "inspect": In(Inspect),
            "addr": In(range(depth)), "data": Out(width), **second,
        })

    @property
    def kind(self):
        return self._kind

    @property
    def depth(self):
        return self._depth

    def elaborate(self, platform):
        m = Module()
        # Named for sim/verilator.py, which drops its (all-zero) power-on contents.
        m.submodules.downloaded = memory = Memory(shape=self._width, depth=self._depth, init=[])
        write = memory.write_port()
        read = memory.read_port()
        abits = ceil_log2(self._depth)
        in_range = self.write.index < self._depth
        written = self.write.index[:abits]
        m.d.comb += [
            write.data.eq(self.write.data),
            write.en.eq(self.write.en & (self.write.table == self._kind) & in_range),
            read.addr.eq(self.addr),
            self.data.eq(read.data),
        ]
        with m.If(self.inspect.active):
            m.d.comb += read.addr.eq(self.inspect.index[:abits])
        if self._second_read:
            read_b = memory.read_port()
            port_b = Signal(abits)
            m.d.comb += [
                port_b.eq(Mux(write.en, written, self.addr_b)),
                write.addr.eq(port_b),
                read_b.addr.eq(port_b),
                read_b.en.eq(~write.en),
                self.data_b.eq(read_b.data),
            ]
        else:
            m.d.comb += write.addr.eq(written)
        return m


class ConfigWords(wiring.Component):
    """A unit's configuration register, written and read back as 24-bit CONFIG words.

    ``value`` is the register viewed through ``layout``; ``data`` is the word at the previous
    cycle's ``inspect.index`` (the same one-cycle latency as a table memory). Like the tables'
    memories it is downloaded state: a reset leaves it as it is.
    """

    def __init__(self, layout):
        self._layout = data.Layout.cast(layout)
        self._words = (self._layout.size + DATA_BITS - 1) // DATA_BITS
        super().__init__({
            "write": In(UnitWrite), "inspect": In(Inspect),
            "value": Out(self._layout), "data": Out(DATA_BITS),
        })

    @property
    def words(self):
        return self._words

    def elaborate(self, platform):
        m = Module()
        register = Signal(self._words * DATA_BITS, reset_less=True)
        m.d.comb += self.value.eq(register[:self._layout.size])
        is_config = self.write.en & (self.write.table == TableKind.CONFIG)
        with m.Switch(self.write.index):
            for word in range(self._words):
                with m.Case(word):
                    with m.If(is_config):
                        m.d.sync += register.word_select(word, DATA_BITS).eq(self.write.data)
        readback = Signal(DATA_BITS)
        with m.Switch(self.inspect.index):
            for word in range(self._words):
                with m.Case(word):
                    m.d.sync += readback.eq(register.word_select(word, DATA_BITS))
            with m.Default():
                m.d.sync += readback.eq(0)
        m.d.comb += self.data.eq(readback)
        return m
