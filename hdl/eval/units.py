"""The evaluator's units: first-order, global-state and recognizer.

Every unit listens to the same broadcast: ``index`` (the piece x square indices of the one or
two halfmoves of a transfer on the bus, used as the description tables' read addresses in the
cycle of the transfer) and, one cycle later, ``apply`` (whether each halfmove is applied and
whether it places or removes) together with the description data read for it. A unit built
for pairs (``pairs``) reads its description table on both block-RAM ports and applies both
halfmoves, the first then the second; one that is not ignores the second. Timing from a
transfer in cycle t:

====  ===========================================================================
t     description tables read at the halfmove's index
t+1   accumulators and first-order sum take their next value; first-level maps
      (and the global maps) are read at that next value
t+2   combining maps read; the global map outputs selected as context (registered)
t+3   final maps read, with that context
t+4   a recognizer's ``value`` (its final map output, shifted) is valid
====  ===========================================================================
"""

from amaranth import Cat, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .accumulator import FieldAccumulator
from .storage import ConfigWords, Inspect, TableMemory, UnitWrite
from .tables import DATA_BITS, HALF_BITS, MAP_WIDTH, PIECE_SQUARES, STATE_BITS, ExtSource, TableKind

__all__ = ["Apply", "FirstOrderUnit", "GlobalStateUnit", "RecognizerUnit"]

#: A halfmove being applied this cycle (registered from the bus transfer).
Apply = data.StructLayout({"valid": 1, "place": 1})

_VALUE_BITS = 16


def _common_signature():
    return {
        "index": In(range(PIECE_SQUARES)).array(2), "apply": In(Apply).array(2), "clear": In(1),
        "write": In(UnitWrite), "inspect": In(Inspect), "inspect_data": Out(DATA_BITS),
    }


def _description(m, unit, table, amounts):
    """Read the description ``table`` at the transfer's indices (the second on its second port
    when it has one), giving ``amounts`` their entries."""
    m.d.comb += [table.addr.eq(unit.index[0]), amounts[0].eq(table.data)]
    if "addr_b" in table.signature.members:
        m.d.comb += [table.addr_b.eq(unit.index[1]), amounts[1].eq(table.data_b)]


def _accumulate(m, unit, description, accumulator, pairs):
    """Feed ``accumulator`` the description entries of the halfmoves ``unit`` applies (the
    second only when built for ``pairs``)."""
    _description(m, unit, description, accumulator.amount)
    for k in range(2 if pairs else 1):
        m.d.comb += [accumulator.valid[k].eq(unit.apply[k].valid), accumulator.place[k].eq(unit.apply[k].place)]


def _storage(m, unit, *tables):
    """Connect the download write and the sweep to the unit's ``tables`` and
    drive ``unit.inspect_data`` from the one the sweep names."""
    for table in tables:
        m.d.comb += [table.write.eq(unit.write), table.inspect.eq(unit.inspect)]
    with m.Switch(unit.inspect.table):
        for table in tables:
            with m.Case(getattr(table, "kind", TableKind.CONFIG)):
                m.d.comb += unit.inspect_data.eq(table.data)


