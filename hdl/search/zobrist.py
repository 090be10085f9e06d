"""Zobrist hashing kept per halfmove (docs/architecture.md §5).

The key of a position is the XOR of one 64-bit random key per (piece code, square) standing on
the board — markers included, so castling rights and the en-passant square are in the key —
and of a side key when Black is to move. A halfmove XORs its (piece, square) key in, whether
it places or removes, so unmaking restores the key exactly.

The keys are splitmix64's outputs, so they can be read from a ROM (:class:`ZobristUnit`, 16
block RAMs) or computed (:class:`ComputedZobristUnit`, for a device short of block RAM).
"""

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import MARKER, PIECE_FIELDS, Halfmove, HalfmovePair, PieceType

__all__ = ["ZobristUnit", "ComputedZobristUnit", "piece_square_key", "SIDE_KEY", "KEY_BITS"]

KEY_BITS = 64
_SEED = 0x5EED_C0DE_CAFE_F00D
_GOLDEN, _MIX_1, _MIX_2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _splitmix64(state):
    state = (state + _GOLDEN) & (2**64 - 1)
    z = state
    z = ((z ^ (z >> 30)) * _MIX_1) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * _MIX_2) & (2**64 - 1)
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
    piece_type, _ = PIECE_FIELDS[piece]
    if piece_type == PieceType.EMPTY.value:
        return 0
    if piece_type == PieceType.MARKER.value:
        piece = MARKER
    return _KEYS[piece << 6 | square]


class ZobristUnit(wiring.Component):
    """The Zobrist key of the position the halfmove bus has built, and of the side to move.

    Latency: ``key`` includes a transfer (one or two halfmoves) from the second cycle after it
    (the key ROM is read in the transfer cycle, on both ports; the XOR lands at the next edge);
    ``side`` is combinational.

    Interface attributes
    --------------------
    halfmove : In(stream of HalfmovePair)   always ready
    side : In(1)                        1 = black to move
    clear : In(1)                       back to the empty board's key (0)
    key : Out(64)                       the key: a halfmove in cycle t is in it from t+2
    key_next : Out(64)                  the key as it will be in the next cycle (for memories
                                        addressed by the key, whose read takes a cycle)
    """

    halfmove: In(stream.Signature(HalfmovePair))
    side: In(1)
    clear: In(1)
    key: Out(KEY_BITS)
    key_next: Out(KEY_BITS)

    def elaborate(self, platform):
        m = Module()
        rom = [piece_square_key(code, square) for code in range(16) for square in range(64)]
        m.submodules.keys = keys = Memory(shape=KEY_BITS, depth=len(rom), init=rom)
        # One read port per halfmove of a transfer: the ROM's two block-RAM ports.
        reads = [keys.read_port(), keys.read_port()]
        transfer = self.halfmove.payload
        m.d.comb += self.halfmove.ready.eq(1)
        for read, halfmove in zip(reads, (transfer.first, transfer.second)):
            m.d.comb += read.addr.eq(halfmove.piece.as_value() << 6 | halfmove.square)
        taken = Signal()
        both = Signal()
        board_key = Signal(KEY_BITS)
        board_key_next = Signal(KEY_BITS)
        m.d.sync += [taken.eq(self.halfmove.valid), both.eq(transfer.both), board_key.eq(board_key_next)]
        with m.If(self.clear):
            m.d.comb += board_key_next.eq(0)
        with m.Elif(taken):
            m.d.comb += board_key_next.eq(board_key ^ reads[0].data ^ Mux(both, reads[1].data, 0))
        with m.Else():
            m.d.comb += board_key_next.eq(board_key)
        side_key = Mux(self.side, SIDE_KEY, 0)
        m.d.comb += [self.key.eq(board_key ^ side_key), self.key_next.eq(board_key_next ^ side_key)]
        return m


def _key_index(piece):
    """The 4-bit code's row of keys (a marker's colour bit ignored), and whether it has keys."""
    code = piece.as_value()
    return Mux(piece.type == PieceType.MARKER, PieceType.MARKER.value, code), piece.type != PieceType.EMPTY


