"""The Oracle's pattern library: every pattern it can choose, with how much it matters at a
root and how to make it for that root.

Each entry is ``(relevance, make, family, general)``: ``relevance(analysis)`` scores the pattern
for the root of a :class:`~host.analysis.RootAnalysis` (0: it does not apply there),
``make(analysis, board)`` builds it, ``family`` is one of :data:`FAMILIES` (what a family
match leaves out), and ``general`` says it is the same at every root (the Oracle makes and
compiles it once). The patterns themselves are in :mod:`host.patterns` (general ones, the same at every
root) and :mod:`host.root_patterns` (made for one root).
"""

import math
from collections import namedtuple

import chess

from .antichess import ANTICHESS_LIBRARY
from .patterns import (
    BishopPair,
    InsufficientMaterial,
    KingSafety,
    PawnIslands,
    PawnStructure,
    ShelterRecognizer,
)
from .root_patterns import ROOT_PATTERNS

__all__ = ["LIBRARY", "Entry", "FAMILIES", "LEAVABLE", "not_leavable", "parse_weights"]

Entry = namedtuple("Entry", "relevance make family general", defaults=(False,))

#: The pattern families: pawn structure, king safety, the pieces' placement, endgame knowledge,
#: material terms, the root's own targets (its attack relations), and the side to move (the
#: antichess library's; host/antichess.py).
FAMILIES = ("pawns", "king", "pieces", "endgame", "material", "root", "tempo")


def _shelter(wing):
    """A king castled on ``wing``, or still free to castle there, with pieces on the board."""
    def relevance(analysis):
        if analysis.phase <= 0.3:
            return 0
        kings = analysis.kings.values()
        return analysis.phase * (1.5 * sum(k.castled == wing for k in kings) + 0.5 * sum(wing in k.castling
                                                                                          for k in kings))
    return relevance


def _pawns(analysis):
    return 1.0 if any(analysis.material[c][chess.PAWN] for c in chess.COLORS) else 0


def _islands(analysis):
    """Islands beyond the first, of both sides: splits to keep or mend."""
    return 0.6 * sum(max(0, analysis.pawns[c].islands - 1) for c in chess.COLORS)


def _king_safety(analysis):
    return 2.0 * analysis.phase if analysis.phase > 0.3 else 0


def _bishop_pair(analysis):
    """Someone has the pair, or both sides have bishops (a pair can be won or lost)."""
    bishops = [analysis.material[c][chess.BISHOP] for c in chess.COLORS]
    return 1.0 if max(bishops) >= 2 else 0.5 if min(bishops) >= 1 else 0


def _insufficient(analysis):
    """Few pieces left: a side may come down to a lone minor piece."""
    minors_and_less = [sum(analysis.material[c][t] for t in (chess.PAWN, chess.ROOK, chess.QUEEN)) <= 1
                       and analysis.material[c][chess.KNIGHT] + analysis.material[c][chess.BISHOP] <= 2
                       for c in chess.COLORS]
    return 3.0 if any(minors_and_less) else 0


#: Not in the library: the tempo (:class:`~host.patterns.Tempo`), which no quiet move weighs and
#: which, added to the fitted table, made the machine's moves worse at 10,000 nodes (12 or 26
#: centipawns: BENCHMARKS.md, 2026-11-26).
LIBRARY = {
    "shelter-king": Entry(_shelter("king"), lambda analysis, board: ShelterRecognizer("king"), "king", True),
    "shelter-queen": Entry(_shelter("queen"), lambda analysis, board: ShelterRecognizer("queen"), "king", True),
    "pawn-structure": Entry(_pawns, lambda analysis, board: PawnStructure(), "pawns", True),
    "king-safety": Entry(_king_safety, lambda analysis, board: KingSafety(), "king", True),
    "bishop-pair": Entry(_bishop_pair, lambda analysis, board: BishopPair(), "material", True),
    "insufficient-material": Entry(_insufficient, lambda analysis, board: InsufficientMaterial(), "material", True),
    "pawn-islands": Entry(_islands, lambda analysis, board: PawnIslands(), "pawns", True),
    **{name: Entry(cls.relevance, cls, cls.family) for name, cls in ROOT_PATTERNS.items()},
}

assert {entry.family for entry in LIBRARY.values()} | {cls.family for cls in ANTICHESS_LIBRARY.values()} \
    == set(FAMILIES)

#: What root knowledge may leave out (``Oracle``'s ``without``): a family, or one pattern of the
#: chess or the antichess library by name (to measure one pattern as a family match does a family).
LEAVABLE = (*FAMILIES, *LIBRARY, *ANTICHESS_LIBRARY)


def not_leavable(names):
    """What is wrong with ``names`` as what root knowledge leaves out: a message naming those
    that are neither a family nor a pattern, or None when all are."""
    unknown = [name for name in names if name not in LEAVABLE]
    if not unknown:
        return None
    return (f"no pattern family or pattern {', '.join(unknown)} (the families: {', '.join(FAMILIES)}; "
            f"the patterns: host/library.py)")


def parse_weights(text):
    """``{pattern: weight}`` from ``"name=weight,name=weight"`` (the UCI option
    ``KnowledgeWeights`` and the benchmarks' ``--weights``): weights that replace the fitted
    ones (:data:`host.pattern_weights.WEIGHTS`) for root knowledge, each pattern of
    :data:`LIBRARY` by name, each weight a number of at least 0 (0 leaves the pattern out; a
    pattern not fitted is at 1, its hand values). An empty text is no change. Raises
    ``ValueError`` saying what is wrong."""
    weights = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, equals, number = (piece.strip() for piece in item.partition("="))
        if not equals:
            raise ValueError(f"{item!r} is not name=weight")
        if name not in LIBRARY:
            raise ValueError(f"no pattern {name!r} (the patterns: host/library.py)")
        try:
            weight = float(number)
        except ValueError:
            raise ValueError(f"{name}'s weight {number!r} is not a number") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"{name}'s weight {number} is not a number of at least 0")
        if name in weights:
            raise ValueError(f"{name} is weighed twice")
        weights[name] = weight
    return weights
