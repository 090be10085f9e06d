"""King and pawn against king judged by its database (``host/kpk.py``): the database checked
against python-chess's moves, its rule against chess's, and the root's judgement on known
positions and under the board's symmetries."""

import random

import chess
import pytest

from host.chunker.database import open_database, verify
from host.chunker.domain import INVALID, is_win, plies
from host.kpk import domain_of, is_kpk, judge, line, winning_capture


@pytest.mark.parametrize("file", range(4))
def test_the_database_is_one_ply_of_minimax_over_python_chess_moves(file):
    """On seeded indices of each file's database, every value equals the best of its moves'
    values by python-chess's moves (so, by induction on the distance, every value is exact)."""
    db = open_database(domain_of(file), quiet=True)
    indices = random.Random(file).sample(range(db.domain.size), 1500)
    assert verify(db, indices) == []


@pytest.mark.parametrize("file", range(4))
def test_a_won_position_has_a_winning_move_that_does_not_stalemate(file):
    """The database's rule is that a safe promotion wins; chess's, that it wins unless it
    stalemates. Every position where the pawn's side promotes safely at once (a win in 1) is
    still won with the promotions that stalemate left out — a rook's where a queen's stalemates,
    or another move — so no won position of the database is a draw in chess."""
    domain = domain_of(file)
    db = open_database(domain, quiet=True)
    stalemating = 0
    for index in range(domain.size):
        value = db.value_at(index)
        if value == INVALID or not is_win(value) or plies(value) != 1:
            continue
        board = domain.board(index)
        judgement = judge(board)
        assert judgement.value == 1, board.fen()
        for move in judgement.moves:
            after = board.copy(stack=False)
            after.push(move)
            assert not after.is_stalemate(), (board.fen(), move)
        stalemating += judgement.plies > 1
    assert stalemating == (1 if file == 1 else 0)       # Ka3, b7 against Ka1: b8=Q and b8=R stalemate


def test_known_positions():
    board = chess.Board("8/8/4p3/3k4/8/4K3/8/8 b - - 3 66")        # SUPREM played e5 here: a draw
    assert judge(board) == (1, 21, (chess.Move.from_uci("d5e5"),))
    assert line(board)[-1] == chess.Move.from_uci("e2e1q") and len(line(board)) == 21
    board = chess.Board("8/1P6/8/8/8/K7/8/k7 w - - 0 1")           # b8=Q and b8=R stalemate
    judgement = judge(board)
    assert judgement.value == 1 and judgement.plies == 3
    assert not any(move.promotion for move in judgement.moves)
    assert judge(chess.Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")) == \
        (0, 0, tuple(chess.Move.from_uci(m) for m in ("e8f7", "e8e7", "e8d7")))
    assert judge(chess.Board("8/8/8/4k3/8/4K3/4P3/8 w - - 0 1")).value == 0
    assert judge(chess.Board("8/8/8/4k3/8/4K3/4P3/8 b - - 0 1")).value == -1      # the opposition
    board = chess.Board("k7/P7/1K6/8/8/8/8/8 b - - 0 1")                           # stalemate, no move
    with pytest.raises(ValueError, match="no legal move"):
        judge(board)
    with pytest.raises(ValueError, match="not king and pawn against king"):
        judge(chess.Board())
    assert not is_kpk(chess.Board("8/8/8/8/P4k2/8/7p/4K3 b - - 0 1")) and is_kpk(board)


def test_the_judgement_is_the_same_under_the_boards_symmetries():
    """Seeded positions with either side's pawn: the value and plies of a position, of its
    mirror left to right and of its colours swapped are equal, and their moves are the mirrored
    ones; a won or lost one's line reaches the safe promotion in exactly its plies."""
    rng = random.Random(7)
    checked = 0
    while checked < 300:
        board = chess.Board(None)
        squares = rng.sample(range(64), 3)
        colour = rng.choice(chess.COLORS)
        if not 8 <= squares[2] < 56:
            continue
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(squares[2], chess.Piece(chess.PAWN, colour))
        board.turn = rng.choice(chess.COLORS)
        if not board.is_valid() or not any(board.legal_moves):
            continue
        judgement = judge(board)
        if judgement.value:                     # the line is as long as the win, and ends promoting
            moves = line(board)
            assert len(moves) == judgement.plies and moves[-1].promotion, board.fen()
        flipped = board.transform(chess.flip_horizontal)
        swapped = board.mirror()
        for other, square in ((flipped, lambda s: s ^ 7), (swapped, chess.square_mirror)):
            mirrored = judge(other)
            assert mirrored.value == judgement.value and mirrored.plies == judgement.plies, board.fen()
            assert set(mirrored.moves) == {chess.Move(square(m.from_square), square(m.to_square), m.promotion)
                                           for m in judgement.moves}, board.fen()
        checked += 1


def test_a_capture_into_a_won_ending():
    """Of a root's captures, the one that leaves king and pawn against king won fastest: Kxe4
    here (a win in 21 plies with it); none where it is the other side to move, where the
    capture leaves a draw (the rook pawn against the king in its corner), or where the board
    has other than four men."""
    assert winning_capture(chess.Board("8/8/4k3/8/3Kp3/8/4P3/8 w - - 0 1")) == (chess.Move.from_uci("d4e4"), 21)
    assert winning_capture(chess.Board("8/8/4k3/8/3Kp3/8/4P3/8 b - - 0 1")) is None
    drawn = chess.Board("k7/8/8/8/8/8/Pp6/1K6 w - - 0 1")
    after = drawn.copy()
    after.push_uci("b1b2")
    assert judge(after).value == 0 and winning_capture(drawn) is None
    assert winning_capture(chess.Board("8/8/4k3/8/4K3/8/4P3/8 w - - 0 1")) is None
    assert winning_capture(chess.Board()) is None
