"""Amaranth-simulator tests of the bit-sliced cell helpers against plain Python."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.movegen.bitboard import (
    at_least_one_two,
    flip_ranks,
    lowest_onehot,
    msb_index,
    occluded_fill,
    onehot_index,
    plane_count,
    shift,
)
from hdl.movegen.geometry import DIRECTIONS, KNIGHT_STEPS, step_square
from sim.testing import simulate


def py_shift(bb, df, dr):
    out = 0
    for sq in range(64):
        if bb >> sq & 1:
            target = step_square(sq, df, dr)
            if target is not None:
                out |= 1 << target
    return out


def py_fill(gen, empty, df, dr):
    out = gen
    for sq in range(64):
        if gen >> sq & 1:
            target = step_square(sq, df, dr)
            while target is not None and empty >> target & 1:
                out |= 1 << target
                target = step_square(target, df, dr)
    return out


class Helpers(wiring.Component):
    """Every helper applied to the same inputs, as a combinational component."""

    def __init__(self):
        members = {"a": In(64), "b": In(64), "flipped": Out(64), "msb": Out(6), "index": Out(6), "lowest": Out(64)}
        for name, _, _ in DIRECTIONS:
            members[f"shift_{name}"] = Out(64)
            members[f"fill_{name}"] = Out(64)
        members["knight"] = Out(64).array(len(KNIGHT_STEPS))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        for name, df, dr in DIRECTIONS:
            m.d.comb += getattr(self, f"shift_{name}").eq(shift(self.a, df, dr))
            m.d.comb += getattr(self, f"fill_{name}").eq(occluded_fill(m, f"f_{name}", self.a, self.b, df, dr))
        for k, (df, dr) in enumerate(KNIGHT_STEPS):
            m.d.comb += self.knight[k].eq(shift(self.a, df, dr))
        m.d.comb += [self.flipped.eq(flip_ranks(self.a)), self.msb.eq(msb_index(m, "msb", self.a)),
                     self.index.eq(onehot_index(self.a)), self.lowest.eq(lowest_onehot(m, "lowest", self.a))]
        return m


def test_helpers_match_python():
    dut = Helpers()
    rng = random.Random(2)
    cases = [rng.getrandbits(64) & rng.getrandbits(64) for _ in range(60)] + [1, 1 << 63, (1 << 64) - 1]

    async def testbench(ctx):
        for a in cases:
            b = rng.getrandbits(64) | rng.getrandbits(64)
            ctx.set(dut.a, a)
            ctx.set(dut.b, b)
            for name, df, dr in DIRECTIONS:
                assert ctx.get(getattr(dut, f"shift_{name}")) == py_shift(a, df, dr), (name, hex(a))
                assert ctx.get(getattr(dut, f"fill_{name}")) == py_fill(a, b, df, dr), (name, hex(a), hex(b))
            for k, (df, dr) in enumerate(KNIGHT_STEPS):
                assert ctx.get(dut.knight[k]) == py_shift(a, df, dr), (df, dr, hex(a))
            flipped = int.from_bytes(a.to_bytes(8, "little")[::-1], "little")
            assert ctx.get(dut.flipped) == flipped
            assert ctx.get(dut.lowest) == a & -a, hex(a)
            if a:
                assert ctx.get(dut.msb) == a.bit_length() - 1
        for sq in range(64):
            ctx.set(dut.a, 1 << sq)
            assert ctx.get(dut.index) == sq
            assert ctx.get(dut.lowest) == 1 << sq
            assert ctx.get(dut.msb) == sq

    simulate(dut, testbench, clocked=False)


class Counting(wiring.Component):
    """``at_least_one_two`` over the bits of an input of odd width (a leaf left unpaired)."""

    bits: In(11)
    one: Out(1)
    two: Out(1)

    def elaborate(self, platform):
        m = Module()
        one, two = at_least_one_two(m, "count", [self.bits[i] for i in range(len(self.bits))])
        m.d.comb += [self.one.eq(one), self.two.eq(two)]
        return m


def test_at_least_one_two_on_every_input():
    dut = Counting()

    async def testbench(ctx):
        for bits in range(1 << len(dut.bits)):
            ctx.set(dut.bits, bits)
            ones = bin(bits).count("1")
            assert (ctx.get(dut.one), ctx.get(dut.two)) == (int(ones >= 1), int(ones >= 2)), bin(bits)

    simulate(dut, testbench, clocked=False)


def test_generator_rejects_bad_parameters():
    from hdl.movegen.generator import MoveGenerator
    with pytest.raises(TypeError, match="max_ply must be a positive integer"):
        MoveGenerator(max_ply=0)
    assert MoveGenerator(max_ply=16).max_ply == 16


class PlaneCount(wiring.Component):
    """``plane_count`` over seven input planes: each cell's count, as three bit planes."""

    def __init__(self, inputs=7):
        self._inputs = inputs
        super().__init__({"planes": In(64).array(inputs), "count": Out(64).array(inputs.bit_length())})

    def elaborate(self, platform):
        m = Module()
        counts = plane_count(m, "count", list(self.planes))
        assert len(counts) == len(self.count)
        m.d.comb += [out.eq(count) for out, count in zip(self.count, counts)]
        return m


def test_plane_count_counts_each_cell():
    dut = PlaneCount()
    rng = random.Random(5)

    async def testbench(ctx):
        for case in range(40):
            fixed = {0: [0] * 7, 1: [(1 << 64) - 1] * 7}
            planes = fixed.get(case) or [rng.getrandbits(64) for _ in range(7)]
            for port, value in zip(dut.planes, planes):
                ctx.set(port, value)
            bits = [ctx.get(out) for out in dut.count]
            for square in range(64):
                expected = sum(value >> square & 1 for value in planes)
                assert sum((b >> square & 1) << k for k, b in enumerate(bits)) == expected, (case, square)

    simulate(dut, testbench, clocked=False)
