"""The machine's top level (docs/architecture.md §4): move generator, evaluator, material
counter, Zobrist unit, move maker, repetition detector, transposition table and search
controller, the halfmove bus between them, and the ports through which the host link (or a
harness) sets up positions, downloads tables and runs jobs. The microprogram runs hardware
perft and the alpha-beta search.
"""

from amaranth import Module, Mux, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .encoding import Halfmove, HalfmovePair
from .eval.evaluator import Evaluator
from .eval.tables import FULL, UNIT_BITS, TableSelect, TableWrite
from .handshake import Pulse
from .movegen.generator import MoveGenerator
from .search.controller import SPEC, Controller, JobInterface, StartCommand
from .search.hashtable import HashEntry, TranspositionTable
from .search.maker import MoveMaker
from .search.material import MaterialCounter
from .search.microcode import program
from .search.microsequencer import MicroStoreLoader
from .search.repetition import RepetitionDetector, StackEntry
from .search.zobrist import ZobristUnit

__all__ = ["Machine", "MACHINE_PORTS", "StartCommand", "MICROCODE_UNIT"]

#: The download port's unit number for the micro-store (above every evaluator unit).
MICROCODE_UNIT = (1 << UNIT_BITS) - 1

#: The machine's ports (described in :class:`Machine`), whatever its parameters: the searching
#: machine's and the evaluation station's, and (flipped) the link's command executor's.
MACHINE_PORTS = wiring.Signature({
    "setup": In(stream.Signature(Halfmove)),
    "clear": In(1),
    "side_in": In(Pulse(1)),
    "job": Out(JobInterface),
    "write": In(stream.Signature(TableWrite)),
    "checksum_request": In(stream.Signature(TableSelect)),
    "checksum": Out(Pulse(32)),
    "history": In(stream.Signature(StackEntry)),
    "history_clear": In(1),
    "key": Out(64),
    "hash_clear": In(1),
    "hash_busy": Out(1),
    "hash_probe": Out(HashEntry),
    "hash_hit": Out(1),
    "static_value": Out(signed(16)),
    "static_valid": Out(1),
    "lean_generator": Out(1),
})


