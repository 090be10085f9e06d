"""Frames on the byte streams of the link (protocol: ``protocol.py``): COBS decoding, the CRC
check and the receive buffers; CRC appending, COBS encoding and the reply buffer."""

import zlib

from amaranth import Array, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from cobs import cobs

from ..eval.crc import Crc32
from ..handshake import Pulse
from .protocol import MAX_FRAME, NAK, RESIDUE, Evaluation, NakReason, Probe, Status, payload_bytes

__all__ = ["FrameReceiver", "ReplyTransmitter", "FrameInterface", "ReplyInterface", "LinkCounters", "MAX_REPLY",
           "receive_depth"]


def receive_depth(max_frame):
    """The receive memory: two buffers of ``max_frame`` bytes (one is filled while the other's
    frame executes)."""
    if max_frame < 64 or max_frame > MAX_FRAME or max_frame & (max_frame - 1):
        raise ValueError(f"a frame buffer holds a power of two of 64 to {MAX_FRAME} bytes, not {max_frame}")
    return 2 * max_frame

#: The longest reply, sequence, type and payload, before its CRC (STATUS's).
MAX_REPLY = 2 + max(payload_bytes(layout) for layout in (Status, Probe, Evaluation))

LinkCounters = data.StructLayout({"frames": 16, "dropped": 16, "oversized": 16, "overruns": 16})


def FrameInterface(max_frame):
    """From the frame receiver to the command executor, from the receiver's side: a good frame
    (the receive buffer it is in, its length without the CRC), the link's counters; the
    executor is ``free`` for the next frame."""
    return wiring.Signature({
        "frame": Out(Pulse(data.StructLayout({"bank": 1, "length": range(max_frame + 1)}))),
        "free": In(1),
        "counters": Out(LinkCounters),
    })


#: From the command executor to the reply transmitter, from the executor's side: a reply's
#: bytes written into the reply buffer, then ``send`` (their number) or ``resend`` the last
#: reply; both are taken while the transmitter is ``ready``.
ReplyInterface = wiring.Signature({
    "write": Out(Pulse(data.StructLayout({"addr": range(MAX_REPLY), "data": 8}))),
    "send": Out(Pulse(range(MAX_REPLY + 1))),
    "resend": Out(1),
    "ready": In(1),
})


