"""Executes the link's command frames on the machine (protocol: ``protocol.py``)."""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..encoding import Halfmove
from ..eval.tables import TableAddress, TableSelect
from ..top import MACHINE_PORTS
from .framing import MAX_REPLY, FrameInterface, ReplyInterface, receive_depth
from .protocol import (
    HALFMOVE_BYTES,
    HISTORY_BYTES,
    MAX_FRAME,
    NAK,
    PROTOCOL_VERSION,
    REPLY,
    WRITE_WORD_BYTES,
    Command,
    Evaluation,
    EvaluatorShape,
    Fill,
    HistoryEntry,
    NakReason,
    PositionFlags,
    Probe,
    Start,
    Status,
    evaluator_shape,
    payload_bytes,
)

__all__ = ["CommandExecutor"]

GATHER_BYTES = max(HISTORY_BYTES, payload_bytes(Start))     # the widest field read at once


class CommandExecutor(wiring.Component):
    """Reads a good frame from the receive buffer, acts on the machine and writes the reply.

    A frame whose sequence number and type equal the last one executed has its reply sent
    again instead. A payload's length is checked before anything is done, so a refused command
    changes nothing. While a job runs only STATUS and STOP are taken; the others are refused
    with ``NAK BUSY``. A node limit from START stops the job when its count reaches the limit.
    A machine of ``max_ply`` 0 (the evaluation station, ``hdl/station.py``) runs no jobs: the
    commands of the search (HISTORY, START, STOP, PROBE, HASH_CLEAR) are ``NAK UNKNOWN`` there.
    STATUS gives the build's parameters: ``max_ply``, ``hash_bits``, ``clock_hz``, the
    evaluator's shape (``eval_params``), ``max_frame``, the receive buffers' size, and whether
    the generator is the lean one (the machine's ``lean_generator``).

    Latency: a few cycles per payload byte, plus the machine's own (a halfmove's; HASH_CLEAR:
    the table's sweep). Emptying the board is the machine's ``clear``, one cycle.

    Interface attributes
    --------------------
    receiver : In(FrameInterface)           good frames, the counters (for STATUS); ``free``:
                                            no frame being executed
    buffer_addr : Out(range(2 * max_frame)), buffer_data : In(8)   the receive memory
                                            (synchronous read: data one cycle after address)
    transmitter : Out(ReplyInterface)       replies
    machine : the machine's ports, flipped
    """

    def __init__(self, *, max_ply, hash_bits, clock_hz, eval_params, max_frame=MAX_FRAME):
        self._max_ply, self._hash_bits, self._clock_hz = max_ply, hash_bits, int(clock_hz)
        self._eval_params, self._max_frame = eval_params, max_frame
        super().__init__({
            "receiver": In(FrameInterface(max_frame)),
            "buffer_addr": Out(range(receive_depth(max_frame))),
            "buffer_data": In(8),
            "transmitter": Out(ReplyInterface),
            "machine": Out(MACHINE_PORTS.flip()),
        })

    def _commands(self):
        """``(command, fixed payload bytes, bytes per record, state)`` of each command taken."""
        commands = [
            (Command.STATUS, 0, 0, "STATUS"), (Command.RESET, 0, 0, "RESET"),
            (Command.POSITION, 1, HALFMOVE_BYTES, "POSITION"),
            (Command.WRITE, payload_bytes(TableAddress), WRITE_WORD_BYTES, "WRITE"),
            (Command.CHECKSUM, payload_bytes(TableSelect), 0, "CHECKSUM"),
            (Command.FILL, payload_bytes(Fill), 0, "FILL"),
            (Command.EVALUATE, 0, 0, "EVALUATE"),
        ]
        if self._max_ply:
            commands += [
                (Command.HISTORY, 1, HISTORY_BYTES, "HISTORY"),
                (Command.START, payload_bytes(Start), 0, "START"),
                (Command.STOP, 0, 0, "STOP"), (Command.PROBE, 0, 0, "PROBE"),
                (Command.HASH_CLEAR, 0, 0, "HASH_CLEAR"),
            ]
        return commands

    def elaborate(self, platform):
        m = Module()
        machine, max_frame = self.machine, self._max_frame
        receiver, transmitter = self.receiver, self.transmitter
        bank = Signal()
        length = Signal(range(max_frame + 1))       # sequence, type and payload
        index = Signal(range(max_frame + 1))        # the next byte to read
        m.d.comb += self.buffer_addr.eq(Cat(index[:max_frame.bit_length() - 1], bank))
        sequence, kind = Signal(8), Signal(8)
        last_sequence, last_kind, has_last = Signal(8), Signal(8), Signal()

        # Gathering payload bytes: ``gathered`` shifts each byte in from the top, so an n-byte
        # little-endian field is its top n bytes.
        gathered = Signal(8 * GATHER_BYTES)
        left = Signal(range(GATHER_BYTES + 1))      # bytes still to gather for the field
        primed = Signal()                           # buffer_data holds the byte at index - 1

        def top_bytes(count):
            return gathered[8 * (GATHER_BYTES - count):]

        # The reply: header and payload shifted out a byte per cycle into the reply buffer.
        outgoing = Signal(8 * MAX_REPLY)
        out_length = Signal(range(MAX_REPLY + 1))
        out_index = Signal(range(MAX_REPLY + 1))

        def reply(payload=None, size=0, nak=None):
            header = Cat(sequence, Const(NAK, 8) if nak is not None else (kind | REPLY))
            body = Const(nak, 8) if nak is not None else (payload if payload is not None else Const(0, 0))
            m.d.sync += [outgoing.eq(Cat(header, body)), out_length.eq(2 + (1 if nak is not None else size)),
                         out_index.eq(0)]
            m.next = "REPLY"

        # Limits and checks.
        payload_length = Signal(range(max_frame + 1))
        m.d.comb += payload_length.eq(length - 2)
        remainder = Signal(range(max_frame + 1))    # for checking a payload is whole records
        record = Signal(range(GATHER_BYTES + 1))
        node_limit = Signal(64)
        with m.If(machine.job.busy & (node_limit != 0) & (machine.job.count >= node_limit)):
            m.d.comb += machine.job.stop.eq(1)

        flags = Signal(PositionFlags)
        address = Signal(TableAddress)
        fill_count, fill_data = Signal(16), Signal(24)
        wait = Signal(2)

        def gather(count, then):
            m.d.sync += left.eq(count)
            m.next = then

        def gathering():
            """Shift in a byte per cycle until the field is whole; true in the cycle it is."""
            whole = Signal()
            with m.If(left != 0):
                with m.If(primed):
                    m.d.sync += [gathered.eq(Cat(gathered[8:], self.buffer_data)), left.eq(left - 1)]
                    with m.If(left != 1):
                        m.d.sync += index.eq(index + 1)
                with m.Else():
                    m.d.sync += [primed.eq(1), index.eq(index + 1)]
            m.d.comb += whole.eq(left == 0)
            return whole

        def next_field(count):
            """Start gathering the next field of ``count`` bytes (index is at its first byte)."""
            m.d.sync += [left.eq(count), primed.eq(0)]

        def done_with_payload():
            """At a record boundary with no byte left."""
            return ~primed & (index >= length)

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += receiver.free.eq(1)
                with m.If(receiver.frame.valid):
                    m.d.sync += [bank.eq(receiver.frame.payload.bank), length.eq(receiver.frame.payload.length),
                                 index.eq(0), primed.eq(0)]
                    gather(2, "HEADER")
            with m.State("HEADER"):
                with m.If(gathering()):
                    m.d.sync += [sequence.eq(top_bytes(2)[:8]), kind.eq(top_bytes(2)[8:16]),
                                 index.eq(2), primed.eq(0)]
                    m.next = "DISPATCH"
            with m.State("DISPATCH"):
                m.d.sync += [last_sequence.eq(sequence), last_kind.eq(kind), has_last.eq(1)]
                with m.If(has_last & (sequence == last_sequence) & (kind == last_kind)):
                    m.next = "RESEND"
                with m.Elif(machine.job.busy & (kind != Command.STATUS) & (kind != Command.STOP)
                            & (kind >= min(Command)) & (kind <= max(Command))):
                    reply(nak=NakReason.BUSY)
                with m.Else():
                    with m.Switch(kind):
                        for command, payload, per_record, state in self._commands():
                            with m.Case(command):
                                if per_record:
                                    with m.If(payload_length < payload):
                                        reply(nak=NakReason.LENGTH)
                                    with m.Else():
                                        m.d.sync += [remainder.eq(payload_length - payload), record.eq(per_record)]
                                        m.next = f"CHECK_{state}"
                                else:
                                    with m.If(payload_length != payload):
                                        reply(nak=NakReason.LENGTH)
                                    with m.Else():
                                        gather(payload, state)
                        with m.Default():
                            reply(nak=NakReason.UNKNOWN)

            # --- a payload of whole records: its length after the fixed part is a multiple ----
            for state in ("POSITION", "HISTORY", "WRITE"):
                with m.State(f"CHECK_{state}"):
                    with m.If(remainder == 0):
                        fixed = 1 if state != "WRITE" else payload_bytes(TableAddress)
                        gather(fixed, f"{state}_FIXED")
                    with m.Elif(remainder < record):
                        reply(nak=NakReason.LENGTH)
                    with m.Else():
                        m.d.sync += remainder.eq(remainder - record)

            with m.State("RESEND"):
                with m.If(transmitter.ready):
                    m.d.comb += transmitter.resend.eq(1)
                    m.next = "IDLE"

            with m.State("STATUS"):
                status = Signal(Status)
                m.d.comb += [
                    status.flags.busy.eq(machine.job.busy), status.flags.stopped.eq(machine.job.stopped),
                    status.flags.lean_generator.eq(machine.lean_generator),
                    status.count.eq(machine.job.count), status.cycles.eq(machine.job.cycles),
                    status.score.eq(machine.job.score), status.best_move.eq(machine.job.best_move),
                    status.key.eq(machine.key),
                    status.frames.eq(receiver.counters.frames), status.dropped.eq(receiver.counters.dropped),
                    status.oversized.eq(receiver.counters.oversized), status.overruns.eq(receiver.counters.overruns),
                    status.version.eq(PROTOCOL_VERSION), status.max_ply.eq(self._max_ply),
                    status.hash_bits.eq(self._hash_bits), status.clock_hz.eq(self._clock_hz),
                    status.evaluator.eq(EvaluatorShape.const(evaluator_shape(self._eval_params))),
                    status.max_frame.eq(max_frame),
                ]
                reply(status, payload_bytes(Status))

            with m.State("RESET"):                  # stop a job, then empty everything
                m.d.comb += machine.job.stop.eq(1)
                m.d.sync += [node_limit.eq(0), flags.eq(0)]
                with m.If(~machine.job.busy):
                    m.d.comb += [machine.history_clear.eq(1), machine.hash_clear.eq(1), machine.clear.eq(1)]
                    m.next = "RESET_TABLE"

            # --- POSITION: empty the board (if asked), the halfmoves, the side -----------------
            with m.State("POSITION_FIXED"):
                with m.If(gathering()):
                    m.d.sync += flags.eq(top_bytes(1))
                    m.d.comb += machine.clear.eq(PositionFlags(top_bytes(1)).clear)
                    m.next = "HALFMOVES"
                    next_field(HALFMOVE_BYTES)
            with m.State("HALFMOVES"):
                with m.If(done_with_payload()):
                    m.d.comb += [machine.side_in.valid.eq(1), machine.side_in.payload.eq(flags.black)]
                    reply()
                with m.Else():
                    with m.If(gathering()):
                        m.d.comb += [machine.setup.valid.eq(1), machine.setup.payload.eq(top_bytes(2)[:Halfmove.size])]
                        with m.If(machine.setup.ready):
                            next_field(HALFMOVE_BYTES)
            with m.State("RESET_TABLE"):
                with m.If(~machine.hash_busy):
                    reply()

            # --- HISTORY -------------------------------------------------------------------------
            with m.State("HISTORY_FIXED"):
                with m.If(gathering()):
                    m.d.comb += machine.history_clear.eq(top_bytes(1)[0])
                    next_field(HISTORY_BYTES)
                    m.next = "ENTRIES"
            with m.State("ENTRIES"):
                entry = HistoryEntry(top_bytes(HISTORY_BYTES))
                with m.If(done_with_payload()):
                    reply()
                with m.Else():
                    with m.If(gathering()):
                        with m.If(machine.history.ready):
                            m.d.comb += [machine.history.valid.eq(1), machine.history.payload.eq(entry)]
                            next_field(HISTORY_BYTES)

            # --- WRITE ---------------------------------------------------------------------------
            with m.State("WRITE_FIXED"):
                with m.If(gathering()):
                    m.d.sync += address.eq(top_bytes(payload_bytes(TableAddress))[:TableAddress.size])
                    next_field(WRITE_WORD_BYTES)
                    m.next = "WORDS"
            with m.State("WORDS"):
                with m.If(done_with_payload()):
                    reply()
                with m.Else():
                    with m.If(gathering()):
                        m.d.comb += [machine.write.valid.eq(1), machine.write.payload.address.eq(address),
                                     machine.write.payload.data.eq(top_bytes(3))]
                        with m.If(machine.write.ready):
                            m.d.sync += address.index.eq(address.index + 1)
                            next_field(WRITE_WORD_BYTES)

            with m.State("FILL"):
                with m.If(gathering()):
                    fill = Fill(top_bytes(payload_bytes(Fill))[:Fill.size])
                    m.d.sync += [address.eq(fill.address), fill_count.eq(fill.count), fill_data.eq(fill.data)]
                    m.next = "FILLING"
            with m.State("FILLING"):
                with m.If(fill_count == 0):
                    reply()
                with m.Else():
                    m.d.comb += [machine.write.valid.eq(1), machine.write.payload.address.eq(address),
                                 machine.write.payload.data.eq(fill_data)]
                    with m.If(machine.write.ready):
                        m.d.sync += [address.index.eq(address.index + 1), fill_count.eq(fill_count - 1)]

            # --- CHECKSUM ------------------------------------------------------------------------
            with m.State("CHECKSUM"):
                with m.If(gathering()):
                    m.d.comb += [machine.checksum_request.valid.eq(1),
                                 machine.checksum_request.payload.eq(top_bytes(1)[:TableSelect.size])]
                    with m.If(machine.checksum_request.ready):
                        m.next = "CHECKSUM_WAIT"
            with m.State("CHECKSUM_WAIT"):
                with m.If(machine.checksum.valid):
                    reply(machine.checksum.payload, 4)

            # --- jobs ----------------------------------------------------------------------------
            with m.State("START"):
                with m.If(gathering()):
                    start = Start(top_bytes(payload_bytes(Start)))
                    command = machine.job.start
                    m.d.comb += [command.valid.eq(1), command.payload.job.eq(start.job.kind),
                                 command.payload.depth.eq(start.depth), command.payload.alpha.eq(start.alpha),
                                 command.payload.beta.eq(start.beta), command.payload.generation.eq(start.generation),
                                 command.payload.features.eq(start.features),
                                 command.payload.root_move.eq(start.root_move),
                                 command.payload.keep_killers.eq(start.job.keep_killers),
                                 command.payload.config.eq(start.job.config)]
                    m.d.sync += node_limit.eq(start.node_limit)
                    reply()
            with m.State("STOP"):
                m.d.comb += machine.job.stop.eq(1)
                reply()
            with m.State("PROBE"):                  # the key and the table's read settle first
                m.d.sync += wait.eq(wait + 1)
                with m.If(wait == 3):
                    probe = Signal(Probe)
                    m.d.comb += [probe.hit.eq(machine.hash_hit), probe.entry.eq(machine.hash_probe)]
                    reply(probe, payload_bytes(Probe))
            with m.State("EVALUATE"):               # the last halfmove or write settles first
                with m.If(machine.static_valid):
                    evaluation = Signal(Evaluation)
                    m.d.comb += evaluation.value.eq(machine.static_value)
                    reply(evaluation, payload_bytes(Evaluation))
            with m.State("HASH_CLEAR"):
                m.d.comb += machine.hash_clear.eq(1)
                m.next = "RESET_TABLE"

            # --- the reply ------------------------------------------------------------------------
            with m.State("REPLY"):
                with m.If(transmitter.ready | (out_index != 0)):
                    m.d.comb += [transmitter.write.valid.eq(1), transmitter.write.payload.addr.eq(out_index),
                                 transmitter.write.payload.data.eq(outgoing[:8])]
                    m.d.sync += [outgoing.eq(outgoing >> 8), out_index.eq(out_index + 1)]
                    with m.If(out_index + 1 == out_length):
                        m.next = "SEND"
            with m.State("SEND"):
                m.d.comb += [transmitter.send.valid.eq(transmitter.ready), transmitter.send.payload.eq(out_length)]
                m.d.sync += wait.eq(0)
                with m.If(transmitter.ready):
                    m.next = "IDLE"
        return m