class Machine(wiring.Component):
    """The searching machine (docs/architecture.md §4): every unit on one halfmove bus.

    Interface attributes
    --------------------
    setup : In(stream of Halfmove)   halfmoves from the host, taken while no job runs (each on
                                     the bus a cycle after it is taken)
    clear : In(1)                    empty the board in one cycle: every piece and marker off
                                     every unit (while no job runs; no halfmove in that cycle)
    side_in : In(Pulse(1))           the side to move (1 = black), set while no job runs
    job : Out(JobInterface)          run hardware perft or a search from the position set up;
                                     stop it early (it unwinds to the root, restoring the
                                     board; its results are partial); its progress and result
    write : In(stream of TableWrite) the table-download port (while no job runs): the evaluator's
                                     tables, and unit MICROCODE_UNIT the micro-store (24-bit parts
                                     of each word at index word * PART_STRIDE + part)
    checksum_request : In(stream of TableSelect), checksum : Out(Pulse(32))   a table's CRC-32
    history : In(stream of StackEntry)   a position of the game before the root (Zobrist key,
                                     side included; whether the move reaching it was
                                     irreversible; its fifty-move clock), oldest first, the root
                                     last (while no job runs)
    history_clear : In(1)            forget the game's positions
    key : Out(64)                    the Zobrist key of the position on the board (side included)
    hash_clear : In(1)               empty the transposition table (2**hash_bits cycles)
    hash_busy : Out(1)
    hash_probe : Out(HashEntry), hash_hit : Out(1)   the table's entry for the position on the
                                     board (the host follows best moves for the principal variation)
    static_value : Out(signed(16))   the evaluator's value of the position on the board (White's
                                     view; it follows the search while a job runs)
    static_valid : Out(1)            ``static_value`` includes every halfmove and table write given
    lean_generator : Out(1)          a constant: the generator is the lean one
                                     (``legal_moves=False``: it leaves pins to the search, which
                                     makes and tests those moves, and perft makes every leaf; the
                                     search's nodes are the same)
    """

    def __init__(self, *, max_ply=64, eval_params=FULL, hash_bits=12, legal_moves=True):
        if max_ply > 64:
            raise ValueError(f"at most 64 plies (the depth field is 6 bits), not {max_ply}")
        if not 1 <= hash_bits <= 16:
            raise ValueError(f"the transposition table has 2**1 to 2**16 entries, not 2**{hash_bits}")
        self._max_ply, self._eval_params, self._hash_bits = max_ply, eval_params, hash_bits
        self._legal_moves = bool(legal_moves)
        #: The controller's microinstruction address (not a port: for simulations, e.g. profiles).
        self.micro_address = Signal(SPEC.address_bits)
        super().__init__(MACHINE_PORTS)

    def elaborate(self, platform):
        m = Module()
        microprogram = program()
        m.submodules.generator = generator = MoveGenerator(max_ply=self._max_ply, legal=self._legal_moves)
        m.submodules.evaluator = evaluator = Evaluator(self._eval_params, pairs=True, lookahead=True)
        m.submodules.material = material = MaterialCounter()
        m.submodules.zobrist = zobrist = ZobristUnit()
        m.submodules.repetition = repetition = RepetitionDetector()
        m.submodules.hashtable = hashtable = TranspositionTable(index_bits=self._hash_bits)
        m.submodules.maker = maker = MoveMaker(max_ply=self._max_ply)
        m.submodules.controller = controller = Controller(microprogram.assemble(), microprogram.address_of("idle"),
                                                          max_ply=self._max_ply, hash_bits=self._hash_bits)
        m.submodules.microcode_loader = loader = MicroStoreLoader(SPEC)
        idle = ~controller.job.busy

        # The search's units, each on its own interface.
        wiring.connect(m, wiring.flipped(self.job), controller.job)
        wiring.connect(m, controller.gen, generator.search)
        wiring.connect(m, controller.maker, maker.search)
        wiring.connect(m, controller.hash, hashtable.search)
        wiring.connect(m, loader.store, controller.microcode_write)
        wiring.connect(m, wiring.flipped(self.side_in), controller.side_in)
        wiring.connect(m, evaluator.checksum, wiring.flipped(self.checksum))

        # The halfmove bus: the maker's halfmoves (two a transfer), or the host's while no job
        # runs (one a transfer). A transfer goes to every unit in the same cycle, when all of
        # them take it. Both come from a register (the maker's output, the setup stage), so
        # the transfer of the next cycle is known a cycle ahead: the evaluator reads its
        # description tables with it (``upcoming``).
        bus = Signal(HalfmovePair)
        bus_valid, bus_ready = Signal(), Signal()
        m.d.comb += bus_ready.eq(generator.halfmove.ready & evaluator.halfmove.ready)
        for sink in (generator.halfmove, evaluator.halfmove, material.halfmove, zobrist.halfmove):
            m.d.comb += [sink.valid.eq(bus_valid & bus_ready), sink.payload.eq(bus)]
        staged = Signal(HalfmovePair)           # the setup stage: a host's halfmove
        staged_valid = Signal()
        staged_upcoming = Signal(HalfmovePair)
        with m.If(maker.halfmove.valid):
            m.d.comb += [bus_valid.eq(1), bus.eq(maker.halfmove.payload), maker.halfmove.ready.eq(bus_ready)]
        with m.Else():
            m.d.comb += [bus_valid.eq(staged_valid), bus.eq(staged)]
        staging = ~staged_valid | (bus_ready & ~maker.halfmove.valid)
        m.d.comb += [self.setup.ready.eq(staging & idle), staged_upcoming.eq(staged)]
        with m.If(staging):
            m.d.sync += staged_valid.eq(self.setup.valid & idle)
            m.d.comb += staged_upcoming.eq(0)
            m.d.comb += staged_upcoming.first.eq(self.setup.payload)
            m.d.sync += staged.eq(staged_upcoming)
        m.d.comb += evaluator.upcoming.eq(Mux(controller.job.busy, maker.upcoming, staged_upcoming))

        # The repetition detector's path: the game's history from the host while no job runs,
        # the search's path while one does.
        wiring.connect(m, controller.path, repetition.path)
        m.d.comb += [repetition.clear.eq(self.history_clear & idle),
                     repetition.history.valid.eq(self.history.valid & idle),
                     repetition.history.payload.eq(self.history.payload),
                     self.history.ready.eq(repetition.history.ready & idle)]

        # The side to move, the position's key, values and material, to the units that use them.
        m.d.comb += [
            generator.side.eq(controller.side), evaluator.side.eq(controller.side), zobrist.side.eq(controller.side),
            maker.markers.eq(generator.board.markers),
            controller.key.eq(zobrist.key), self.key.eq(zobrist.key),
            hashtable.key_next.eq(zobrist.key_next),
            controller.static.eq(evaluator.value), controller.static_valid.eq(evaluator.valid),
            self.static_value.eq(evaluator.value), self.static_valid.eq(evaluator.valid),
            self.lean_generator.eq(not self._legal_moves),
            controller.material.eq(material.balance), controller.pieces.eq(material.pieces),
            self.micro_address.eq(controller.micro_address),
        ]

        # The host's ports while no job runs: the board cleared, tables (and microcode) written
        # and checked, the table cleared and probed.
        to_microcode = self.write.payload.address.unit == MICROCODE_UNIT
        clear = self.clear & idle
        m.d.comb += [
            generator.clear.eq(clear), evaluator.clear.eq(clear), material.clear.eq(clear), zobrist.clear.eq(clear),
            evaluator.write.valid.eq(self.write.valid & idle & ~to_microcode & ~staged_valid & ~self.setup.valid),
            evaluator.write.payload.eq(self.write.payload),
            loader.write.valid.eq(self.write.valid & idle & to_microcode),
            loader.write.payload.index.eq(self.write.payload.address.index),
            loader.write.payload.data.eq(self.write.payload.data),
            # (not while a host's halfmove is on its way: the evaluator reads its tables with it)
            self.write.ready.eq(Mux(to_microcode, 1, evaluator.write.ready) & idle & ~staged_valid & ~self.setup.valid),
            evaluator.checksum_request.valid.eq(self.checksum_request.valid & idle),
            evaluator.checksum_request.payload.eq(self.checksum_request.payload),
            self.checksum_request.ready.eq(evaluator.checksum_request.ready & idle),
            hashtable.clear.eq(self.hash_clear & idle),
            self.hash_busy.eq(hashtable.busy),
            self.hash_probe.eq(hashtable.search.probe),
            self.hash_hit.eq(hashtable.search.hit),
        ]
        return m
