"""The Oracle's antichess values, fitted to Fairy-Stockfish's scores of antichess positions by
``data/make_antichess_values.py`` (generated: do not edit; run the script again).

``data/antichess-scores.jsonl.gz``: 4,434 positions (Made by data/make_antichess_values.py
--games 600 --nodes 50000 --seed 1 with Fairy-Stockfish 11.1 LB 64); ``--ridge 1``. Over those
positions, each valued from each of its roots: the side to move alone: the sign of the score in
77.0 %, error 244 (rms, centipawns); hand values: the sign of the score in 57.2 %, error 297
(rms, centipawns); fitted: the sign of the score in 77.2 %, error 225 (rms, centipawns). The
parameters are :data:`host.antichess.PARAMETERS` (what each means is there), in centipawns.
"""

__all__ = ["VALUES"]

VALUES = {
    'pawn-2': -30,
    'pawn-3': -48,
    'pawn-4': -51,
    'pawn-5': -49,
    'pawn-6': -39,
    'pawn-7': -10,
    'knight': -8,
    'bishop': -64,
    'rook': -30,
    'queen': -105,
    'king': -19,
    'knight-centre': -12,
    'bishop-centre': -9,
    'rook-centre': -10,
    'queen-centre': 3,
    'king-centre': 2,
    'knight-mobility': 8,
    'bishop-mobility': 1,
    'rook-mobility': 4,
    'queen-mobility': 5,
    'king-mobility': 5,
    'exposed-pawn': 4,
    'exposed-piece': -36,
    'guarded': 15,
    'left-1': -18,
    'left-2': -18,
    'left-3': -21,
    'to-move': 163,
}
