"""The shared bit formats of the machine (docs/architecture.md §3), defined once.

Hardware uses these layouts directly; Python code (models, host, tests) packs and unpacks
through the same layouts with :func:`pack` and :func:`unpack`, never by hand-written shifts.
"""

import enum as py_enum
import operator

from amaranth.hdl import Const, Shape
from amaranth.lib import data, enum

__all__ = [
    "PieceType", "Colour", "Piece", "HalfmoveOp", "Halfmove", "HalfmovePair", "MoveFlags", "MoveWord",
    "VALUE_WIDTH", "MARKER", "PIECE_FIELDS", "PIECE_CODES", "piece_code", "pack", "unpack",
]


class PieceType(enum.Enum, shape=3):
    """Piece type, numbered as in python-chess; ``MARKER`` is the one spare code.

    A marker is not a piece: it is a flag standing on a square. Markers carry the state that
    is not a piece placement (castling rights on the rooks' home squares, the en-passant target
    square) so that it, too, changes only through halfmoves and is restored by unmaking.
    """
    EMPTY = 0
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6
    MARKER = 7


class Colour(enum.Enum, shape=1):
    WHITE = 0
    BLACK = 1


#: 4 bits: bits 2..0 the type, bit 3 the colour; 0 is the empty square.
Piece = data.StructLayout({"type": PieceType, "colour": Colour})


class HalfmoveOp(enum.Enum, shape=1):
    REMOVE = 0
    PLACE = 1


#: One change of one square; every state-keeping unit changes only through these.
Halfmove = data.StructLayout({"op": HalfmoveOp, "square": 6, "piece": Piece})

#: What the halfmove bus carries in one transfer: ``first``, and ``second`` too when ``both`` —
#: two consecutive halfmoves of a sequence, which every unit applies in that order within the
#: cycle, exactly as if they had come one cycle apart. A lone halfmove's bits are those of a
#: transfer of it alone (``first`` is the low field, ``both`` 0).
HalfmovePair = data.StructLayout({"first": Halfmove, "second": Halfmove, "both": 1})

MoveFlags = data.StructLayout({
    "capture": 1,       # a piece is taken (en passant included)
    "en_passant": 1,
    "castle": 1,        # the king's two-square move; the rook's move is implied
    "double_push": 1,
})

#: A move as the move bus carries it.
MoveWord = data.StructLayout({
    "from_sq": 6,
    "to_sq": 6,
    "promotion": PieceType,    # EMPTY when the move is no promotion
    "flags": MoveFlags,
})

#: Values are signed 16-bit, a pawn about 100.
VALUE_WIDTH = 16

def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, py_enum.Enum):
        return value.value
    return value


def pack(layout, **fields):
    """The integer whose bits are ``fields`` laid out by ``layout`` (missing fields are 0; an
    integer wider than its field is truncated to it, an enumeration's field must hold one of its
    members: ``ValueError``, as Amaranth's ``layout.const``)."""
    return _codec(layout)[0](_plain(fields))


def unpack(layout, bits):
    """A dict of the fields of ``bits`` under ``layout``, nested layouts as nested dicts (arrays
    as lists); an enumeration's field as its integer value (``ValueError`` if it is none of the
    enumeration's), a signed field sign-extended."""
    return _codec(layout)[1](bits)


_CODECS = {}        # id(layout) -> (layout, its packer, its reader)


def _codec(layout):
    """``(packer, reader)`` of ``layout``: functions from plain field values (dicts, lists,
    integers) to bits and back, made once per layout from its fields' offsets and shapes (the
    host packs and unpacks every command and reply of the link)."""
    if id(layout) not in _CODECS:
        _CODECS[id(layout)] = (layout, *_make_codec(layout))
    return _CODECS[id(layout)][1:]


def _make_codec(shape):
    if isinstance(shape, data.ArrayLayout):
        (pack_element, read_element), width = _make_codec(shape.elem_shape), Shape.cast(shape.elem_shape).width

        def pack_array(values):
            if isinstance(values, data.Const):
                return _const_bits(shape, values)
            if not isinstance(values, (list, tuple)):
                raise TypeError(f"an array's value is a sequence, not {values!r}")
            if len(values) > shape.length:
                raise ValueError(f"{len(values)} values for an array of {shape.length}")
            return sum(pack_element(value) << (width * i) for i, value in enumerate(values))
        return pack_array, lambda bits: [read_element(bits >> (width * i)) for i in range(shape.length)]
    if isinstance(shape, data.Layout):
        fields = {name: (field.offset, *_make_codec(field.shape)) for name, field in shape}

        def pack_fields(values):
            if isinstance(values, data.Const):
                return _const_bits(shape, values)
            if not isinstance(values, dict):
                raise TypeError(f"a layout's value is a mapping, not {values!r}")
            bits = 0
            for name, value in values.items():
                if name not in fields:
                    raise ValueError(f"no field {name!r} in the layout")
                bits |= fields[name][1](value) << fields[name][0]
            return bits
        return pack_fields, lambda bits: {name: read(bits >> offset) for name, (offset, _, read) in fields.items()}
    plain = Shape.cast(shape)
    mask, sign = (1 << plain.width) - 1, (1 << (plain.width - 1) if plain.signed else 0)

    def read_plain(bits):
        return ((bits & mask) ^ sign) - sign

    def pack_plain(value):
        return (value.value if isinstance(value, Const) else operator.index(value)) & mask

    if isinstance(shape, py_enum.EnumMeta):
        valid = {member.value for member in shape}

        def member(value):
            if value not in valid:
                raise ValueError(f"{value} is not a valid {shape.__name__}")
            return value
        return lambda value: member(value) & mask, lambda bits: member(read_plain(bits))
    return pack_plain, read_plain


def _const_bits(layout, const):
    """The bits of an Amaranth constant of ``layout`` (``ValueError`` if it has another)."""
    if const.shape() != layout:
        raise ValueError(f"a constant of {const.shape()!r} where {layout!r} is laid out")
    return const.as_bits()


#: ``(type, colour)`` of every 4-bit piece code (colour 0 white, 1 black), read through
#: :data:`Piece`: Python code that works per halfmove indexes this instead of unpacking.
PIECE_FIELDS = tuple((fields["type"], fields["colour"]) for fields in (unpack(Piece, code) for code in range(16)))

#: The 4-bit code of each ``(type, colour)`` (colour 0 white, 1 black), packed by :data:`Piece`.
PIECE_CODES = {fields: code for code, fields in enumerate(PIECE_FIELDS)}

#: The piece code of a marker (type MARKER, colour white); the colour bit of a marker is unused.
MARKER = PIECE_CODES[PieceType.MARKER.value, Colour.WHITE.value]


def piece_code(piece_type, colour):
    """The 4-bit piece code of a python-chess piece type (1..6) and colour (True = white)."""
    return PIECE_CODES[int(piece_type), Colour.WHITE.value if colour else Colour.BLACK.value]
