"""The machine's view of a position, kept only through halfmoves, and the halfmoves of moves.

``MachinePosition`` holds what every state-keeping unit holds: a piece code per square and the
set of markers (castling rights on a1/h1/a8/h8, the en-passant target square). The functions
below turn python-chess positions and moves into halfmove sequences, in the canonical order the
hardware uses: markers taken away, pieces taken away, pieces placed, markers placed.
"""

from dataclasses import dataclass, field
from functools import cache

import chess
import chess.variant

from hdl.encoding import MARKER, PIECE_FIELDS, Colour, HalfmoveOp, HalfmovePair, pack, piece_code
from hdl.encoding import Halfmove as HalfmoveLayout

__all__ = [
    "Halfmove", "MachinePosition", "PositionError", "validate_board", "VARIANTS", "new_board",
    "setup_halfmoves", "move_halfmoves", "inverse", "transfers", "CASTLING_SQUARES",
]

#: The squares whose marker is a castling right (the rooks' home squares).
CASTLING_SQUARES = (chess.A1, chess.H1, chess.A8, chess.H8)


@dataclass(frozen=True)
class Halfmove:
    op: HalfmoveOp
    square: int
    piece: int      # 4-bit code; MARKER for a marker

    @property
    def fields(self):
        """The halfmove's fields, for ``pack`` with ``hdl.encoding.Halfmove``."""
        return {"op": self.op, "square": self.square, "piece": dict(zip(("type", "colour"), PIECE_FIELDS[self.piece]))}

    @property
    def bits(self):
        """The halfmove as the halfmove bus carries it (alone in a transfer)."""
        return _bits(self)

    def __str__(self):
        sign = "+" if self.op == HalfmoveOp.PLACE else "-"
        name = "marker" if self.piece == MARKER else _piece_symbol(self.piece)
        return f"{sign}{name}@{chess.square_name(self.square)}"


@cache
def _bits(halfmove):
    """``Halfmove.bits``, packed once for each halfmove (2,048 can be: op, square, 4-bit piece)."""
    return pack(HalfmoveLayout, **halfmove.fields)


def _piece_symbol(code):
    if code == 0:
        return "."
    piece_type, colour = PIECE_FIELDS[code]
    return chess.Piece(piece_type, colour == Colour.WHITE.value).symbol()


def transfers(halfmoves, pairs=True):
    """The halfmove bus's transfers (``HalfmovePair`` bits) that play ``halfmoves`` in order: two
    a transfer with ``pairs`` (the last alone when their number is odd), else one."""
    halfmoves = list(halfmoves)
    step = 2 if pairs else 1
    result = []
    for k in range(0, len(halfmoves), step):
        group = halfmoves[k:k + step]
        second = {"second": group[1].fields, "both": 1} if len(group) == 2 else {}
        result.append(pack(HalfmovePair, first=group[0].fields, **second))
    return result


def inverse(halfmoves):
    """The halfmoves that undo ``halfmoves``: each inverted, in reverse order."""
    flip = {HalfmoveOp.PLACE: HalfmoveOp.REMOVE, HalfmoveOp.REMOVE: HalfmoveOp.PLACE}
    return [Halfmove(flip[h.op], h.square, h.piece) for h in reversed(halfmoves)]


@dataclass
class MachinePosition:
    """Piece codes by square and the marker bitboard, changed only by :meth:`apply`."""
    pieces: list = field(default_factory=lambda: [0] * 64)
    markers: int = 0

    def apply(self, halfmove):
        bit = 1 << halfmove.square
        if halfmove.piece == MARKER:
            if halfmove.op == HalfmoveOp.PLACE:
                self.markers |= bit
            else:
                self.markers &= ~bit
        elif halfmove.op == HalfmoveOp.PLACE:
            self.pieces[halfmove.square] = halfmove.piece
        else:
            self.pieces[halfmove.square] = 0

    def apply_all(self, halfmoves):
        for h in halfmoves:
            self.apply(h)
        return self

    @classmethod
    def from_board(cls, board):
        return cls().apply_all(setup_halfmoves(board))

    def copy(self):
        return MachinePosition(list(self.pieces), self.markers)


#: The rules the machine plays, by their UCI names (as Fairy-Stockfish's ``UCI_Variant`` spells
#: them), and python-chess's board of each.
VARIANTS = {"chess": chess.Board, "antichess": chess.variant.AntichessBoard}


