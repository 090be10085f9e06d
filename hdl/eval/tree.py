"""A pipelined adder tree: the sum of many signed values, wrapped to the value width."""

from amaranth import Module, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

__all__ = ["AdderTree"]


class AdderTree(wiring.Component):
    """``total`` = the sum of ``terms`` modulo 2**width, as a signed value.

    A balanced tree of two-input adders, ``ceil(log2(count))`` levels deep, with ``stages``
    pipeline registers spread evenly over the levels (the last one at the output). Latency:
    ``stages`` cycles (0: combinational).
    """

    def __init__(self, count, width=16, stages=0):
        if count < 1:
            raise ValueError(f"an adder tree needs at least one term, not {count}")
        self._count, self._width, self._stages = count, width, stages
        super().__init__({
            "terms": In(data.ArrayLayout(signed(width), count)),
            "total": Out(signed(width)),
        })

    @property
    def latency(self):
        return self._stages

    def elaborate(self, platform):
        m = Module()
        width = self._width
        levels = max(1, ceil_log2(self._count))
        # After which levels (1..levels) a register goes; several may share the output.
        registered_after = [max(1, round(levels * (s + 1) / self._stages)) for s in range(self._stages)]
        nodes = [self.terms[i] for i in range(self._count)]
        for level in range(1, levels + 1):
            sums = []
            for pair in range(0, len(nodes), 2):
                node = Signal(signed(width), name=f"sum_l{level}_{pair // 2}")
                if pair + 1 < len(nodes):
                    m.d.comb += node.eq(nodes[pair] + nodes[pair + 1])
                else:
                    m.d.comb += node.eq(nodes[pair])
                sums.append(node)
            for repeat in range(registered_after.count(level)):
                staged = [Signal(signed(width), name=f"reg{repeat}_l{level}_{i}") for i in range(len(sums))]
                m.d.sync += [s.eq(n) for s, n in zip(staged, sums)]
                sums = staged
            nodes = sums
        m.d.comb += self.total.eq(nodes[0])
        return m
