"""CRC-32 (the ``zlib.crc32`` polynomial and bit order) over 24-bit words, one word per cycle."""

from functools import reduce
from operator import xor

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Crc32", "crc32_update_masks"]

POLY = 0xEDB88320       # CRC-32, reflected


def crc32_update_masks(data_bits):
    """For each bit of the next CRC register, the mask of (register bits | data bits << 32)
    whose XOR gives it, after shifting in ``data_bits`` data bits least significant first."""
    state = [1 << i for i in range(32)]
    for j in range(data_bits):
        feedback = state[0] ^ (1 << (32 + j))
        state = [state[i + 1] if i < 31 else 0 for i in range(32)]
        state = [s ^ (feedback if (POLY >> i) & 1 else 0) for i, s in enumerate(state)]
    return state


class Crc32(wiring.Component):
    """The CRC-32 of the words given with ``update`` since ``start``; ``crc`` is what
    ``zlib.crc32`` returns for those words as little-endian bytes. Latency 1.

    Interface attributes
    --------------------
    start : In(1)          restart (an empty message); takes precedence over ``update``
    update : In(1)         take ``data`` this cycle
    data : In(width)
    crc : Out(32)
    """

    def __init__(self, width=24):
        if width % 8:
            raise ValueError(f"the word width must be whole bytes, not {width}")
        self._width = width
        super().__init__({"start": In(1), "update": In(1), "data": In(width), "crc": Out(32)})

    def elaborate(self, platform):
        m = Module()
        register = Signal(32, init=0xFFFFFFFF)
        inputs = Cat(register, self.data)
        following = Cat(*(reduce(xor, (inputs[b] for b in range(32 + self._width) if (mask >> b) & 1))
                          for mask in crc32_update_masks(self._width)))
        with m.If(self.start):
            m.d.sync += register.eq(0xFFFFFFFF)
        with m.Elif(self.update):
            m.d.sync += register.eq(following)
        m.d.comb += self.crc.eq(~register)
        return m
