"""The reference search's fast move order (models/ordering.py, from python-chess) equals
the generator's bit-exact model (models/movegen.py, square by square) — moves, order and
move words — on every reference position and on seeded random walks, in both modes."""

import random

import chess
import pytest

from hdl.movegen.layouts import GenMode
from models import movegen, ordering
from models.position import MachinePosition
from sim.testing import REFERENCE_FILES, random_games, reference_positions


def _differences(board):
    position, side = MachinePosition.from_board(board), 0 if board.turn else 1
    diffs = []
    for captures, mode in ((False, GenMode.ALL), (True, GenMode.CAPTURES)):
        fast = [(m.uci(), ordering.move_word(board, m)) for m in ordering.ordered_moves(board, captures=captures)]
        model = [(m.uci, m.word) for m in movegen.ordered_moves(position, side, mode)]
        if fast != model:
            diffs.append(f"{board.fen()} {mode.name}: fast {fast[:6]}..., model {model[:6]}...")
    return diffs


@pytest.mark.parametrize("name", REFERENCE_FILES)
def test_fast_order_equals_the_model_on_every_reference_position(name):
    diffs = [d for record in reference_positions(name) for d in _differences(record.board)]
    assert not diffs, "\n".join(diffs[:5])


def test_fast_order_equals_the_model_on_random_walks():
    rng, diffs = random.Random(5), []
    for game in random_games(17, 40, range(0, 120)):
        for _ in range(10):                 # ten more plies from each, checked at every step
            diffs += _differences(game)
            moves = list(game.legal_moves)
            if not moves:
                break
            game.push(rng.choice(moves))
    assert not diffs, "\n".join(diffs[:5])


def test_a_wrong_order_is_seen():
    """The comparison can fail: the fast order with two moves swapped differs."""
    board = chess.Board()
    fast = ordering.ordered_moves(board)
    model = [m.uci for m in movegen.ordered_moves(MachinePosition.from_board(board), 0)]
    assert [m.uci() for m in fast] == model
    assert [m.uci() for m in fast[1::-1] + fast[2:]] != model


def test_move_of_word_inverts_move_word():
    for record in reference_positions("special-positions.epd", 100):
        for move in record.board.pseudo_legal_moves:
            assert ordering.move_of_word(ordering.move_word(record.board, move)) == move
