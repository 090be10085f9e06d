"""The link's parts on their own: frames in Python, the UART, the frame receiver and the reply
transmitter in the Amaranth simulator. The host frames with the PyPI ``cobs`` package, an
implementation independent of the hardware's, so the hardware's framing is checked against it."""

import random
import zlib

import pytest
from cobs import cobs

from hdl.link.framing import FrameReceiver, ReplyTransmitter
from hdl.link.protocol import NAK, RESIDUE, NakReason
from hdl.link.uart import UartReceiver, UartTransmitter, divisor_for
from host.link import FrameDecoder, encode_frame
from sim.testing import simulate


def _random_bytes(rng, n, zeros=0.2):
    return bytes(0 if rng.random() < zeros else rng.randrange(1, 256) for _ in range(n))


def test_the_host_frames_with_the_cobs_package():
    raw = bytes([7, 0x03]) + b"\0\x01" * 5
    frame = encode_frame(7, 0x03, b"\0\x01" * 5)
    assert frame[-1] == 0 and 0 not in frame[:-1]
    assert cobs.decode(frame[:-1]) == raw + zlib.crc32(raw).to_bytes(4, "little")


def test_crc_residue_is_the_one_the_hardware_checks():
    rng = random.Random(2)
    for _ in range(50):
        raw = _random_bytes(rng, rng.randrange(2, 100))
        assert zlib.crc32(raw + zlib.crc32(raw).to_bytes(4, "little")) == RESIDUE


def test_host_decoder_keeps_good_frames_and_drops_bad_ones():
    rng = random.Random(3)
    decoder = FrameDecoder()
    frames = [(rng.randrange(256), rng.randrange(256), _random_bytes(rng, rng.randrange(0, 60))) for _ in range(200)]
    stream, expected, corrupted = bytearray(), [], 0
    for sequence, kind, payload in frames:
        encoded = bytearray(encode_frame(sequence, kind, payload))
        if rng.random() < 0.3:
            i = rng.randrange(len(encoded) - 1)
            encoded[i] ^= 1 << rng.randrange(8)
            if encoded[i] == 0:             # a new delimiter: two frames, both bad
                corrupted += 1
            corrupted += 1
        else:
            expected.append((sequence, kind, bytes(payload)))
        stream += encoded
    got = []
    for start in range(0, len(stream), 37):       # arbitrary chunks
        got += decoder.feed(stream[start:start + 37])
    assert [(s, k, bytes(p)) for s, k, p in got] == expected
    assert decoder.dropped >= corrupted - 5 and decoder.dropped > 0


def test_divisor_for_the_link_rates():
    assert divisor_for(25_000_000, 1_000_000) == 25
    assert divisor_for(12_000_000, 1_000_000) == 12
    with pytest.raises(ValueError, match="cannot be made"):
        divisor_for(25_000_000, 3_000_000)      # 8.33 cycles per bit: 4 % off


def test_uart_loopback_and_framing_errors():
    from amaranth import Module
    from amaranth.lib import wiring

    divisor = 8

    class Loop(wiring.Component):
        def __init__(self):
            self.tx = UartTransmitter(divisor)
            self.rx = UartReceiver(divisor)
            super().__init__({})

        def elaborate(self, platform):
            m = Module()
            m.submodules.tx, m.submodules.rx = self.tx, self.rx
            return m

    dut = Loop()
    rng = random.Random(4)
    sent = [rng.randrange(256) for _ in range(40)]
    received, errors = [], []

    async def bench(ctx):
        ctx.set(dut.rx.data.ready, 1)
        for byte in sent:
            while not ctx.get(dut.tx.data.ready):
                ctx.set(dut.rx.rx, ctx.get(dut.tx.tx))
                await ctx.tick()
            ctx.set(dut.tx.data.valid, 1)
            ctx.set(dut.tx.data.payload, byte)
            ctx.set(dut.rx.rx, ctx.get(dut.tx.tx))
            await ctx.tick()
            ctx.set(dut.tx.data.valid, 0)
        for _ in range(12 * divisor):
            ctx.set(dut.rx.rx, ctx.get(dut.tx.tx))
            await ctx.tick()
        # A byte with its stop bit low: not delivered, a framing error.
        for bit in [0] + [1] * 8 + [0] + [0] * 3 + [1] * 12:
            for _ in range(divisor):
                ctx.set(dut.rx.rx, bit)
                await ctx.tick()

    async def watch(ctx):
        async for _clk_edge, _rst, valid, payload, error in ctx.tick().sample(
                dut.rx.data.valid, dut.rx.data.payload, dut.rx.framing_error):
            if valid:
                received.append(payload)
            if error:
                errors.append(len(received))

    simulate(dut, bench, processes=[watch])
    assert received == sent
    assert errors == [len(sent)]


def _receiver_feed(encoded_stream, free=True):
    dut = FrameReceiver()
    memory, frames, corrupt = {}, [], []

    async def bench(ctx):
        ctx.set(dut.executor.free, int(free))
        for byte in encoded_stream:
            ctx.set(dut.data.valid, 1)
            ctx.set(dut.data.payload, byte)
            await ctx.tick()
        ctx.set(dut.data.valid, 0)
        for _ in range(4):
            await ctx.tick()

    async def watch(ctx):
        async for _, _, en, addr, data, valid, bank, length, bad in ctx.tick().sample(
                dut.buffer_write.en, dut.buffer_write.addr, dut.buffer_write.data,
                dut.executor.frame.valid, dut.executor.frame.payload.bank,
                dut.executor.frame.payload.length, dut.corrupt):
            if en:
                memory[addr] = data
            if valid:
                base = bank << 11
                frames.append(bytes(memory[base + i] for i in range(length)))
            if bad:
                corrupt.append(len(frames))

    simulate(dut, bench, processes=[watch])
    return frames, corrupt, dut


