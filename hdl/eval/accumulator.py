"""A state accumulator whose carries stop at field boundaries (Hitech's broken carry chains)."""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["FieldAccumulator", "field_add_expr", "field_sub_expr"]


def field_add_expr(a, b, tops):
    """``a + b`` field by field: the top bit of each field (``tops``) is left out of the carry
    chain and put back by XOR, so no carry leaves a field."""
    low = ~tops
    return ((a & low) + (b & low)) ^ ((a ^ b) & tops)


def field_sub_expr(a, b, tops):
    """``a - b`` field by field: each field's top bit of ``a`` is forced to 1 so no borrow leaves
    the field, and the true top bit is put back by XOR."""
    low = ~tops
    return ((a | tops) - (b & low)) ^ ((a ^ ~b) & tops)


class FieldAccumulator(wiring.Component):
    """``state`` plus or minus ``amount`` per field whenever ``valid``; zero on ``clear``.

    ``next`` is the value ``state`` takes at the coming clock edge, available in the same
    cycle as ``amount`` so the maps behind the accumulator can be addressed without waiting
    for it (latency 0 to ``next``, 1 to ``state``).

    Interface attributes
    --------------------
    amount : In(width)     the description-table entry of the halfmove being applied
    tops : In(width)       field-top mask: bit i set means no carry or borrow out of bit i
    valid, place : In(1)   apply ``amount`` this cycle; add (place) or subtract (remove)
    clear : In(1)          zero the state (takes precedence)
    state : Out(width)     the accumulator register
    next : Out(width)      the register's next value
    """

    def __init__(self, width):
        self._width = width
        super().__init__({
            "amount": In(width), "tops": In(width), "valid": In(1), "place": In(1), "clear": In(1),
            "state": Out(width), "next": Out(width),
        })

    @property
    def width(self):
        return self._width

    def elaborate(self, platform):
        m = Module()
        width = self._width
        added = Signal(width)
        subtracted = Signal(width)
        m.d.comb += [
            added.eq(field_add_expr(self.state, self.amount, self.tops)),
            subtracted.eq(field_sub_expr(self.state, self.amount, self.tops)),
        ]
        with m.If(self.clear):
            m.d.comb += self.next.eq(0)
        with m.Elif(self.valid):
            with m.If(self.place):
                m.d.comb += self.next.eq(added)
            with m.Else():
                m.d.comb += self.next.eq(subtracted)
        with m.Else():
            m.d.comb += self.next.eq(self.state)
        m.d.sync += self.state.eq(self.next)
        return m
