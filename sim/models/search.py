"""The reference search: the algorithm the search microprogram (hdl/search/microcode.py) runs,
over the models of the generator and the evaluator, written as a plain recursive negamax.

For the same position, tables and limits it visits the same nodes in the same order as the
hardware, and returns the same value and best move; tests compare the two node for node (the
node counts must be equal, not close).

The algorithm (fail-soft alpha-beta):

* A node counts once when entered: the root, and each child whose move is legal.
* A node other than the root whose position repeats one since the last irreversible move, the
  game's positions before the root included (``sim.models.repetition``), is a draw: 0.
* At the deepest ply (``max_ply`` - 1) a node returns its static value.
* A quiescence node (depth 0) not in check stands pat: the static value is its best so far
  and a cutoff if it reaches beta. It then tries captures and queen promotions only — every
  move when in check (and then it does not stand pat).
* Moves come in the generator's order; each is made, and unmade at once if it leaves the
  mover's king attacked. A child has one ply less, except that a node in check does not count
  its moves as a ply, nor is a capture counted that restores the root's material balance (the
  recapture extension); a quiescence node's children are quiescence nodes.
* ``v`` = -child's value: if ``v`` > best, it is the best (with its move); if ``v`` > alpha,
  alpha rises; if ``v`` >= beta, the node returns its best at once.
* A node with no legal move returns its starting best, mated here (``ply`` - MATE), except a
  full-width node not in check: stalemate, 0.
* The static value is the evaluator's, from the side to move's view, clamped to
  +-``EVAL_LIMIT``.
"""

from dataclasses import dataclass

import chess

from hdl.encoding import HalfmoveOp
from hdl.search.frame import EVAL_LIMIT, INFINITY, MATE
from hdl.search.material import PIECE_VALUES
from hdl.search.zobrist import SIDE_KEY, piece_square_key

from .evaluator import EvaluatorModel
from .ordering import ordered_moves
from .position import inverse, move_halfmoves, setup_halfmoves
from .repetition import game_history, repeats

__all__ = ["ReferenceSearch", "ReferenceResult", "material_balance"]


def material_balance(board):
    """White's material minus Black's in pawns, as hdl/search/material.py counts it."""
    return sum(PIECE_VALUES[piece.piece_type] * (1 if piece.color == chess.WHITE else -1)
               for piece in board.piece_map().values())


@dataclass(frozen=True)
class ReferenceResult:
    score: int
    move: chess.Move    # None when no move was best (no legal move, or the root stood pat)
    nodes: int


class ReferenceSearch:
    """Searches a python-chess board with an evaluator's tables (a ``TableStore``)."""

    def __init__(self, params, store, *, max_ply=64):
        self.params, self.store, self.max_ply = params, store, max_ply

    def search(self, board, depth, alpha=-INFINITY, beta=INFINITY):
        self.board = board.copy(stack=False)
        self.evaluator = EvaluatorModel(self.params, self.store)
        for halfmove in setup_halfmoves(self.board):
            self.evaluator.apply(halfmove)
        self.root_material = material_balance(self.board)
        self.material = self.root_material
        self.path = game_history(board)         # [(key, irreversible)], the root last
        self.board_key = self.path[-1][0] ^ (SIDE_KEY if board.turn == chess.BLACK else 0)
        self.nodes = 0
        score, move = self._node(0, depth, alpha, beta)
        return ReferenceResult(score, move, self.nodes)

    def static(self):
        self.evaluator.set_side(0 if self.board.turn == chess.WHITE else 1)
        value = self.evaluator.value()
        if self.board.turn == chess.BLACK:
            value = -value
        return max(-EVAL_LIMIT, min(EVAL_LIMIT, value))

    def _node(self, ply, depth, alpha, beta):
        """The node's value and best move (None if none improved on its starting best)."""
        self.nodes += 1
        board = self.board
        checked = board.is_check()
        best, best_move, legal = ply - MATE, None, False
        if ply > 0 and repeats(self.path):
            return 0, None
        if ply == self.max_ply - 1:
            return self.static(), None
        if depth == 0 and not checked:
            stand_pat = self.static()
            best = stand_pat
            alpha = max(alpha, stand_pat)
            if stand_pat >= beta:
                return best, None
        for move in ordered_moves(board, captures=depth == 0):
            capture = board.is_capture(move)
            pawn, rights = board.piece_type_at(move.from_square) == chess.PAWN, board.castling_rights
            halfmoves = self._make(move)
            if board.was_into_check():
                self._unmake(halfmoves)
                continue
            # irreversible as sim.models.repetition.is_irreversible counts it
            self.path.append((self.key(), capture or pawn or board.castling_rights != rights))
            if depth == 0:
                child_depth = 0
            else:
                recapture = capture and self.material == self.root_material
                child_depth = depth - 1 + (checked or recapture)
            value = -self._node(ply + 1, child_depth, -beta, -alpha)[0]
            self.path.pop()
            self._unmake(halfmoves)
            legal = True
            if value > best:
                best, best_move = value, move
            alpha = max(alpha, value)
            if value >= beta:
                return best, best_move
        if not legal and not checked and depth > 0:
            return 0, None
        return best, best_move

    def key(self):
        """The Zobrist key of the position, the side to move included."""
        return self.board_key ^ (SIDE_KEY if self.board.turn == chess.BLACK else 0)

    def _make(self, move):
        halfmoves = move_halfmoves(self.board, move)
        self._apply(halfmoves)
        self.board.push(move)
        return halfmoves

    def _unmake(self, halfmoves):
        self.board.pop()
        self._apply(inverse(halfmoves))

    def _apply(self, halfmoves):
        for halfmove in halfmoves:
            self.evaluator.apply(halfmove)
            self.material += _material_change(halfmove)
            self.board_key ^= piece_square_key(halfmove.piece, halfmove.square)



def _material_change(halfmove):
    """The change of White's material minus Black's that a halfmove makes."""
    value = PIECE_VALUES[halfmove.piece & 7]
    white = (halfmove.piece >> 3) == 0
    return value if (halfmove.op == HalfmoveOp.PLACE) == white else -value
