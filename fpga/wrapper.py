"""A four-pin wrapper for measuring a block on a device without an out-of-context mode.

nextpnr-ice40 places every top-level port on a pin, and a block's ports (over a hundred bits)
do not fit the iCE40UP5K's 39. :class:`PinWrapper` feeds all the block's inputs from one shift
register on one pin and folds all its outputs into one registered XOR on another, so every
input and output stays live (nothing is optimised away) at the cost of one flip-flop per input
bit and a small XOR tree, which the report should mention.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["PinWrapper"]


class PinWrapper(wiring.Component):
    serial_in: In(1)
    serial_out: Out(1)

    def __init__(self, block):
        self._block = block
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.block = block = self._block
        inputs, outputs = [], []
        for _path, member, value in block.signature.flatten(block):
            (inputs if member.flow == In else outputs).append(value)
        width = sum(len(Cat(v)) for v in inputs)
        chain = Signal(max(1, width))
        m.d.sync += chain.eq(Cat(self.serial_in, chain[:-1]))
        offset = 0
        for value in inputs:
            bits = len(Cat(value))
            m.d.comb += Cat(value).eq(chain[offset:offset + bits])
            offset += bits
        m.d.sync += self.serial_out.eq(Cat(*outputs).xor())
        return m
