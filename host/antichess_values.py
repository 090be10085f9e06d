"""The Oracle's antichess values, fitted to Fairy-Stockfish's scores of antichess positions by
``data/make_antichess_values.py`` (generated: do not edit; run the script again).

``data/antichess-scores.jsonl.gz``: 4,434 positions
(Made by data/make_antichess_values.py --games 600 --nodes 50000 --seed 1 with Fairy-Stockfish 11.1 LB 64); ``--ridge 1``.

Over those positions: the side to move alone: the sign of the score in 77.0 %, error 243 (rms, centipawns); hand values: the sign of the score in 77.0 %, error 236 (rms, centipawns); fitted: the sign of the score in 78.2 %, error 221 (rms, centipawns); the side to move: +147 (fitted, not installed).
The parameters are :data:`host.antichess.PARAMETERS` (what each means is there), in centipawns.
"""

__all__ = ["VALUES"]

VALUES = {
    'pawn-2': -23,
    'pawn-3': -41,
    'pawn-4': -50,
    'pawn-5': -46,
    'pawn-6': -33,
    'pawn-7': 0,
    'knight': -24,
    'bishop': -53,
    'rook': -39,
    'queen': -115,
    'king': -19,
    'knight-centre': -23,
    'bishop-centre': -1,
    'rook-centre': -6,
    'queen-centre': 15,
    'king-centre': -3,
    'knight-mobility': 14,
    'bishop-mobility': 0,
    'rook-mobility': 6,
    'queen-mobility': 8,
    'king-mobility': 7,
    'exposed-pawn': 60,
    'exposed-piece': 60,
    'guarded': 11,
    'left-1': 20,
    'left-2': 11,
    'left-3': 2,
}
