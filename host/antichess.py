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
* the search's features: the same as in chess. Null-move pruning (with its verification),
  reverse futility and futility pruning assume that a side may pass and that a quiet move is
  seldom decisive, which zugzwang and forced captures deny in antichess; but played without
  them the machine scored 28.5/100 against Fairy-Stockfish and with them 33.0/100 on the same
  games (BENCHMARKS.md, 2026-11-26 sixth): no sign that leaving them out pays, so the host
  sends the features it is given (the UCI ``Features`` option turns any off).
* the Oracle's antichess knowledge (:data:`ANTICHESS_LIBRARY`), chosen per root like the chess
  library's: :class:`AntichessMaterial` (each piece's value to its side by kind and square: a
  side wins by losing them all), :class:`Mobility` (room to move, on the root's board),
  :class:`Exposure` (pieces the enemy attacks or the own side guards at the root: the forced
  captures to come), :class:`PiecesLeft` (the race to the last piece) and :class:`ToMove` (the
  side to move; both recognizers). Their values (:data:`PARAMETERS`) are fitted to
  Fairy-Stockfish's scores of antichess positions, each valued with the patterns frozen at
  itself and at the positions before it (``data/make_antichess_values.py``,
  :mod:`host.antichess_values`); :data:`HAND_VALUES` are the guesses the fit starts from.
"""

import chess

from hdl.movegen.geometry import CENTRALITY
from hdl.movegen.layouts import VictimOrder

from .antichess_values import VALUES
from .patterns import Tempo, colour_sign
from .root_patterns import attack_mask
from .tables import FirstOrder, Recognizer, output_step

__all__ = ["VICTIM_ORDER", "PARAMETERS", "HAND_VALUES", "victim_order", "is_antichess",
           "LEFT", "AntichessMaterial", "Mobility", "Exposure", "PiecesLeft", "ToMove", "ANTICHESS_LIBRARY",
           "library_patterns", "parameter_columns"]

VICTIM_ORDER = VictimOrder.MOST_VALUABLE

_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
#: The most pieces a side counts as "left" (:class:`PiecesLeft`).
LEFT = 3

#: The antichess knowledge's parameters, in centipawns per White piece (Black's count against
#: White), each a column of the fit:
#:
#: * ``pawn-2`` .. ``pawn-7``: a pawn on its side's second .. seventh rank;
#: * ``knight`` .. ``king``: a piece of that kind; ``knight-centre`` ..: per ring towards the
#:   centre (0 on the edge, 3 on d4-e5) of its square;
#: * ``knight-mobility`` ..: per square the piece would attack from its square on the root's
#:   board, not held by its own side's pieces there;
#: * ``exposed-pawn``, ``exposed-piece``: a pawn, a piece on a square the enemy attacked at the
#:   root; ``guarded``: a pawn or piece on a square its own side attacked at the root;
#: * ``left-1`` .. ``left-3``: a side with exactly that many pieces (pawns and king counted);
#: * ``to-move``: the side to move (White's view: Black to move counts against White).
PARAMETERS = tuple([f"pawn-{rank}" for rank in range(2, 8)]
                   + [chess.piece_name(t) for t in _PIECES]
                   + [f"{chess.piece_name(t)}-centre" for t in _PIECES]
                   + [f"{chess.piece_name(t)}-mobility" for t in _PIECES]
                   + ["exposed-pawn", "exposed-piece", "guarded"]
                   + [f"left-{count}" for count in range(1, LEFT + 1)] + ["to-move"])

#: The hand values the fit starts from (its ridge pulls towards them): each piece costs its side
#: 50, less the more it is hard to force into a capture (a king most, a rook, then the queen and
#: minor pieces); 4 a ring towards the centre; nothing known of the rest.
HAND_VALUES = {name: 0 for name in PARAMETERS} | {f"pawn-{rank}": -30 for rank in range(2, 8)} | {
    "knight": -20, "bishop": -20, "rook": 20, "queen": 10, "king": 50,
    **{f"{chess.piece_name(t)}-centre": 4 for t in _PIECES}}


def is_antichess(board):
    """Whether ``board`` (a python-chess board) plays antichess."""
    return board.uci_variant == "antichess"


def victim_order(board):
    """The generator's capture order for a search of ``board``."""
    return VICTIM_ORDER if is_antichess(board) else VictimOrder.MOST_VALUABLE


class AntichessPattern:
    """A pattern of the antichess knowledge, made for a root ``board`` with ``values``
    ({parameter: centipawns}, the fitted :data:`~host.antichess_values.VALUES` by default; a
    parameter missing counts 0): its value is linear in them (what the fit relies on). A
    first-order pattern's ``g(piece, square)`` is summed over the board."""

    #: The :data:`PARAMETERS` the pattern reads.
    parameters = ()
    #: Whether the pattern is the same at every root (the Oracle makes and compiles it once).
    general = False
    #: Its family (:data:`host.library.FAMILIES`: what ``without`` leaves out).
    family = ""

    def __init__(self, board=None, values=None):
        values = VALUES if values is None else values
        self.values = {name: values.get(name, 0) for name in self.parameters}

    def definition(self, board):
        return sum(self.g(piece, square) for square, piece in board.piece_map().items())

    def install(self, image):
        image.add_first_order(FirstOrder(self.g))

    def __repr__(self):
        return type(self).__name__


class AntichessMaterial(AntichessPattern):
    """Each piece's value to its side (White's view): a pawn by its rank (``pawn-2`` ..), a piece
    by its kind and ring towards the centre (``knight`` + ``knight-centre`` x ring, ..). The
    same at every root."""

    family = "material"
    parameters = tuple(name for name in PARAMETERS if name.startswith("pawn-")
                       or name.removesuffix("-centre") in map(chess.piece_name, _PIECES))
    general = True

    def g(self, piece, square):
        if piece.piece_type == chess.PAWN:
            rank = chess.square_rank(square) if piece.color == chess.WHITE else 7 - chess.square_rank(square)
            value = self.values.get(f"pawn-{rank + 1}", 0)
        else:
            name = chess.piece_name(piece.piece_type)
            value = self.values[name] + self.values[f"{name}-centre"] * CENTRALITY[square]
        return colour_sign(piece.color) * value

    @staticmethod
    def relevance(board):
        return 1.0


class Mobility(AntichessPattern):
    """Room to move, frozen at the root: a piece (not a pawn) gains ``knight-mobility`` .. per
    square it would attack from its square on the root's board (the root's pieces in the way),
    not held by its own side's pieces there. A side with moves to spare waits while the other
    runs out of safe ones."""

    family = "pieces"
    parameters = tuple(f"{chess.piece_name(t)}-mobility" for t in _PIECES)

    def __init__(self, board, values=None):
        super().__init__(board, values)
        self.occupied, self.own = board.occupied, {c: board.occupied_co[c] for c in chess.COLORS}

    def g(self, piece, square):
        if piece.piece_type == chess.PAWN:
            return 0
        moves = chess.popcount(attack_mask(piece, square, self.occupied) & ~self.own[piece.color])
        return colour_sign(piece.color) * self.values[f"{chess.piece_name(piece.piece_type)}-mobility"] * moves

    @staticmethod
    def relevance(board):
        return 1.0 if board.occupied & ~board.pawns else 0


class Exposure(AntichessPattern):
    """The forced captures to come, frozen at the root: a pawn on a square the enemy attacked at
    the root gains ``exposed-pawn``, a piece ``exposed-piece`` (the enemy will have to take it,
    unless it has something else to take); a pawn or piece on a square its own side attacked
    gains ``guarded`` (a capture there forces the recapture)."""

    family = "root"
    parameters = ("exposed-pawn", "exposed-piece", "guarded")

    def __init__(self, board, values=None):
        super().__init__(board, values)
        self.attacked = {colour: 0 for colour in chess.COLORS}
        for square, piece in board.piece_map().items():
            self.attacked[piece.color] |= attack_mask(piece, square, board.occupied)

    def g(self, piece, square):
        bit = chess.BB_SQUARES[square]
        value = 0
        if self.attacked[not piece.color] & bit:
            value += self.values["exposed-pawn" if piece.piece_type == chess.PAWN else "exposed-piece"]
        if self.attacked[piece.color] & bit:
            value += self.values["guarded"]
        return colour_sign(piece.color) * value

    @staticmethod
    def relevance(board):
        return 1.0


class PiecesLeft(AntichessPattern):
    """The race to the last piece (a recognizer): a side with exactly 1 .. ``LEFT`` pieces
    (pawns and king counted) gains ``left-1`` .. (White's view: Black's count against White).
    Its 8-bit output steps by ``1 << shift``, the least that holds the largest difference; the
    values are rounded to it. White's count in branch A, Black's in B. The same at every
    root."""

    family = "endgame"
    parameters = tuple(f"left-{count}" for count in range(1, LEFT + 1))
    general = True

    def __init__(self, board=None, values=None):
        super().__init__(board, values)
        self.shift, self.left = output_step([0] + [self.values[f"left-{count}"] for count in range(1, LEFT + 1)])

    def value(self, white, black):
        """What a board with ``white`` and ``black`` pieces is worth."""
        def side(count):
            return self.left[count] if count <= LEFT else 0
        return side(white) - side(black)

    def definition(self, board):
        return self.value(*(chess.popcount(board.occupied_co[c]) for c in chess.COLORS))

    def install(self, image):
        def description(piece, square):
            return {"white" if piece.color == chess.WHITE else "black": 1}
        image.add_recognizer(Recognizer(
            fields_a=[("white", 5)], fields_b=[("black", 5)], description=description,
            summary_a=lambda v, ext: min(v["white"], LEFT + 1), summary_b=lambda v, ext: min(v["black"], LEFT + 1),
            where_a=lambda v: v["white"] <= 16, where_b=lambda v: v["black"] <= 16,
            combine=self.value, final=lambda value, contexts: value, shift=self.shift))

    @staticmethod
    def relevance(board):
        """Some side within three captures of the race's end."""
        return 1.0 if min(chess.popcount(board.occupied_co[c]) for c in chess.COLORS) <= LEFT + 3 else 0


class ToMove(AntichessPattern):
    """The side to move gains ``to-move`` (a recognizer, :class:`~host.patterns.Tempo`). In a
    quiet antichess position the side to move chooses which piece to offer and the other must
    take: being to move is worth much more than in chess. The same at every root."""

    family = "tempo"
    parameters = ("to-move",)
    general = True

    def __init__(self, board=None, values=None):
        super().__init__(board, values)
        self.tempo = Tempo(self.values["to-move"])

    def definition(self, board):
        return self.tempo.definition(board)

    def install(self, image):
        self.tempo.install(image)

    @staticmethod
    def relevance(board):
        return 1.0


#: The Oracle's antichess library: {name: pattern class}, the base table first.
ANTICHESS_LIBRARY = {"antichess-material": AntichessMaterial, "antichess-mobility": Mobility,
                     "antichess-exposure": Exposure, "pieces-left": PiecesLeft, "antichess-to-move": ToMove}

assert sorted(sum((cls.parameters for cls in ANTICHESS_LIBRARY.values()), ())) == sorted(PARAMETERS)


def library_patterns(board):
    """Every pattern of the library made for the root ``board``, whatever its relevance there."""
    return [cls(board) for cls in ANTICHESS_LIBRARY.values()]


def parameter_columns(board, root=None):
    """Every parameter's share of the library's value of ``board`` with the patterns made at
    ``root`` (``board`` itself by default): the patterns' definitions with that parameter 1 and
    the rest 0, in :data:`PARAMETERS` order."""
    root = board if root is None else root
    shares = {}
    for cls in ANTICHESS_LIBRARY.values():
        for name in cls.parameters:
            shares[name] = cls(root, {name: 1}).definition(board)
    return [shares[name] for name in PARAMETERS]
