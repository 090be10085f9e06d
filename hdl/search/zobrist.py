"""Zobrist hashing kept per halfmove (shared/DESIGN.md §4.3).

The key of a position is the XOR of one 64-bit random key per (piece code, square) standing on
the board — markers included, so castling rights and the en-passant square are in the key —
and of a side key when Black is to move. A halfmove XORs its (piece, square) key in, whether
it places or removes, so unmaking restores the key exactly.

Latency: ``key`` includes a halfmove from the second cycle after its transfer (the key ROM is
read in the transfer cycle, the XOR lands at the next edge); ``side`` is combinational.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import Halfmove, PieceType

__all__ = ["ZobristUnit", "piece_square_key", "SIDE_KEY", "KEY_BITS"]

KEY_BITS = 64
_SEED = 0x5EED_C0DE_CAFE_F00D


def _splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & (2**64 - 1)
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return state, z ^ (z >> 31)


def _keys():
    state, keys = _SEED, []
    for _ in range(16 * 64 + 1):
        state, value = _splitmix64(state)
        keys.append(value)
    return keys


_KEYS = _keys()

#: XORed into the key when Black is to move.
SIDE_KEY = _KEYS[-1]


def piece_square_key(piece, square):
    """The key of a 4-bit piece code (a marker is code 7, its colour bit ignored) on a square;
    0 for the empty square."""
    if piece & 7 == PieceType.EMPTY.value:
        return 0
    if piece & 7 == PieceType.MARKER.value:
        piece = PieceType.MARKER.value
    return _KEYS[piece << 6 | square]


class ZobristUnit(wiring.Component):
    """The Zobrist key of the position the halfmove bus has built, and of the side to move.

    Interface attributes
    --------------------
    halfmove : In(stream of Halfmove)   always ready
    side : In(1)                        1 = black to move
    clear : In(1)                       back to the empty board's key (0)
    key : Out(64)                       the key: a halfmove in cycle t is in it from t+2
    key_next : Out(64)                  the key as it will be in the next cycle (for memories
                                        addressed by the key, whose read takes a cycle)
    """

    halfmove: In(stream.Signature(Halfmove))
    side: In(1)
    clear: In(1)
    key: Out(KEY_BITS)
    key_next: Out(KEY_BITS)

    def elaborate(self, platform):
        m = Module()
        rom = [piece_square_key(code, square) for code in range(16) for square in range(64)]
        m.submodules.keys = keys = Memory(shape=KEY_BITS, depth=len(rom), init=rom)
        read = keys.read_port()
        payload = self.halfmove.payload
        m.d.comb += [
            self.halfmove.ready.eq(1),
            read.addr.eq(payload.piece.as_value() << 6 | payload.square),
        ]
        taken = Signal()
        board_key = Signal(KEY_BITS)
        board_key_next = Signal(KEY_BITS)
        m.d.sync += [taken.eq(self.halfmove.valid), board_key.eq(board_key_next)]
        with m.If(self.clear):
            m.d.comb += board_key_next.eq(0)
        with m.Elif(taken):
            m.d.comb += board_key_next.eq(board_key ^ read.data)
        with m.Else():
            m.d.comb += board_key_next.eq(board_key)
        side_key = Mux(self.side, SIDE_KEY, 0)
        m.d.comb += [self.key.eq(board_key ^ side_key), self.key_next.eq(board_key_next ^ side_key)]
        return m