class FirstOrderUnit(wiring.Component):
    """The first-order sum: the sum of g(piece, square) over the pieces on the board.

    ``value`` (signed 16, wrapping) is registered: valid one cycle after ``apply``.
    """

    def __init__(self, *, pairs=False):
        self._pairs = pairs
        super().__init__(_common_signature() | {"value": Out(signed(_VALUE_BITS))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.description = table = TableMemory(TableKind.DESCRIPTION, _VALUE_BITS, PIECE_SQUARES,
                                                       second_read=self._pairs)
        _storage(m, self, table)
        g = [Signal(signed(_VALUE_BITS), name=f"g{k}") for k in range(2)]
        _description(m, self, table, g)
        terms = [Mux(self.apply[k].valid, Mux(self.apply[k].place, g[k], -g[k]), 0)
                 for k in range(2 if self._pairs else 1)]
        with m.If(self.clear):
            m.d.sync += self.value.eq(0)
        with m.Else():
            m.d.sync += self.value.eq(sum(terms, self.value))
        return m


class GlobalStateUnit(wiring.Component):
    """A global-state recognizer: a field accumulator and one map.

    ``output`` is the map at the accumulator's next value, one cycle after ``apply``.
    """

    def __init__(self, params, *, pairs=False):
        self._params, self._pairs = params, pairs
        super().__init__(_common_signature() | {
            "output": Out(MAP_WIDTH),
        })

    def elaborate(self, platform):
        m = Module()
        bits = self._params.global_bits
        m.submodules.description = description = TableMemory(TableKind.DESCRIPTION, bits, PIECE_SQUARES,
                                                             second_read=self._pairs)
        m.submodules.map = state_map = TableMemory(TableKind.MAP_A, MAP_WIDTH, 1 << bits)
        m.submodules.config = config = ConfigWords(self._params.global_config)
        m.submodules.accumulator = accumulator = FieldAccumulator(bits)
        _storage(m, self, description, state_map, config)
        _accumulate(m, self, description, accumulator, self._pairs)
        m.d.comb += [
            accumulator.tops.eq(config.value.field_tops),
            accumulator.clear.eq(self.clear),
            state_map.addr.eq(accumulator.next),
            self.output.eq(state_map.data),
        ]
        return m


class RecognizerUnit(wiring.Component):
    """A recognizer: a 24-bit field accumulator and three levels of maps (their widths: a
    :class:`~hdl.eval.tables.RecognizerShape`).

    ``value`` is the final map's 8-bit output sign-extended and shifted left by the configured
    shift (signed 16, wrapping), combinational from the final map: valid 4 cycles after the
    halfmove's transfer (see the module's timing table).

    Interface attributes (besides the common ones)
    ----------------------------------------------
    side : In(1)             the side to move, registered like ``apply`` (aligned with it)
    global_output : In(array of 8)            every global unit's ``output``
    value : Out(signed(16))
    """

    def __init__(self, params, shape, *, pairs=False):
        self._params, self._shape, self._pairs = params, shape, pairs
        globals_ = max(1, params.globals)
        super().__init__(_common_signature() | {
            "side": In(1),
            "global_output": In(data.ArrayLayout(MAP_WIDTH, globals_)),
            "value": Out(signed(_VALUE_BITS)),
        })

    def elaborate(self, platform):
        m = Module()
        p, shape = self._params, self._shape
        m.submodules.description = description = TableMemory(TableKind.DESCRIPTION, STATE_BITS, PIECE_SQUARES,
                                                             second_read=self._pairs)
        m.submodules.map_a = map_a = TableMemory(TableKind.MAP_A, MAP_WIDTH, 1 << shape.branch_bits)
        m.submodules.map_b = map_b = TableMemory(TableKind.MAP_B, MAP_WIDTH, 1 << shape.branch_bits)
        m.submodules.map_combine = combine = TableMemory(TableKind.MAP_COMBINE, MAP_WIDTH, 1 << shape.combine_bits)
        m.submodules.map_final = final = TableMemory(TableKind.MAP_FINAL, MAP_WIDTH, 1 << shape.final_bits)
        m.submodules.config = config_words = ConfigWords(p.recognizer_config)
        m.submodules.accumulator = accumulator = FieldAccumulator(STATE_BITS)
        _storage(m, self, description, map_a, map_b, combine, final, config_words)
        config = config_words.value

        _accumulate(m, self, description, accumulator, self._pairs)
        m.d.comb += [accumulator.tops.eq(config.field_tops), accumulator.clear.eq(self.clear)]
        state = accumulator.next
        low = shape.branch_bits - 1
        m.d.comb += [
            map_a.addr.eq(Cat(state[:low], self.side & (config.ext_a == ExtSource.SIDE))),
            map_b.addr.eq(Cat(state[HALF_BITS:HALF_BITS + low], self.side & (config.ext_b == ExtSource.SIDE))),
            combine.addr.eq(Cat(map_a.data[:shape.combine_a], map_b.data[:shape.combine_b])),
            final.addr.eq(Cat(combine.data[:shape.final_state_bits],
                              *(self._context(m, config.context[k], bits, k)
                                for k, bits in enumerate(shape.context_bits)))),
        ]
        shifted = Signal(signed(_VALUE_BITS))
        m.d.comb += [
            shifted.eq(final.data.as_signed() << config.shift),
            self.value.eq(shifted),
        ]
        return m

    def _context(self, m, select, bits, k):
        """``bits`` bits of the selected global unit's output from the selector's offset.

        Registered: the global maps are read a cycle before the combining maps, so the
        selection has a cycle of its own before the final map's address (no added latency).
        """
        part = Signal(bits, name=f"context{k}")
        m.d.sync += part.eq(0)
        with m.If(select.enable):
            with m.Switch(select.unit):
                for j in range(self._params.globals):
                    with m.Case(j):
                        m.d.sync += part.eq(self.global_output[j] >> select.offset)
        return part
