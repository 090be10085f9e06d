"""Antichess on the machine (issue 18): how the host searches it and the Oracle's knowledge of it.

The rules are python-chess's ``chess.variant.AntichessBoard`` (as played on the major
servers): captures are compulsory, the king is an ordinary piece, a pawn promotes to a king
too, and a side that has lost all its pieces or has no legal move wins. The generator plays
them in its antichess mode (``GenConfig``, docs/architecture.md §5.1) and the search's
microprogram knows the terminal rule (§5.3); this module chooses, per search:

* ``VICTIM_ORDER``: the capture order of the generator's keys: the most valuable victim first,
  as in chess. The antichess paper (Kumaresh et al.) reverses it; on 40 random antichess
  positions the reversed order took 16 % more nodes at depth 3 and 31 % more at depth 4
  (BENCHMARKS.md), so it stays a choice of START (``VictimOrder``), not the default.
* ``search_features``: the search's features without those that assume a side may pass or
  that a quiet move is seldom decisive — null-move pruning (and its verification), reverse
  futility and futility pruning. Zugzwang is the rule in antichess, not the exception, and a
  quiet move that offers a piece forces the reply. (A reasoned choice, not yet measured
  against the full set in games.)
* ``AntichessMaterial``: the evaluator's first-order table (the Oracle's knowledge of an
  antichess root): each piece counts against its side (a side wins by losing them all), less
  for the pieces that are hard to force into a capture (:data:`PIECE_VALUES`), with a small
  bonus for central squares, where a piece has more moves to choose from when the opponent
  runs out of safe ones. Hand values, not yet fitted to a peer's scores.
"""

from dataclasses import replace

import chess

from hdl.movegen.layouts import VictimOrder

from .tables import FirstOrder

__all__ = ["VICTIM_ORDER", "PIECE_VALUES", "PIECE_COUNT", "CENTRE", "search_features", "victim_order",
           "AntichessMaterial", "is_antichess"]

VICTIM_ORDER = VictimOrder.MOST_VALUABLE

#: What each piece is worth to its side, in centipawns, before ``PIECE_COUNT``: the pieces that
#: are hard to force into a capture (a king, a rook) weigh against their count; the queen and
#: bishops, which are easily given away, less; a pawn least.
PIECE_VALUES = {chess.PAWN: 20, chess.KNIGHT: 30, chess.BISHOP: 30, chess.ROOK: 70, chess.QUEEN: 60,
                chess.KING: 100}
#: What every piece costs its side: fewer pieces is nearer the win.
PIECE_COUNT = -50
#: Per ring towards the centre (0 on the edge, 3 in the centre): more squares to move to.
CENTRE = 4


def is_antichess(board):
    """Whether ``board`` (a python-chess board) plays antichess."""
    return board.uci_variant == "antichess"


def search_features(features, board):
    """The features a search of ``board`` runs with: ``features`` in chess; in antichess without
    null-move pruning, its verification, futility and reverse futility pruning."""
    if not is_antichess(board):
        return features
    return replace(features, null=False, verification=False, futility=False, reverse=False)


def victim_order(board):
    """The generator's capture order for a search of ``board``."""
    return VICTIM_ORDER if is_antichess(board) else VictimOrder.MOST_VALUABLE


def _ring(square):
    return 3 - max(abs(2 * chess.square_file(square) - 7), abs(2 * chess.square_rank(square) - 7)) // 2


class AntichessMaterial:
    """The antichess first-order table: per piece ``PIECE_COUNT`` + ``PIECE_VALUES`` + ``CENTRE``
    per ring towards the centre, counted for its side (White's view)."""

    def g(self, piece, square):
        value = PIECE_COUNT + PIECE_VALUES[piece.piece_type] + CENTRE * _ring(square)
        return value if piece.color == chess.WHITE else -value

    def definition(self, board):
        return sum(self.g(piece, square) for square, piece in board.piece_map().items())

    def install(self, image):
        image.add_first_order(FirstOrder(self.g))
