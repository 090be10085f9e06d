"""The machine's top level: move generator, evaluator, material counter, move maker and search
controller on one halfmove bus, with a host port to set up positions, download tables and start
jobs (the UART link drives it in issue 5; until then tests and the simulated machine drive it
directly). The microprogram runs hardware perft and the alpha-beta search.
"""

from amaranth import Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .encoding import Halfmove, MoveWord
from .eval.evaluator import ChecksumResult, Evaluator
from .eval.tables import FULL, UNIT_BITS, TableSelect, TableWrite
from .movegen.generator import MoveGenerator
from .search.controller import SPEC, Controller, StartCommand
from .search.hashtable import TableEntry, TranspositionTable
from .search.maker import MoveMaker
from .search.material import MaterialCounter
from .search.microcode import program
from .search.microsequencer import MicroStoreLoader
from .search.repetition import RepetitionDetector, StackEntry
from .search.zobrist import ZobristUnit

__all__ = ["Machine", "MACHINE_PORTS", "SideIn", "StartCommand", "MICROCODE_UNIT"]

#: The download port's unit number for the micro-store (above every evaluator unit).
MICROCODE_UNIT = (1 << UNIT_BITS) - 1

#: Setting the side to move from the host.
SideIn = data.StructLayout({"valid": 1, "side": 1})

#: The machine's ports (described in :class:`Machine`), whatever its parameters.
MACHINE_PORTS = wiring.Signature({
    "setup": In(stream.Signature(Halfmove)),
    "clear": In(1),
    "side_in": In(SideIn),
    "start": In(StartCommand),
    "stop": In(1),
    "busy": Out(1),
    "stopped": Out(1),
    "count": Out(64),
    "cycles": Out(64),
    "score": Out(signed(16)),
    "best_move": Out(MoveWord),
    "write": In(stream.Signature(TableWrite)),
    "checksum_request": In(stream.Signature(TableSelect)),
    "checksum": Out(ChecksumResult),
    "history": In(data.StructLayout({"valid": 1, "entry": StackEntry})),
    "history_clear": In(1),
    "history_ready": Out(1),
    "key": Out(64),
    "hash_clear": In(1),
    "hash_busy": Out(1),
    "hash_probe": Out(TableEntry),
    "hash_hit": Out(1),
    "static_value": Out(signed(16)),
    "static_valid": Out(1),
})


