"""A state accumulator whose carries stop at field boundaries (Hitech's broken carry chains)."""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["FieldAccumulator", "field_add_sub_expr"]


def field_add_sub_expr(a, b, tops, subtract):
    """``a + b`` (or ``a - b`` when ``subtract``) field by field, on one carry chain.

    Each field's top bit (``tops``) is kept out of the chain: it is 0 in both operands when
    adding, so no carry leaves the field; when subtracting (``a + ~b + 1`` per field) it is 1 in
    both, so every field passes exactly the "+1" its upper neighbour needs, and the adder's
    carry-in gives bit 0 its own. The true top bits are put back by XOR.
    """
    low = ~tops
    spread = subtract.replicate(len(a))
    x = (a & low) | (tops & spread)
    y = ((b ^ spread) & low) | (tops & spread)
    return (x + y + subtract)[:len(a)] ^ ((a ^ b ^ spread) & tops)


class FieldAccumulator(wiring.Component):
    """``state`` plus or minus each applied ``amount`` per field — up to two a cycle, the
    first then the second (as if a cycle apart); zero on ``clear``.

    ``next`` is the value ``state`` takes at the coming clock edge, available in the same
    cycle as the amounts so the maps behind the accumulator can be addressed without waiting
    for it (latency 0 to ``next``, 1 to ``state``).

    Interface attributes
    --------------------
    amount : In(array of 2 x width)  the description-table entries of the halfmoves applied
    tops : In(width)       field-top mask: bit i set means no carry or borrow out of bit i
    valid, place : In(array of 2 x 1)   apply each amount this cycle; add (place) or subtract
    clear : In(1)          zero the state (takes precedence)
    state : Out(width)     the accumulator register
    next : Out(width)      the register's next value
    """

    def __init__(self, width):
        self._width = width
        super().__init__({
            "amount": In(width).array(2), "tops": In(width), "valid": In(1).array(2), "place": In(1).array(2),
            "clear": In(1), "state": Out(width), "next": Out(width),
        })

    @property
    def width(self):
        return self._width

    def elaborate(self, platform):
        m = Module()
        total = self.state
        for k in range(2):
            subtract = Signal(name=f"subtract{k}")
            amount = Signal(self._width, name=f"amount{k}")
            result = Signal(self._width, name=f"result{k}")
            # Not applying is adding 0.
            m.d.comb += [
                subtract.eq(self.valid[k] & ~self.place[k]),
                amount.eq(Mux(self.valid[k], self.amount[k], 0)),
                result.eq(field_add_sub_expr(total, amount, self.tops, subtract)),
            ]
            total = result
        m.d.comb += self.next.eq(Mux(self.clear, 0, total))
        m.d.sync += self.state.eq(self.next)
        return m
