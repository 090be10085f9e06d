"""Model of the Zobrist unit (hdl/search/zobrist.py): the key of a position, from scratch."""

from hdl.encoding import MARKER
from hdl.search.zobrist import SIDE_KEY, piece_square_key

__all__ = ["position_key"]


def position_key(position, side):
    """The key of a ``MachinePosition`` (pieces and markers) with ``side`` (1 = black) to move."""
    key = SIDE_KEY if side else 0
    for square, piece in enumerate(position.pieces):
        key ^= piece_square_key(piece, square)
        if position.markers >> square & 1:
            key ^= piece_square_key(MARKER, square)
    return key
