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


def _reference_at(fen, killers, features="all"):
    """The reference search's move order state on ``fen``, its ply-1 killers given as UCI moves."""
    from hdl.search.features import SearchFeatures
    from models.search import ReferenceSearch
    search = ReferenceSearch(None, None)
    search.board, search.features = chess.Board(fen), SearchFeatures.parse(features)
    board = search.board
    search.killers = {1: [ordering.move_word(board, chess.Move.from_uci(uci)) if uci else 0 for uci in killers]}
    return search


def test_killers_go_before_the_first_move_that_is_no_capture():
    """The reference's order (the hardware's, which the search tests hold it to): the captures
    that are not losing, then each killer the generator would emit that is not the hash move,
    then the other moves without those, then the losing captures (c6d4: a knight takes a pawn
    the opponent defends); no killers at a quiescence node nor at a futile one, nor with the
    feature off; the losing captures in their place without ``losing``."""
    from models.search import _Node
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq d3 0 3"
    search = _reference_at(fen, ["g8f6", "a8a6"])          # a8a6: not a move here
    board = search.board
    generated = ordering.ordered_moves(board)
    captures = [m.uci() for m in generated if board.is_capture(m)]
    assert "c6d4" in captures and "e5d4" in captures
    good = [uci for uci in captures if uci != "c6d4"]
    hash_word = ordering.move_word(board, chess.Move.from_uci("f8c5"))
    node = _Node(1, 2, -100, 100, False)
    got = [m.uci() for m in search._ordered(node, hash_word)]
    rest = [m.uci() for m in generated if not board.is_capture(m) and m.uci() not in ("g8f6", "f8c5")]
    assert got == good + ["g8f6"] + rest + ["c6d4"]
    # the killer that is the hash move is passed over, not tried
    search = _reference_at(fen, ["f8c5", "g8f6"])
    got = [m.uci() for m in search._ordered(node, hash_word)]
    assert got == good + ["g8f6"] + rest + ["c6d4"]
    search = _reference_at(fen, ["g8f6"], "-losing")
    assert [m.uci() for m in search._ordered(node, hash_word)] == captures + ["g8f6"] + rest
    for quiet_node, features in ((_Node(1, 0, -100, 100, False), "all"), (node, "-killers,-losing")):
        search = _reference_at(fen, ["g8f6", "d8e7"], features)
        got = [m.uci() for m in search._ordered(quiet_node, 0)]
        assert got == [m.uci() for m in ordering.ordered_moves(board, captures=quiet_node.depth == 0)]
    futile = _Node(1, 1, -100, 100, False)
    futile.futile = True
    assert ([m.uci() for m in _reference_at(fen, ["g8f6"])._ordered(futile, 0)]
            == [m.uci() for m in generated if m.uci() != "c6d4"] + ["c6d4"])


@pytest.mark.parametrize("fen, uci, losing", [
    ("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", True),      # the queen takes a pawn a pawn defends
    ("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", False),       # ... an undefended one
    ("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", False),    # a pawn takes a defended knight
    ("4k3/8/8/3r4/4n3/8/3B4/4K3 w - - 0 1", "d2e3", False),    # no capture
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", False),      # a capture-promotion
])
def test_losing_captures(fen, uci, losing):
    from models.search import _losing
    assert _losing(chess.Board(fen), chess.Move.from_uci(uci)) is losing
