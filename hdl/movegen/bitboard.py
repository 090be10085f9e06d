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
           "RANKS", "FILES", "square_mask", "msb_index", "or_all",
           "highest_onehot", "encode_onehot", "select_onehot", "registered", "add_all", "at_least_one_two",
           "plane_count"]

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


def highest_onehot(m, name, bits):
    """``bits`` with only its most significant set bit kept (all bits decided in parallel)."""
    width = len(bits)
    out = Signal(width, name=name)
    for i in range(width):
        higher = bits[i + 1:].any() if i + 1 < width else Const(0, 1)
        m.d.comb += out[i].eq(bits[i] & ~higher)
    return out


def lowest_onehot(m, name, bits):
    """``bits`` with only its least significant set bit kept (all bits decided in parallel: not
    ``bits & -bits``, a carry chain as long as the word)."""
    width = len(bits)
    out = Signal(width, name=name)
    for i in range(width):
        lower = bits[:i].any() if i else Const(0, 1)
        m.d.comb += out[i].eq(bits[i] & ~lower)
    return out


def encode_onehot(onehot):
    """The index of the set bit of a one-hot value (0 when none is set)."""
    width = len(onehot)
    return Cat(*(or_all([onehot[i] for i in range(width) if i >> k & 1] or [Const(0, 1)])
                 for k in range(max(1, (width - 1).bit_length()))))


def select_onehot(onehot, values):
    """The OR of the ``values`` whose bit of ``onehot`` is set: a parallel multiplexer."""
    return or_all(Mux(onehot[i], value, 0) for i, value in enumerate(values))


def msb_index(m, name, bb):
    """The index of the most significant set bit of a 64-bit plane (0 for an empty plane).

    Two levels of eight: the highest non-empty byte, then the highest bit in it; every
    decision of a level is taken in parallel.
    """
    group_any = Signal(8, name=f"{name}_bytes")
    m.d.comb += group_any.eq(Cat(*(bb[8 * g:8 * g + 8].any() for g in range(8))))
    group = highest_onehot(m, f"{name}_byte", group_any)
    byte = Signal(8, name=f"{name}_byte_bits")
    m.d.comb += byte.eq(select_onehot(group, [bb[8 * g:8 * g + 8] for g in range(8)]))
    bit = highest_onehot(m, f"{name}_bit", byte)
    return Cat(encode_onehot(bit), encode_onehot(group))


def registered(m, value, name):
    """A register named ``name`` holding ``value`` of the previous cycle (a pipeline cut)."""
    held = Signal.like(value, name=name) if isinstance(value, Signal) else Signal(len(value), name=name)
    m.d.sync += held.eq(value)
    return held


def or_all(items):
    """The OR of a non-empty sequence of values."""
    items = list(items)
    out = items[0]
    for item in items[1:]:
        out = out | item
    return out


def add_all(items):
    """The sum of a non-empty sequence of values (bits, or counts), as a balanced tree of
    adders: depth log2 of the count, each level a bit wider."""
    items = list(items)
    while len(items) > 1:
        items = [items[i] + items[i + 1] if i + 1 < len(items) else items[i] for i in range(0, len(items), 2)]
    return items[0]


def at_least_one_two(m, name, bits):
    """Two signals named ``name_one``, ``name_two``: at least one, at least two of ``bits`` (a
    sequence of 1-bit values) are set. A balanced tree of pairs, each node ``(a1 | a2, t1 | t2
    | a1 & a2)``: depth log2 of the count, where ``x & (x - 1)`` would be a carry chain as long
    as the word."""
    pairs = [(bit, Const(0, 1)) for bit in bits]
    while len(pairs) > 1:
        merged = []
        for i in range(0, len(pairs) - 1, 2):
            (a1, t1), (a2, t2) = pairs[i], pairs[i + 1]
            merged.append((a1 | a2, t1 | t2 | (a1 & a2)))
        if len(pairs) % 2:
            merged.append(pairs[-1])
        pairs = merged
    one, two = Signal(name=f"{name}_one"), Signal(name=f"{name}_two")
    m.d.comb += [one.eq(pairs[0][0]), two.eq(pairs[0][1])]
    return one, two


def plane_count(m, name, planes):
    """Per cell, how many of ``planes`` (a non-empty sequence of 64-bit values) have its bit
    set, as bit planes, least significant first: a carry-save tree of full adders on whole
    planes (signals named ``name_…``), so that each cell's count is its own adders' and a
    simulator adds the 64 cells with word operations."""
    columns = [[plane(m, f"{name}_in{i}", p) for i, p in enumerate(planes)]]
    weight = 0
    while weight < len(columns):
        column = columns[weight]
        while len(column) > 1:
            a, b = column.pop(0), column.pop(0)
            c = column.pop(0) if column else Const(0, 64)
            tag = f"{name}_w{weight}_{len(column)}"
            column.append(plane(m, f"{tag}_sum", a ^ b ^ c))
            if weight + 1 == len(columns):
                columns.append([])
            columns[weight + 1].append(plane(m, f"{tag}_carry", (a & b) | (c & (a ^ b))))
        weight += 1
    return [column[0] for column in columns]