class FrameReceiver(wiring.Component):
    """Decodes COBS frames from ``data`` into a receive buffer, checking each frame's CRC.

    A frame ends at a 0x00 byte. It is good when its COBS groups end with it, it has a
    sequence number, a type and a CRC (6 bytes or more), its CRC residue is right, no UART
    framing error happened inside it, and it fits ``max_frame``: then, if the executor is
    ``free``, ``executor.frame`` pulses with the buffer and the length without the CRC, and the next
    frame goes to the other buffer. Otherwise the frame is dropped and counted (a good frame
    while the executor is busy is an overrun), and ``corrupt`` pulses. Empty frames (two
    delimiters in a row) are ignored. One byte per cycle; latency from the delimiter to
    ``frame``: 1 cycle.

    Interface attributes
    --------------------
    data : In(stream of 8 bits)          decoded from the line (always ready)
    line_error : In(1)                   a UART framing error (the frame in progress is bad)
    buffer_write : Out({en, addr, data}) to the receive memory (2 * max_frame bytes)
    executor : Out(FrameInterface)       good frames to the executor, the counters
    corrupt : Out(1)                     a frame was dropped
    """

    def __init__(self, max_frame=MAX_FRAME):
        self._max_frame = max_frame
        super().__init__({
            "data": In(stream.Signature(8)),
            "line_error": In(1),
            "buffer_write": Out(data.StructLayout({"en": 1, "addr": range(receive_depth(max_frame)), "data": 8})),
            "executor": Out(FrameInterface(max_frame)),
            "corrupt": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.crc = crc = Crc32(width=8)
        max_frame = self._max_frame
        bank = Signal()
        length = Signal(range(max_frame + 2))     # decoded bytes so far
        remaining = Signal(8)                       # bytes left in the current COBS group
        last_code = Signal(8)                       # the current group's code (0: none yet)
        bad = Signal()                              # a COBS or UART error in this frame
        seen = Signal()                             # a byte since the last delimiter
        m.d.comb += self.data.ready.eq(1)

        byte = self.data.payload
        emit = Signal()
        emitted = Signal(8)
        with m.If(self.data.valid & (byte != 0)):
            m.d.sync += seen.eq(1)
            with m.If(remaining == 0):              # a code byte
                m.d.sync += [remaining.eq(byte - 1), last_code.eq(byte)]
                with m.If((last_code != 0) & (last_code != 0xFF)):
                    m.d.comb += [emit.eq(1), emitted.eq(0)]
            with m.Else():
                m.d.sync += remaining.eq(remaining - 1)
                m.d.comb += [emit.eq(1), emitted.eq(byte)]
        with m.If(emit):
            with m.If(length < max_frame + 1):
                m.d.sync += length.eq(length + 1)
        m.d.comb += [
            self.buffer_write.en.eq(emit & (length < max_frame)),
            self.buffer_write.addr.eq(bank << (max_frame.bit_length() - 1) | length[:max_frame.bit_length() - 1]),
            self.buffer_write.data.eq(emitted),
            crc.update.eq(emit), crc.data.eq(emitted),
        ]
        with m.If(self.line_error):
            m.d.sync += [bad.eq(1), seen.eq(1)]

        frame = self.executor.frame
        m.d.sync += [frame.valid.eq(0), self.corrupt.eq(0)]
        counters = self.executor.counters
        with m.If(self.data.valid & (byte == 0)):
            m.d.sync += [length.eq(0), remaining.eq(0), last_code.eq(0), bad.eq(0), seen.eq(0)]
            m.d.comb += crc.start.eq(1)
            good = ~bad & (remaining == 0) & (length >= 6) & (crc.crc == RESIDUE)
            with m.If(~seen):
                pass                                # an empty frame: nothing to report
            with m.Elif(length > max_frame):
                m.d.sync += [counters.oversized.eq(counters.oversized + 1), self.corrupt.eq(1)]
            with m.Elif(~good):
                m.d.sync += [counters.dropped.eq(counters.dropped + 1), self.corrupt.eq(1)]
            with m.Elif(~self.executor.free):
                m.d.sync += [counters.overruns.eq(counters.overruns + 1), self.corrupt.eq(1)]
            with m.Else():
                m.d.sync += [counters.frames.eq(counters.frames + 1), frame.valid.eq(1),
                             frame.payload.bank.eq(bank), frame.payload.length.eq(length - 4), bank.eq(~bank)]
        return m


class ReplyTransmitter(wiring.Component):
    """Sends reply frames: the executor writes a reply's bytes (sequence, type, payload) into
    the reply buffer through ``write`` and pulses ``send`` with their number; the CRC is
    appended, the frame COBS-encoded onto ``data`` and ended by 0x00. ``resend`` sends the last
    reply again; both are taken when ``ready``. ``nak_corrupt`` asks for the fixed
    ``NAK CORRUPT`` frame, sent after the frame in progress (it does not use the reply buffer,
    which may be written meanwhile). About 3 cycles per byte plus the time ``data`` is not
    ready.

    Interface attributes
    --------------------
    executor : In(ReplyInterface)  the reply buffer's writes (MAX_REPLY bytes, not while a
                                   reply is sent), send, resend; ``ready``: no reply being
                                   prepared or sent, so send and resend are taken
    nak_corrupt : In(1)
    idle : Out(1)                  ready, and no NAK being sent or waiting
    data : Out(stream of 8 bits)
    """

    def __init__(self):
        super().__init__({
            "executor": In(ReplyInterface),
            "nak_corrupt": In(1),
            "idle": Out(1),
            "data": Out(stream.Signature(8)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.buffer = buffer = Memory(shape=8, depth=MAX_REPLY + 4, init=[])
        m.submodules.crc = crc = Crc32(width=8)
        # The buffer is read synchronously (block RAM): ``at_next`` is the address each state
        # reads in the next cycle, so ``read.data`` is always the byte at ``at``.
        write = buffer.write_port()
        read = buffer.read_port(transparent_for=[write])
        nak_frame = cobs.encode(bytes([0, NAK, NakReason.CORRUPT])
                                + zlib.crc32(bytes([0, NAK, NakReason.CORRUPT])).to_bytes(4, "little")) + b"\0"
        nak_rom = Array(nak_frame)

        total = Signal(range(MAX_REPLY + 5))        # bytes of the frame with its CRC
        position = Signal(range(MAX_REPLY + 5))     # the current group's first byte
        scan = Signal(range(MAX_REPLY + 5))
        at, at_next = Signal(range(MAX_REPLY + 5)), Signal(range(MAX_REPLY + 5))
        m.d.comb += read.addr.eq(at_next)
        m.d.sync += at.eq(at_next)
        nak_wanted = Signal()
        nak_index = Signal(range(len(nak_frame)))
        executor = self.executor
        m.d.comb += [write.en.eq(executor.write.valid), write.addr.eq(executor.write.payload.addr),
                     write.data.eq(executor.write.payload.data)]
        with m.If(self.nak_corrupt):
            m.d.sync += nak_wanted.eq(1)

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += [executor.ready.eq(1),
                             self.idle.eq(~nak_wanted & ~executor.send.valid & ~executor.resend & ~self.nak_corrupt)]
                with m.If(executor.send.valid):
                    m.d.sync += [total.eq(executor.send.payload + 4), scan.eq(0)]
                    m.d.comb += crc.start.eq(1)
                    m.next = "CRC"
                with m.Elif(executor.resend):
                    m.d.sync += [position.eq(0), scan.eq(0)]
                    m.next = "SCAN"
                with m.Elif(nak_wanted):
                    m.d.sync += [nak_index.eq(0), nak_wanted.eq(0)]
                    m.next = "NAK"
            with m.State("CRC"):                    # reads the byte at ``scan``
                with m.If(scan + 4 == total):
                    m.next = "APPEND"
                    m.d.sync += scan.eq(0)
                with m.Else():
                    m.d.comb += [crc.update.eq(1), crc.data.eq(read.data), at_next.eq(scan + 1)]
                    m.d.sync += scan.eq(scan + 1)
            with m.State("APPEND"):                 # the CRC's 4 bytes after the reply
                m.d.comb += [write.en.eq(1), write.addr.eq(total - 4 + scan),
                             write.data.eq(crc.crc.word_select(scan[:2], 8))]
                m.d.sync += scan.eq(scan + 1)
                with m.If(scan == 3):
                    m.d.sync += [position.eq(0), scan.eq(0)]
                    m.next = "SCAN"
            with m.State("SCAN"):                   # find the end of the group at ``position``
                with m.If((position + scan == total) | (read.data == 0)):
                    m.d.comb += [self.data.valid.eq(1), self.data.payload.eq(scan + 1), at_next.eq(position + scan)]
                    with m.If(self.data.ready):
                        m.d.comb += at_next.eq(position)
                        m.next = "GROUP"
                with m.Else():
                    m.d.comb += at_next.eq(position + scan + 1)
                    m.d.sync += scan.eq(scan + 1)
            with m.State("GROUP"):                  # the group's bytes, then the next group
                m.d.comb += at_next.eq(position)
                with m.If(scan == 0):
                    with m.If(position == total):
                        m.next = "END"
                    with m.Else():
                        m.d.comb += at_next.eq(position + 1)
                        m.d.sync += position.eq(position + 1)   # over the zero
                        m.next = "SCAN"
                with m.Else():
                    m.d.comb += [self.data.valid.eq(1), self.data.payload.eq(read.data)]
                    with m.If(self.data.ready):
                        m.d.comb += at_next.eq(position + 1)
                        m.d.sync += [position.eq(position + 1), scan.eq(scan - 1)]
            with m.State("END"):
                m.d.comb += [self.data.valid.eq(1), self.data.payload.eq(0)]
                with m.If(self.data.ready):
                    m.next = "IDLE"
            with m.State("NAK"):
                m.d.comb += [self.data.valid.eq(1), self.data.payload.eq(nak_rom[nak_index])]
                with m.If(self.data.ready):
                    m.d.sync += nak_index.eq(nak_index + 1)
                    with m.If(nak_index == len(nak_frame) - 1):
                        m.next = "IDLE"
        return m