class ComputedZobristUnit(wiring.Component):
    """:class:`ZobristUnit`'s keys without its ROM: each halfmove's key is computed by splitmix64
    from the index ``piece << 6 | square`` (key number i comes from the state ``seed + (i + 1) *
    golden``) with one 64-bit adder and a shift register, one multiplier bit per cycle.

    Latency: a halfmove is taken (``ready``) when its key is computed, 141 cycles after it is
    offered (at once for an empty square, which has no key); ``key`` includes it from the next
    cycle. ``side`` is combinational. The payload must stay while the key is computed, as a
    stream's does; ``valid`` may drop meanwhile (the halfmove is then taken when it is back).

    Interface attributes
    --------------------
    halfmove : In(stream of Halfmove)
    side : In(1)                        1 = black to move
    clear : In(1)                       back to the empty board's key (0); not while computing
    key : Out(64)
    """

    halfmove: In(stream.Signature(Halfmove))
    side: In(1)
    clear: In(1)
    key: Out(KEY_BITS)

    #: Multiplier bits of the three steps: the index + 1 (11 bits), then each mixing constant.
    INDEX_BITS = 11
    #: Cycles from a halfmove (of a piece or marker) offered to its being taken: the three
    #: multiplications, the first cycle and DONE.
    CYCLES = INDEX_BITS + 2 * KEY_BITS + 2

    def elaborate(self, platform):
        m = Module()
        payload = self.halfmove.payload
        code, has_key = _key_index(payload.piece)
        board_key = Signal(KEY_BITS)
        product = Signal(KEY_BITS)          # the accumulator of a step's multiplication
        addend = Signal(KEY_BITS)           # the multiplicand, shifted left each cycle
        multiplier = Signal(self.INDEX_BITS)
        bit = Signal(range(KEY_BITS))
        taken = Signal()                    # the multiplier's bit at ``bit``
        total = Signal(KEY_BITS)            # the product with this bit's addend (one adder)
        m.d.comb += total.eq(product + Mux(taken, addend, 0))

        def step(last_bit, shift, state):
            """A multiplier bit per cycle; after the last, the next multiplicand is
            ``total ^ total >> shift``."""
            with m.If(bit == last_bit):
                m.d.sync += [addend.eq(total ^ (total >> shift)), product.eq(0), bit.eq(0)]
                m.next = state
            with m.Else():
                m.d.sync += [product.eq(total), addend.eq(addend << 1), bit.eq(bit + 1)]

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.clear):
                    m.d.sync += board_key.eq(0)
                with m.Elif(self.halfmove.valid & ~has_key):
                    m.d.comb += self.halfmove.ready.eq(1)
                with m.Elif(self.halfmove.valid):
                    m.d.sync += [product.eq(_SEED), addend.eq(_GOLDEN), bit.eq(0),
                                 multiplier.eq((code << 6 | payload.square) + 1)]
                    m.next = "STATE"
            with m.State("STATE"):          # seed + (index + 1) * golden
                m.d.comb += taken.eq(multiplier.bit_select(bit, 1))
                step(self.INDEX_BITS - 1, 30, "MIX_1")
            for state, constant, shift, after in (("MIX_1", _MIX_1, 27, "MIX_2"), ("MIX_2", _MIX_2, 31, "DONE")):
                with m.State(state):
                    m.d.comb += taken.eq(Const(constant, KEY_BITS).bit_select(bit, 1))
                    step(KEY_BITS - 1, shift, after)
            with m.State("DONE"):           # the key is in ``addend``; the halfmove is taken
                m.d.comb += self.halfmove.ready.eq(1)
                with m.If(self.halfmove.valid):
                    m.d.sync += board_key.eq(board_key ^ addend)
                    m.next = "IDLE"
        m.d.comb += self.key.eq(board_key ^ Mux(self.side, SIDE_KEY, 0))
        return m
