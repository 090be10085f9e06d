"""The evaluator: every unit of ``hdl/eval/units.py`` on the halfmove bus, the adder tree, the
table-download port and the checksum engine.

Latency: a transfer of halfmoves (one, or two with ``pairs``), side change, clear or table
write in cycle t is in ``value`` from cycle t + ``params.latency`` (4 with a combinational
adder tree, one more per tree stage), whatever the number of units — a cycle less for a
transfer, a side change or a clear when built with ``lookahead`` (:attr:`Evaluator.latency`);
``valid`` is high exactly when nothing is still on its way to ``value``.

With ``lookahead`` the description tables are read a cycle ahead of a transfer, at the indices
of ``upcoming`` (what ``halfmove`` carries in the next cycle, from a bus that sends from a
register), so that the accumulators take the transfer in its own cycle.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..encoding import HalfmoveOp, HalfmovePair
from ..handshake import Pulse
from .crc import Crc32
from .storage import Inspect
from .tables import (
    DATA_BITS,
    INDEX_BITS,
    PIECE_SQUARES,
    EvaluatorParams,
    TableKind,
    TableSelect,
    TableWrite,
    piece_square_index,
)
from .tree import AdderTree
from .units import Apply, FirstOrderUnit, GlobalStateUnit, RecognizerUnit

__all__ = ["Evaluator"]



class Evaluator(wiring.Component):
    """The whole evaluator.

    Interface attributes
    --------------------
    halfmove : In(stream of HalfmovePair)   a transfer per cycle, of one halfmove or (built with
                                            ``pairs``) two; not ready while a checksum sweeps
    side : In(1)                            the side to move (1 = black), for external bits
    clear : In(1)                           zero every accumulator and the first-order sum
    write : In(stream of TableWrite)        the table-download port (address map: tables.py)
    checksum_request : In(stream of TableSelect)
    checksum : Out(Pulse(32))               the table's CRC-32
    value : Out(signed(16))                 first-order sum + every recognizer's output
    valid : Out(1)                          ``value`` includes every input given so far
    upcoming : In(HalfmovePair)             (``lookahead`` only) the transfer ``halfmove``
                                            carries in the next cycle, if one (no table write
                                            may be offered while one is upcoming)
    """

    def __init__(self, params=None, *, pairs=False, lookahead=False):
        params = EvaluatorParams() if params is None else params
        self._params = params
        self._pairs = pairs
        self._lookahead = lookahead
        super().__init__({
            **({"upcoming": In(HalfmovePair)} if lookahead else {}),
            "halfmove": In(stream.Signature(HalfmovePair)),
            "side": In(1),
            "clear": In(1),
            "write": In(stream.Signature(TableWrite)),
            "checksum_request": In(stream.Signature(TableSelect)),
            "checksum": Out(Pulse(32)),
            "value": Out(signed(16)),
            "valid": Out(1),
        })

    @property
    def params(self):
        return self._params

    @property
    def latency(self):
        """Cycles from a transfer, side change or clear to the value that includes it."""
        return self._params.latency - self._lookahead

    def elaborate(self, platform):
        m = Module()
        p = self._params

        pairs = self._pairs
        first_order = FirstOrderUnit(pairs=pairs)
        globals_ = [GlobalStateUnit(p, pairs=pairs) for _ in range(p.globals)]
        recognizers = [RecognizerUnit(p, p.shape(k), pairs=pairs) for k in range(p.recognizers)]
        m.submodules.first_order = first_order
        for k, unit in enumerate(globals_):
            m.submodules[f"global{k}"] = unit
        for k, unit in enumerate(recognizers):
            m.submodules[f"recognizer{k}"] = unit
        units = [first_order, *globals_, *recognizers]

        sweeping = Signal()
        # A table is not written in a cycle a transfer reads it (what that read returns is not
        # specified: fpga/build.py): a write waits for the halfmoves.
        m.d.comb += [self.halfmove.ready.eq(~sweeping), self.write.ready.eq(~sweeping & ~self.halfmove.valid)]

        # --- the halfmove broadcast: the description tables read at the indices of the
        # transfer (or, with lookahead, of the upcoming one), applied a cycle later (or, with
        # lookahead, in the transfer's own cycle) ------------------------------------------
        transfer = self.halfmove.payload
        addressed = self.upcoming if self._lookahead else transfer
        taken = self.halfmove.valid & self.halfmove.ready
        index = [Signal(range(PIECE_SQUARES), name=f"index{k}") for k in range(2)]
        apply = [Signal(Apply, name=f"apply{k}") for k in range(2)]
        applying = m.d.comb if self._lookahead else m.d.sync
        for k, (read, halfmove, present) in enumerate(((addressed.first, transfer.first, 1),
                                                       (addressed.second, transfer.second, transfer.both & pairs))):
            with m.Switch(read.piece.as_value()):
                for code in range(16):
                    row = piece_square_index(code, 0)
                    if row is not None:
                        with m.Case(code):
                            m.d.comb += index[k].eq(row | read.square)
            is_piece = Signal(name=f"is_piece{k}")
            pieces = sum(1 << code for code in range(16) if piece_square_index(code, 0) is not None)
            m.d.comb += is_piece.eq(Const(pieces, 16).bit_select(halfmove.piece.as_value(), 1))
            applying += [
                apply[k].valid.eq(taken & present & is_piece),
                apply[k].place.eq(halfmove.op == HalfmoveOp.PLACE),
            ]
        side = Signal()         # the side as last seen (a change is on its way to the value)
        clear = Signal()
        m.d.sync += side.eq(self.side)
        applying += clear.eq(self.clear)
        aligned_side = self.side if self._lookahead else side   # in step with ``apply``

        # --- the download port, decoded per unit ----------------------------------------------
        address = self.write.payload.address
        inspect = Signal(Inspect)
        for number, unit in enumerate(units):
            m.d.comb += [
                *(unit.index[k].eq(index[k]) for k in range(2)),
                *(unit.apply[k].eq(apply[k]) for k in range(2)),
                unit.clear.eq(clear),
                unit.write.en.eq(self.write.valid & self.write.ready & (address.unit == number)),
                unit.write.table.eq(address.table),
                unit.write.index.eq(address.index),
                unit.write.data.eq(self.write.payload.data),
                unit.inspect.eq(inspect),
            ]
        for unit in recognizers:
            m.d.comb += unit.side.eq(aligned_side)
            for k, source in enumerate(globals_):
                m.d.comb += unit.global_output[k].eq(source.output)

        # --- the value ------------------------------------------------------------------------
        m.submodules.tree = tree = AdderTree(1 + p.recognizers, 16, p.tree_stages)
        m.d.comb += tree.terms[0].eq(first_order.value)
        for k, unit in enumerate(recognizers):
            m.d.comb += tree.terms[1 + k].eq(unit.value)
        m.d.comb += self.value.eq(tree.total)

        changing = Signal()
        settling = Signal(range(p.latency + 1))
        written = (self.write.valid & self.write.ready) | sweeping
        m.d.comb += changing.eq((self.halfmove.valid & self.halfmove.ready) | (self.side != side)
                                | self.clear | written)
        with m.If(written):                 # a map written: read through every level
            m.d.sync += settling.eq(p.latency - 1)
        with m.Elif(changing):
            m.d.sync += settling.eq(Mux(settling > self.latency - 1, settling - 1, self.latency - 1))
        with m.Elif(settling != 0):
            m.d.sync += settling.eq(settling - 1)
        m.d.comb += self.valid.eq(~changing & (settling == 0))

        self._checksum_engine(m, units, inspect, sweeping)
        return m

    def _checksum_engine(self, m, units, inspect, sweeping):
        """Sweep one table through its unit's read ports into a CRC-32."""
        p = self._params
        request = self.checksum_request
        size = Signal(INDEX_BITS + 1)
        with m.Switch(Cat(request.payload.table, request.payload.unit)):
            for unit, kind in p.tables():
                with m.Case(kind.value | unit << 3):
                    m.d.comb += size.eq(p.table_geometry(unit, kind)[0])
        remaining = Signal(INDEX_BITS + 1)      # entries still to be issued
        index = Signal(INDEX_BITS)
        table = Signal(TableKind)
        unit_number = Signal(range(len(units)))
        issued = Signal()                       # an entry was addressed last cycle
        sample = Signal(DATA_BITS)
        sampled = Signal()
        m.submodules.crc = crc = Crc32(DATA_BITS)

        m.d.comb += [request.ready.eq(~sweeping),
                     inspect.active.eq(sweeping), inspect.index.eq(index), inspect.table.eq(table)]
        m.d.comb += [crc.update.eq(sampled), crc.data.eq(sample)]
        m.d.sync += self.checksum.valid.eq(0)
        with m.If(request.valid & request.ready):
            m.d.sync += [
                sweeping.eq(1), remaining.eq(size), index.eq(0),
                table.eq(request.payload.table), unit_number.eq(request.payload.unit),
            ]
            m.d.comb += crc.start.eq(1)
        with m.If(sweeping):
            m.d.sync += issued.eq(remaining != 0)
            with m.If(remaining != 0):
                m.d.sync += [remaining.eq(remaining - 1), index.eq(index + 1)]
            with m.Elif(~issued & ~sampled):
                m.d.sync += [sweeping.eq(0), self.checksum.valid.eq(1)]
        m.d.comb += self.checksum.payload.eq(crc.crc)
        # The addressed entry arrives from the unit's table a cycle after its index.
        m.d.sync += sampled.eq(issued)
        with m.Switch(unit_number):
            for number, unit in enumerate(units):
                with m.Case(number):
                    m.d.sync += sample.eq(unit.inspect_data)
