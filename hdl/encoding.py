"""The shared bit formats of the machine (docs/architecture.md §3), defined once.

Hardware uses these layouts directly; Python code (models, host, tests) packs and unpacks
through the same layouts with :func:`pack` and :func:`unpack`, never by hand-written shifts.
"""

import enum as py_enum

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
    """The integer whose bits are ``fields`` laid out by ``layout`` (missing fields are 0)."""
    return layout.const(_plain(fields)).as_bits()


def unpack(layout, bits):
    """A dict of the fields of ``bits`` under ``layout``, nested layouts as nested dicts (arrays
    as lists)."""
    view = layout.from_bits(bits)
    return _fields(layout, view)


def _fields(layout, view):
    if isinstance(layout, data.ArrayLayout):
        return [_fields(layout.elem_shape, view[i]) if isinstance(layout.elem_shape, data.Layout)
                else int(view[i]) for i in range(layout.length)]
    out = {}
    for name, field in layout:
        value = view[name]
        shape = field.shape
        if isinstance(shape, data.Layout):
            out[name] = _fields(shape, value)
        elif isinstance(shape, enum.EnumType) or isinstance(value, py_enum.Enum):
            out[name] = value.value if isinstance(value, py_enum.Enum) else int(value)
        else:
            out[name] = int(value)
    return out


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
