"""The fitted piece-square tables (host/piece_square.py) and their fit (data/make_piece_square.py):
the tables are whole, the first-order pattern blends them by phase and mirrors them for Black,
and the fit recovers a known table from the moves it prefers."""

import importlib.util
import random

import chess
import pytest

from host.patterns import MaterialPieceSquare
from host.piece_square import ENDGAME, MIDDLEGAME
from sim.testing import DATA

spec = importlib.util.spec_from_file_location("make_piece_square", DATA / "make_piece_square.py")
make_piece_square = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_piece_square)

@pytest.mark.parametrize("tables", [MIDDLEGAME, ENDGAME], ids=["middlegame", "endgame"])
def test_every_piece_has_a_value_on_every_square(tables):
    assert set(tables) == set(chess.PIECE_TYPES)
    for piece_type, values in tables.items():
        assert len(values) == 64 and all(isinstance(v, int) and -4000 < v < 4000 for v in values), piece_type
    assert all(MIDDLEGAME[chess.PAWN][s] == ENDGAME[chess.PAWN][s] == 0 for s in range(64)
               if chess.square_rank(s) in (0, 7))


def test_the_table_blends_by_phase_and_mirrors_for_black():
    white, black = chess.Piece(chess.KNIGHT, chess.WHITE), chess.Piece(chess.KNIGHT, chess.BLACK)
    for square in (chess.A1, chess.E4, chess.G7):
        assert MaterialPieceSquare(1.0).g(white, square) == MIDDLEGAME[chess.KNIGHT][square]
        assert MaterialPieceSquare(0.0).g(white, square) == ENDGAME[chess.KNIGHT][square]
        half = MaterialPieceSquare(0.5).g(white, square)
        assert half == round((MIDDLEGAME[chess.KNIGHT][square] + ENDGAME[chess.KNIGHT][square]) / 2)
        assert MaterialPieceSquare(0.5).g(black, chess.square_mirror(square)) == -half
    assert MaterialPieceSquare(0.3).definition(chess.Board()) == 0       # the start is symmetric


@pytest.mark.parametrize("phase", [-0.1, 1.5])
def test_a_phase_outside_zero_to_one_is_refused(phase):
    with pytest.raises(ValueError, match="phase"):
        MaterialPieceSquare(phase)


def _positions(table, count, seed):
    """Positions from random games, each quiet move scored by how much ``table`` (one for both
    phases) gains with it, plus noise: what the fit is given."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        board = chess.Board()
        for _ in range(rng.randrange(10, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over() or board.is_check():
            continue
        board = chess.Board(board.epd() + " 0 1")
        scores = {}
        for move in board.legal_moves:
            if make_piece_square._quiet(board, move):
                gain = sum(sign * table[piece_type][square]
                           for piece_type, square, sign in make_piece_square._changes(board, move))
                scores[move] = gain + rng.randint(-5, 5)
        if len(scores) >= 2:
            out.append((board, scores))
    return out


def test_the_fit_recovers_a_table_from_the_moves_it_prefers():
    pytest.importorskip("numpy")
    rng = random.Random(3)
    table = {piece_type: [0 if piece_type == chess.PAWN and chess.square_rank(s) in (0, 7) else rng.randint(-60, 60)
                          for s in range(64)] for piece_type in chess.PIECE_TYPES}
    middlegame, endgame, agreement, used = make_piece_square.fit(_positions(table, 1500, 4), ridge=0.01)
    assert used >= 200
    assert agreement > 0.8
    # the squares a piece moves between often keep their differences (the level is the ridge's)
    for piece_type, a, b in ((chess.KNIGHT, chess.C3, chess.F3), (chess.ROOK, chess.A1, chess.B1),
                             (chess.PAWN, chess.E2, chess.E4), (chess.KING, chess.E1, chess.F1)):
        want = table[piece_type][a] - table[piece_type][b]
        for fitted in (middlegame, endgame):
            assert abs(fitted[piece_type][a] - fitted[piece_type][b] - want) < 15