class Machine(wiring.Component):
    """Interface attributes
    --------------------
    setup : In(stream of Halfmove)   halfmoves from the host, taken while no job runs
    clear : In(1)                    empty the board in one cycle: every piece and marker off
                                     every unit (while no job runs; no halfmove in that cycle)
    side_in : In({valid, side})      the side to move, set while no job runs
    start : In(StartCommand)         run hardware perft or a search from the position set up
    stop : In(1)                     end the running job early (it unwinds to the root, restoring
                                     the board; its results are partial)
    busy : Out(1)
    stopped : Out(1)                 the last job was stopped
    count, cycles : Out(64)          the last job's nodes (perft: leaves) and length
    score : Out(signed(16)), best_move : Out(MoveWord)   the last search's result
    write : In(stream of TableWrite) the table-download port (while no job runs): the evaluator's
                                     tables, and unit MICROCODE_UNIT the micro-store (24-bit parts
                                     of each word at index word * PART_STRIDE + part)
    checksum_request : In(stream of TableSelect), checksum : Out(ChecksumResult)
    history : In({valid, entry})     a position of the game before the root (Zobrist key, side
                                     included; whether the move reaching it was irreversible),
                                     oldest first, the root last (while no job runs)
    history_clear : In(1)            forget the game's positions
    history_ready : Out(1)
    key : Out(64)                    the Zobrist key of the position on the board (side included)
    hash_clear : In(1)               empty the transposition table (2**hash_bits cycles)
    hash_busy : Out(1)
    hash_probe : Out(TableEntry), hash_hit : Out(1)   the table's entry for the position on the
                                     board (the host follows best moves for the principal variation)
    static_value : Out(signed(16))   the evaluator's value of the position on the board (White's
                                     view; it follows the search while a job runs)
    static_valid : Out(1)            ``static_value`` includes every halfmove and table write given
    """

    def __init__(self, *, max_ply=64, eval_params=FULL, hash_bits=12):
        if max_ply > 64:
            raise ValueError(f"at most 64 plies (the depth field is 6 bits), not {max_ply}")
        if not 1 <= hash_bits <= 16:
            raise ValueError(f"the transposition table has 2**1 to 2**16 entries, not 2**{hash_bits}")
        self._max_ply, self._eval_params, self._hash_bits = max_ply, eval_params, hash_bits
        #: The controller's microinstruction address (not a port: for simulations, e.g. profiles).
        self.micro_address = Signal(SPEC.address_bits)
        super().__init__(MACHINE_PORTS)

    def elaborate(self, platform):
        m = Module()
        microprogram = program()
        m.submodules.generator = generator = MoveGenerator(max_ply=self._max_ply)
        m.submodules.evaluator = evaluator = Evaluator(self._eval_params)
        m.submodules.material = material = MaterialCounter()
        m.submodules.zobrist = zobrist = ZobristUnit()
        m.submodules.repetition = repetition = RepetitionDetector()
        m.submodules.hashtable = hashtable = TranspositionTable(index_bits=self._hash_bits)
        m.submodules.maker = maker = MoveMaker(max_ply=self._max_ply)
        m.submodules.controller = controller = Controller(microprogram.assemble(), microprogram.address_of("idle"),
                                                          max_ply=self._max_ply, hash_bits=self._hash_bits)

        # The halfmove bus: the maker's halfmoves, or the host's while the maker is idle. A
        # halfmove goes to every unit in the same cycle, when all of them take it.
        bus_valid, bus_payload = Signal(), Signal(Halfmove)
        sinks = [generator.halfmove, evaluator.halfmove, material.halfmove, zobrist.halfmove]
        bus_ready = Signal()
        m.d.comb += bus_ready.eq(generator.halfmove.ready & evaluator.halfmove.ready)
        for sink in sinks:
            m.d.comb += [sink.valid.eq(bus_valid & bus_ready), sink.payload.eq(bus_payload)]
        with m.If(maker.halfmove.valid):
            m.d.comb += [bus_valid.eq(1), bus_payload.eq(maker.halfmove.payload),
                         maker.halfmove.ready.eq(bus_ready)]
        with m.Else():
            m.d.comb += [bus_valid.eq(self.setup.valid & ~controller.busy), bus_payload.eq(self.setup.payload),
                         self.setup.ready.eq(bus_ready & ~controller.busy)]

        # Table (and microcode) downloads and checksums while no job runs.
        m.submodules.microcode_loader = loader = MicroStoreLoader(SPEC)
        idle = ~controller.busy
        to_microcode = self.write.payload.address.unit == MICROCODE_UNIT
        clear = self.clear & idle
        m.d.comb += [generator.clear.eq(clear), evaluator.clear.eq(clear), material.clear.eq(clear),
                     zobrist.clear.eq(clear)]
        m.d.comb += [
            evaluator.write.valid.eq(self.write.valid & idle & ~to_microcode),
            evaluator.write.payload.eq(self.write.payload),
            loader.write.valid.eq(self.write.valid & idle & to_microcode),
            loader.write.index.eq(self.write.payload.address.index),
            loader.write.data.eq(self.write.payload.data),
            controller.microcode_write.eq(loader.store),
            self.write.ready.eq(Mux(to_microcode, 1, evaluator.write.ready) & idle),
            evaluator.checksum_request.valid.eq(self.checksum_request.valid & idle),
            evaluator.checksum_request.payload.eq(self.checksum_request.payload),
            self.checksum_request.ready.eq(evaluator.checksum_request.ready & idle),
            self.checksum.eq(evaluator.checksum),
            evaluator.side.eq(controller.side),
            controller.static.eq(evaluator.value),
            controller.static_valid.eq(evaluator.valid),
            self.static_value.eq(evaluator.value),
            self.static_valid.eq(evaluator.valid),
            controller.material.eq(material.balance),
            zobrist.side.eq(controller.side),
            controller.key.eq(zobrist.key),
            self.key.eq(zobrist.key),
            controller.irreversible.eq(maker.irreversible),
            controller.path_ready.eq(repetition.ready),
            controller.repeated.eq(repetition.repeated),
            repetition.pop.eq(controller.path_pop),
            repetition.clear.eq(self.history_clear & idle),
            self.history_ready.eq(repetition.ready & idle),
            hashtable.key_next.eq(zobrist.key_next),
            controller.table_probe.eq(hashtable.probe),
            controller.table_hit.eq(hashtable.hit),
            hashtable.slot_index.eq(controller.table_slot_index),
            controller.table_slot.eq(hashtable.slot),
            hashtable.store.eq(controller.table_store),
            hashtable.clear.eq(self.hash_clear & idle),
            self.hash_busy.eq(hashtable.busy),
            self.hash_probe.eq(hashtable.probe),
            self.hash_hit.eq(hashtable.hit),
        ]
        with m.If(controller.busy):
            m.d.comb += repetition.push.eq(controller.path_push)
        with m.Else():
            m.d.comb += [repetition.push.valid.eq(self.history.valid), repetition.push.entry.eq(self.history.entry)]

        wiring.connect(m, controller.gen_request, generator.request)
        m.d.comb += [
            controller.gen_response.valid.eq(generator.response.valid),
            controller.gen_response.payload.eq(generator.response.payload),
            controller.king_attacked.eq(generator.king_attacked),
            controller.in_check.eq(generator.in_check),
            generator.side.eq(controller.side),
            controller.maker_idle.eq(maker.idle),
            maker.markers.eq(generator.board.markers),
            controller.side_in.eq(self.side_in),
            controller.start.eq(self.start),
            controller.stop.eq(self.stop),
            self.busy.eq(controller.busy),
            self.stopped.eq(controller.stopped),
            self.count.eq(controller.count),
            self.cycles.eq(controller.cycles),
            self.score.eq(controller.score),
            self.best_move.eq(controller.best_move),
            self.micro_address.eq(controller.micro_address),
        ]
        wiring.connect(m, controller.maker_command, maker.command)
        return m