def test_receiver_takes_good_frames_and_drops_corrupt_ones():
    rng = random.Random(5)
    stream, expected, bad = bytearray(b"\0\0"), [], 0
    for n in range(60):
        raw = bytes([n, rng.randrange(256)]) + _random_bytes(rng, rng.randrange(0, 40))
        encoded = bytearray(encode_frame(raw[0], raw[1], raw[2:]))
        if n % 4 == 3:
            encoded[rng.randrange(len(encoded) - 1)] ^= 1 << rng.randrange(8)
            bad += 1
        elif n % 4 == 2:                    # truncated: its delimiter comes early
            encoded = encoded[:rng.randrange(1, len(encoded) - 1)] + b"\0"
            bad += 1
        else:
            expected.append(raw)
        stream += encoded
    for length in (250, 252, 253, 254, 300, 508, 600):   # whole 254-byte COBS groups, ending one too
        raw = bytes([length & 255, 0x05]) + bytes(rng.randrange(1, 256) for _ in range(length))
        stream += encode_frame(raw[0], raw[1], raw[2:])
        expected.append(raw)
    frames, corrupt, _ = _receiver_feed(stream)
    assert frames == expected
    assert len(corrupt) >= bad - 3 and len(corrupt) <= bad + 3


def test_receiver_counts_an_overrun_when_the_executor_is_busy():
    frames, corrupt, _ = _receiver_feed(encode_frame(1, 1, b"abc"), free=False)
    assert frames == [] and corrupt == [0]


def test_transmitter_sends_the_crc_and_cobs_of_the_reply_and_the_fixed_nak():
    dut = ReplyTransmitter()
    rng = random.Random(6)
    replies = [bytes([rng.randrange(256), rng.randrange(256)]) + _random_bytes(rng, rng.randrange(0, 50), 0.3)
               for _ in range(25)]
    out = bytearray()

    async def bench(ctx):
        ctx.set(dut.data.ready, 1)
        for i, raw in enumerate(replies):
            while not ctx.get(dut.executor.ready):
                await ctx.tick()
            for address, byte in enumerate(raw):
                ctx.set(dut.executor.write.valid, 1)
                ctx.set(dut.executor.write.payload.addr, address)
                ctx.set(dut.executor.write.payload.data, byte)
                await ctx.tick()
            ctx.set(dut.executor.write.valid, 0)
            ctx.set(dut.executor.send.valid, 1)
            ctx.set(dut.executor.send.payload, len(raw))
            await ctx.tick()
            ctx.set(dut.executor.send.valid, 0)
            if i == 3:
                ctx.set(dut.nak_corrupt, 1)
                await ctx.tick()
                ctx.set(dut.nak_corrupt, 0)
            if i == 5:
                while not ctx.get(dut.executor.ready):
                    await ctx.tick()
                ctx.set(dut.executor.resend, 1)
                await ctx.tick()
                ctx.set(dut.executor.resend, 0)
        while not ctx.get(dut.idle):
            await ctx.tick()

    async def watch(ctx):
        async for _, _, valid, ready, payload in ctx.tick().sample(dut.data.valid, dut.data.ready, dut.data.payload):
            if valid and ready:
                out.append(payload)

    simulate(dut, bench, processes=[watch])
    decoder = FrameDecoder()
    got = [(s, k, bytes(p)) for s, k, p in decoder.feed(out)]
    expected = [(r[0], r[1], r[2:]) for r in replies]
    expected.insert(4, (0, NAK, bytes([NakReason.CORRUPT])))
    expected.insert(7, expected[6])             # reply 5 sent again
    assert decoder.dropped == 0
    assert got == expected


def test_host_decoder_survives_garbage_and_recovers():
    rng = random.Random(8)
    decoder = FrameDecoder()
    garbage = bytes(rng.randrange(256) for _ in range(20_000))
    frames = decoder.feed(garbage)
    # Anything taken from noise must have passed the CRC (a 2**-32 chance per candidate).
    assert all(len(f) == 3 for f in frames) and len(frames) <= 1
    truncated = encode_frame(5, 0x81, b"abcdef")[:-3]
    good = encode_frame(6, 0x81, b"status")
    assert decoder.feed(b"\0" + truncated + b"\0" + good) == [(6, 0x81, b"status")]
    assert decoder.dropped > 50          # about one delimiter in 256 random bytes


def test_status_names_the_evaluator_and_an_old_board_is_told_apart():
    """STATUS's evaluator shape round-trips every configuration; a board of the previous protocol
    (no shape: zeros) parses to None, which the host refuses by version."""
    from hdl.encoding import pack, unpack
    from hdl.eval.tables import FULL, HITECH, SMALL
    from hdl.link.protocol import PROTOCOL_VERSION, EvaluatorShape, evaluator_params, evaluator_shape
    from host.link import _evaluator
    for params in (FULL, HITECH, SMALL):
        shape = unpack(EvaluatorShape, pack(EvaluatorShape, **evaluator_shape(params)))
        assert evaluator_params(shape) == params
        assert _evaluator({"version": PROTOCOL_VERSION, "evaluator": shape}) == params
    assert _evaluator({"version": 1, "evaluator": unpack(EvaluatorShape, 0)}) is None
