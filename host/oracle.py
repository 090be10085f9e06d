"""The Oracle, first stage (docs/architecture.md §7): it looks at the root, decides the game's
phase, and compiles the knowledge that fits it into the evaluator's tables.

* Middlegame (more than 13 pawns' worth of pieces besides pawns and kings, counting
  N=B=3, R=5, Q=9): material and piece-square with the king seeking shelter, the pawn shelter
  recognizer, pawn structure and phase-scaled king safety.
* Endgame: material and piece-square with the king seeking the centre, and pawn structure.

A configuration with too few recognizers or global units for a pattern leaves it out. The
compiled table sets are kept per phase, so the board's checksums show them unchanged and
nothing is sent again while the phase stays.
"""

import chess

from .patterns import KingSafety, MaterialPieceSquare, PawnStructure, ShelterRecognizer
from .tables import EvaluatorImage, TableError

__all__ = ["Oracle", "game_phase", "ENDGAME_MATERIAL"]

#: Piece material (in pawns, both sides) at or below which the game is an endgame.
ENDGAME_MATERIAL = 13

_PIECE_PAWNS = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def game_phase(board):
    """``"middlegame"`` or ``"endgame"``, from the pieces (not pawns, not kings) on the board."""
    material = sum(_PIECE_PAWNS.get(p.piece_type, 0) for p in board.piece_map().values())
    return "endgame" if material <= ENDGAME_MATERIAL else "middlegame"


class Oracle:
    """Chooses and compiles the tables for a root position, for one evaluator configuration."""

    PHASE_PATTERNS = {
        "middlegame": lambda: [MaterialPieceSquare(endgame=False), ShelterRecognizer(), PawnStructure(), KingSafety()],
        "endgame": lambda: [MaterialPieceSquare(endgame=True), PawnStructure()],
    }

    def __init__(self, params):
        self.params = params
        self._stores = {}
        self.left_out = {}          # phase -> patterns that did not fit the configuration
        self.recognizer_patterns = {}   # phase -> the pattern each recognizer serves, in unit order

    def patterns(self, phase):
        return self.PHASE_PATTERNS[phase]()

    def tables_for(self, board):
        """``(phase, TableStore)`` for a root position."""
        phase = game_phase(board)
        if phase not in self._stores:
            image = EvaluatorImage(self.params)
            left_out, served = [], []
            for pattern in self.patterns(phase):
                trial = _copy_image(image)
                try:
                    pattern.install(trial)
                except TableError:
                    left_out.append(type(pattern).__name__)
                    continue
                served += [type(pattern).__name__] * (len(trial.recognizers) - len(image.recognizers))
                image = trial
            self._stores[phase] = image.store()
            self.left_out[phase] = left_out
            self.recognizer_patterns[phase] = served
        return phase, self._stores[phase]


def _copy_image(image):
    copy = EvaluatorImage(image.params)
    copy.first_order_terms = list(image.first_order_terms)
    copy.globals = list(image.globals)
    copy.recognizers = list(image.recognizers)
    return copy
