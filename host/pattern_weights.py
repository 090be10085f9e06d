"""How much of each pattern's hand value the Oracle's ``root`` knowledge installs, weighed against
the fitted piece-square tables by ``data/make_pattern_weights.py`` (generated: do not edit; run
the script again).

``data/quiet-moves.jsonl.gz`` (Made by data/make_piece_square.py --games 1000 --depth 7 --seed
1 with Stockfish 15.1), the positions and moves the tables' fit uses; ``--ridge 10000
--min-positions 300``. Stockfish's best quiet move first: 16.4 % with the tables alone, 18.1 %
with the patterns at their hand values, 17.2 % weighed.

A pattern's values are scaled by its weight: a first-order pattern's entries rounded to
centipawns, a recognizer's outputs to its final map's step (a weight of 0 leaves a pattern out,
and a recognizer is left out below ``host.oracle.RECOGNIZER_WEIGHT``). Patterns not listed are
not weighed (the quiet moves do not tell them apart: pawn-structure, bishop-pair,
insufficient-material, pawn-islands, bad-bishop, king-to-the-edge, rule-of-the-square,
chunk-race, trapped-bishop, opposite-bishops, trapped-rook, trade-when-ahead, key-squares,
wrong-bishop, connected-passers, pawn-ending-kings) and keep their hand values.
"""

__all__ = ["WEIGHTS"]

WEIGHTS = {
    'shelter-king': 0.00,
    'shelter-queen': 0.06,
    'king-safety': 0.36,
    'rooks-on-open-files': 0.59,
    'outposts': 0.70,
    'passed-pawns': 0.43,
    'king-pressure': 0.00,
    'target-bearing': 0.67,
    'development': 0.00,
    'centre-pawns': 0.00,
    'rook-behind-passers': 1.27,
    'king-near-passers': 0.88,
    'kings-close': 0.71,
    'pawn-storm': 1.38,
    'open-files-at-the-king': 0.78,
    'blockade': 1.18,
    'early-queen': 0.19,
    'majority-advance': 0.48,
    'backward-pawns': 0.00,
    'king-in-the-centre': 0.00,
    'rook-on-the-seventh': 0.33,
    'king-activity': 0.72,
    'centre-control': 0.04,
    'mobility': 0.02,
    'king-tropism': 0.00,
    'doubled-rooks': 0.15,
    'king-attack': 0.18,
    'chain-base': 0.00,
}
