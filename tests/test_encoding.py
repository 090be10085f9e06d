"""The shared bit formats' Python side (``hdl/encoding.py``): ``pack`` and ``unpack`` treat every
layout the project defines as Amaranth's own constants and views of it do."""

import enum as py_enum
import importlib
import pkgutil
import random

from amaranth.hdl import Shape
from amaranth.lib import data

import hdl
import host
from hdl.encoding import MoveWord, PieceType, pack, unpack


def _viewed(layout, view):
    """The fields of an Amaranth view, as ``unpack`` gives them (the reference)."""
    if isinstance(layout, data.ArrayLayout):
        return [_viewed(layout.elem_shape, view[i]) if isinstance(layout.elem_shape, data.Layout) else int(view[i])
                for i in range(layout.length)]
    out = {}
    for name, field in layout:
        value = view[name]
        if isinstance(field.shape, data.Layout):
            out[name] = _viewed(field.shape, value)
        else:
            out[name] = value.value if isinstance(value, py_enum.Enum) else int(value)
    return out


def _viewed_bits(layout, bits):
    return _viewed(layout, layout.from_bits(bits))


def _constant_bits(layout, values):
    """What Amaranth's constant of ``values`` holds (the reference for ``pack``)."""
    return layout.const(values).as_bits()


def _project_layouts():
    found = {}
    for package in (hdl, host):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            for name, value in vars(importlib.import_module(module.name)).items():
                if isinstance(value, data.Layout):
                    found.setdefault(id(value), (f"{module.name}.{name}", value))
    return sorted(found.values(), key=lambda item: item[0])


def _read(read, *args, **kwargs):
    try:
        return read(*args, **kwargs)
    except ValueError:          # a value that is none of an enumeration's members
        return ValueError


def test_unpack_reads_every_layout_as_amaranths_views_do():
    layouts = _project_layouts()
    assert len(layouts) >= 30
    rng = random.Random(2026)
    invalid = 0
    for name, layout in layouts:
        for bits in [0, (1 << layout.size) - 1] + [rng.getrandbits(layout.size) for _ in range(200)]:
            expected = _read(_viewed_bits, layout, bits)
            assert _read(unpack, layout, bits) == expected, f"{name}: {bits:#x}"
            invalid += expected is ValueError
    assert invalid > 0              # some random bits name no member: both refuse them


def _values(shape, rng):
    """Random plain values for ``shape``: fields left out, integers beyond their widths, numbers
    that are no member of their enumeration."""
    if isinstance(shape, data.ArrayLayout):
        return [_values(shape.elem_shape, rng) for _ in range(rng.randrange(shape.length + 1))]
    if isinstance(shape, data.Layout):
        return {name: _values(field.shape, rng) for name, field in shape if rng.random() < 0.8}
    width = Shape.cast(shape).width
    return rng.randrange(-(1 << width), 1 << (width + 1)) if width else 0


def test_pack_packs_every_layout_as_amaranths_constants_do():
    rng = random.Random(2027)
    refused = 0
    for name, layout in _project_layouts():
        for _ in range(200):
            values = _values(layout, rng)
            expected = _read(_constant_bits, layout, values)
            assert _read(pack, layout, **values) == expected, f"{name}: {values}"
            refused += expected is ValueError
    assert refused > 0


def test_pack_and_unpack_are_inverse():
    move = {"from_sq": 12, "to_sq": 28, "promotion": 0, "flags": {"capture": 0, "en_passant": 0, "castle": 0,
                                                                  "double_push": 1}}
    assert unpack(MoveWord, pack(MoveWord, **move)) == move
    assert unpack(MoveWord, pack(MoveWord, **{**move, "promotion": PieceType.QUEEN}))["promotion"] == 5
