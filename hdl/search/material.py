"""The material balance, kept per halfmove: what the recapture extension compares, and the
pieces each side has, which null-move pruning asks for.

``balance`` is White's material minus Black's in pawns (pawn 1, knight and bishop 3, rook 5,
queen 9; kings and markers 0); ``pieces[colour]`` counts that side's knights, bishops, rooks
and queens. A halfmove adds or removes its piece, so unmaking restores both exactly. Latency:
a halfmove transferred in cycle t is in ``balance`` and ``pieces`` from cycle t + 1.
"""

from amaranth import Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..encoding import Colour, Halfmove, HalfmoveOp, PieceType

__all__ = ["PIECE_VALUES", "MaterialCounter"]

#: Pawns per piece type, in ``PieceType`` order (empty, pawn, ..., king, marker).
PIECE_VALUES = [0, 1, 3, 3, 5, 9, 0, 0]


class MaterialCounter(wiring.Component):
    """Interface attributes
    --------------------
    halfmove : In(stream of Halfmove)   always ready
    clear : In(1)                       the balance and the counts become 0 (the empty board)
    balance : Out(signed(8))
    pieces : Out(array of 2 x 4 bits)   per colour (``Colour``), its pieces other than pawns and king
    """

    halfmove: In(stream.Signature(Halfmove))
    clear: In(1)
    balance: Out(signed(8))
    pieces: Out(data.ArrayLayout(4, 2))

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.halfmove.ready.eq(1)
        hm = self.halfmove.payload
        amount = Signal(4)
        with m.Switch(hm.piece.type):
            for piece_type, pawns in zip(PieceType, PIECE_VALUES):
                with m.Case(piece_type):
                    m.d.comb += amount.eq(pawns)
        gains = (hm.op == HalfmoveOp.PLACE) == (hm.piece.colour == Colour.WHITE)
        piece = (hm.piece.type == PieceType.KNIGHT) | (hm.piece.type == PieceType.BISHOP) \
            | (hm.piece.type == PieceType.ROOK) | (hm.piece.type == PieceType.QUEEN)
        count = self.pieces[hm.piece.colour.as_value()]
        with m.If(self.clear):
            m.d.sync += [self.balance.eq(0), self.pieces.eq(0)]
        with m.Elif(self.halfmove.valid):
            m.d.sync += self.balance.eq(Mux(gains, self.balance + amount, self.balance - amount))
            with m.If(piece):
                m.d.sync += count.eq(Mux(hm.op == HalfmoveOp.PLACE, count + 1, count - 1))
        return m

