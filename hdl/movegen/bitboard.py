"""Bit-sliced square cells: 64-bit planes whose bit ``s`` is a signal of the cell of square ``s``.

The 64 square cells of the generator are written as *planes*: one 64-bit signal per kind of
cell signal, bit ``s`` belonging to square ``s``. Shifting a plane by a direction's offset is the
fixed wiring from every cell to its neighbour in that direction (with the board's edges cut), so
a shift is a wire, not logic. Writing the cells this way keeps the netlist the same as 64 cell
instances, while Verilator simulates each plane as one machine word.

Amaranth does not share subexpressions, so every intermediate plane is a named ``Signal``
(:func:`plane`), assigned once.
"""

from amaranth.hdl import Cat, Const, Mux, Signal

__all__ = ["plane", "shift", "occluded_fill", "ray_reach", "flip_ranks", "onehot_index",
           "RANKS", "FILES", "square_mask", "msb_index", "or_all"]

FULL = (1 << 64) - 1
FILES = [sum(1 << (r * 8 + f) for r in range(8)) for f in range(8)]
RANKS = [0xFF << (8 * r) for r in range(8)]


def square_mask(*squares):
    return sum(1 << s for s in squares)


def plane(m, name, expr):
    """A 64-bit signal named ``name`` driven by ``expr`` (so that its users share it)."""
    sig = Signal(64, name=name)
    m.d.comb += sig.eq(expr)
    return sig


def _keep_mask(df):
    """Destination squares a shift by ``df`` files may reach without wrapping a rank."""
    if df > 0:
        return sum(FILES[df:])
    if df < 0:
        return sum(FILES[:8 + df])
    return FULL


def shift(bb, df, dr):
    """Every cell's bit moved ``df`` files and ``dr`` ranks; what leaves the board is lost."""
    n = 8 * dr + df
    if n > 0:
        moved = Cat(Const(0, n), bb[:64 - n])
    elif n < 0:
        moved = bb.shift_right(-n)
    else:
        moved = bb
    if df:
        return moved & Const(_keep_mask(df), 64)
    return moved


def occluded_fill(m, name, gen, empty, df, dr):
    """``gen`` extended in direction (df, dr) through ``empty`` squares.

    This is the cell-to-cell ray chain (a cell passes a ray on when it is empty) computed as a
    parallel prefix in three doubling steps; its result is the same function.
    """
    for step in (1, 2, 4):
        gen = plane(m, f"{name}_g{step}", gen | (empty & shift(gen, df * step, dr * step)))
        if step != 4:
            empty = plane(m, f"{name}_p{step}", empty & shift(empty, df * step, dr * step))
    return gen


def ray_reach(m, name, sliders, empty, df, dr):
    """Squares a ray from ``sliders`` travelling in (df, dr) reaches, first blocker included."""
    return plane(m, name, shift(occluded_fill(m, name, sliders, empty, df, dr), df, dr))


def flip_ranks(bb):
    """The plane seen from the other side: rank r becomes rank 7 - r (a byte reversal)."""
    return Cat(*(bb[8 * r:8 * r + 8] for r in reversed(range(8))))


def onehot_index(bb):
    """The index of the one set bit of a 64-bit one-hot plane (0 for an empty plane)."""
    return Cat(*((bb & Const(sum(1 << s for s in range(64) if s >> k & 1), 64)).any()
                 for k in range(6)))


def msb_index(m, name, bb):
    """The index of the most significant set bit of a 64-bit plane (a 6-level priority tree)."""
    bits = []
    x = bb
    for level, width in enumerate((32, 16, 8, 4, 2, 1)):
        upper = Signal(name=f"{name}_b{5 - level}")
        m.d.comb += upper.eq(x[width:2 * width].any())
        half = Signal(width, name=f"{name}_h{level}")
        m.d.comb += half.eq(Mux(upper, x[width:2 * width], x[:width]))
        bits.append(upper)
        x = half
    return Cat(*reversed(bits))


def or_all(items):
    """The OR of a non-empty sequence of values."""
    items = list(items)
    out = items[0]
    for item in items[1:]:
        out = out | item
    return out
