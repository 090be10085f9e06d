"""The material balance, kept per halfmove: what the recapture extension compares, and the
pieces each side has, which null-move pruning asks for.

``balance`` is White's material minus Black's in pawns (pawn 1, knight and bishop 3, rook 5,
queen 9; kings and markers 0); ``pieces[colour]`` counts that side's knights, bishops, rooks
and queens. A halfmove adds or removes its piece, so unmaking restores both exactly. Latency:
a transfer (one or two halfmoves) in cycle t is in ``balance`` and ``pieces`` from cycle t + 1.
"""

from amaranth import Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..encoding import Colour, HalfmoveOp, HalfmovePair, PieceType

__all__ = ["PIECE_VALUES", "MaterialCounter"]

#: Pawns per piece type, in ``PieceType`` order (empty, pawn, ..., king, marker).
PIECE_VALUES = [0, 1, 3, 3, 5, 9, 0, 0]


class MaterialCounter(wiring.Component):
    """Interface attributes
    --------------------
    halfmove : In(stream of HalfmovePair)   always ready; one or two halfmoves a transfer
    clear : In(1)                       the balance and the counts become 0 (the empty board)
    balance : Out(signed(8))
    pieces : Out(array of 2 x 4 bits)   per colour (``Colour``), its pieces other than pawns and king
    """

    halfmove: In(stream.Signature(HalfmovePair))
    clear: In(1)
    balance: Out(signed(8))
    pieces: Out(data.ArrayLayout(4, 2))

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.halfmove.ready.eq(1)
        transfer = self.halfmove.payload
        balance, pieces = self.balance, [self.pieces[colour] for colour in range(2)]
        first = self._apply(m, "first", balance, pieces, transfer.first)
        both = self._apply(m, "second", *first, transfer.second)
        with m.If(self.clear):
            m.d.sync += [self.balance.eq(0), self.pieces.eq(0)]
        with m.Elif(self.halfmove.valid):
            for after_balance, after_pieces, chosen in ((*first, ~transfer.both), (*both, transfer.both)):
                with m.If(chosen):
                    m.d.sync += self.balance.eq(after_balance)
                    m.d.sync += [count.eq(after) for count, after in zip(pieces, after_pieces)]
        return m

    @staticmethod
    def _apply(m, name, balance, pieces, halfmove):
        """``(balance, [white's pieces, black's])`` after ``halfmove``."""
        amount = Signal(4, name=f"amount_{name}")
        with m.Switch(halfmove.piece.type):
            for piece_type, pawns in zip(PieceType, PIECE_VALUES):
                with m.Case(piece_type):
                    m.d.comb += amount.eq(pawns)
        placing = halfmove.op == HalfmoveOp.PLACE
        gains = placing == (halfmove.piece.colour == Colour.WHITE)
        is_piece = (halfmove.piece.type == PieceType.KNIGHT) | (halfmove.piece.type == PieceType.BISHOP) \
            | (halfmove.piece.type == PieceType.ROOK) | (halfmove.piece.type == PieceType.QUEEN)
        after_balance = Signal(signed(8), name=f"balance_{name}")
        m.d.comb += after_balance.eq(Mux(gains, balance + amount, balance - amount))
        after_pieces = []
        for colour, count in enumerate(pieces):
            after = Signal(4, name=f"pieces_{colour}_{name}")
            mine = is_piece & (halfmove.piece.colour == Colour(colour))
            m.d.comb += after.eq(Mux(mine, Mux(placing, count + 1, count - 1), count))
            after_pieces.append(after)
        return after_balance, after_pieces