def new_board(variant="chess", fen=None):
    """A python-chess board of ``variant`` (one of ``VARIANTS``): its starting position, or
    ``fen`` (``ValueError`` if the FEN cannot be read; the position is not validated)."""
    if variant not in VARIANTS:
        raise ValueError(f"the machine plays {' and '.join(VARIANTS)}, not {variant!r}")
    board_class = VARIANTS[variant]
    return board_class() if fen is None else board_class(fen)


class PositionError(ValueError):
    """A position the machine cannot hold (no king, pawns on the back rank, ...)."""


_REJECTED = [
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "white has no king"),
    (chess.STATUS_NO_BLACK_KING, "black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "white has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "white has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "black has more than 16 pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling rights without king and rook at home"),
    (chess.STATUS_INVALID_EP_SQUARE, "the en-passant square is impossible"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
]


def validate_board(board):
    """Raise :class:`PositionError` naming every reason ``board`` is impossible: for chess, or
    for antichess (a ``chess.variant.AntichessBoard``: no castling, and a game not over already
    because the side not to move has no pieces); another variant's board is refused."""
    status = board.status()
    reasons = [text for flag, text in _REJECTED if status & flag]
    if board.uci_variant not in ("chess", "antichess"):
        reasons.append(f"the machine plays chess and antichess, not {board.uci_variant}")
    elif board.uci_variant == "antichess":
        if board.castling_rights:
            reasons.append("antichess has no castling rights")
        if not board.occupied_co[not board.turn]:
            reasons.append("the side not to move has no pieces: the game is over")
    if reasons:
        raise PositionError(f"impossible position {board.fen()}: " + "; ".join(reasons))


def _markers_of(board):
    squares = [sq for sq in CASTLING_SQUARES if board.castling_rights & chess.BB_SQUARES[sq]]
    if board.ep_square is not None:
        squares.append(board.ep_square)
    return squares


def setup_halfmoves(board):
    """Halfmoves that build ``board`` on an empty machine (pieces a1..h8, then markers)."""
    out = [Halfmove(HalfmoveOp.PLACE, sq, piece_code(p.piece_type, p.color))
           for sq, p in sorted(board.piece_map().items())]
    out += [Halfmove(HalfmoveOp.PLACE, sq, MARKER) for sq in _markers_of(board)]
    return out


def move_halfmoves(board, move):
    """The halfmoves that make ``move`` (a python-chess move legal or pseudo-legal on ``board``).

    ``board`` is left unchanged. The order is canonical: lost markers, the captured piece, the
    moving piece (and a castling rook) taken away, then the arriving pieces, then new markers.
    The null move (``chess.Move.null()``: the side to move passes) loses an en-passant marker.
    """
    before = set(_markers_of(board))
    if not move:
        board.push(move)
        try:
            after = set(_markers_of(board))
        finally:
            board.pop()
        return [Halfmove(HalfmoveOp.REMOVE, sq, MARKER) for sq in sorted(before - after)]
    mover = board.piece_at(move.from_square)
    removes, places = [], []
    if board.is_en_passant(move):
        victim_sq = move.to_square + (-8 if mover.color == chess.WHITE else 8)
        removes.append(Halfmove(HalfmoveOp.REMOVE, victim_sq, piece_code(chess.PAWN, not mover.color)))
    elif board.piece_at(move.to_square) is not None:
        victim = board.piece_at(move.to_square)
        removes.append(Halfmove(HalfmoveOp.REMOVE, move.to_square, piece_code(victim.piece_type, victim.color)))
    code = piece_code(mover.piece_type, mover.color)
    removes.append(Halfmove(HalfmoveOp.REMOVE, move.from_square, code))
    arriving = piece_code(move.promotion, mover.color) if move.promotion else code
    places.append(Halfmove(HalfmoveOp.PLACE, move.to_square, arriving))
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) == 6
        rook_from = chess.square(7 if kingside else 0, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        rook = piece_code(chess.ROOK, mover.color)
        removes.append(Halfmove(HalfmoveOp.REMOVE, rook_from, rook))
        places.append(Halfmove(HalfmoveOp.PLACE, rook_to, rook))
    board.push(move)
    try:
        after = set(_markers_of(board))
    finally:
        board.pop()
    lost = [Halfmove(HalfmoveOp.REMOVE, sq, MARKER) for sq in sorted(before - after)]
    gained = [Halfmove(HalfmoveOp.PLACE, sq, MARKER) for sq in sorted(after - before)]
    return lost + removes + places + gained
