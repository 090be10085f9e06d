"""The generator model (models/movegen.py) against python-chess."""

import chess
import pytest

from hdl.movegen.geometry import CENTRALITY, SLOT_COUNT, SLOTS
from hdl.movegen.layouts import GenMode, MoveKey
from models.movegen import (
    attacked_squares,
    candidate_moves,
    captures_open,
    in_check,
    next_move,
    ordered_moves,
    ply_moves,
)
from models.position import MachinePosition, PositionError, inverse, move_halfmoves, validate_board
from sim.testing import random_games, reference_positions


def python_chess_attacks(board, colour):
    return sum(1 << sq for sq in chess.SQUARES if board.is_attacked_by(colour == 0, sq))


def generated_by_python_chess(board):
    """What the generator emits, by python-chess: the legal moves and every pseudo-legal en
    passant."""
    return [m for m in board.pseudo_legal_moves if board.is_legal(m) or board.is_en_passant(m)]


def check_against_python_chess(board):
    pos = MachinePosition.from_board(board)
    side = 0 if board.turn else 1
    moves = ordered_moves(pos, side)
    got = sorted(m.uci for m in moves)
    emitted = generated_by_python_chess(board)
    want = sorted(m.uci() for m in emitted)
    assert got == want, f"{board.fen()}: missing {set(want) - set(got)}, extra {set(got) - set(want)}"
    keys = [m.key for m in moves]
    assert keys == sorted(set(keys), reverse=True), f"{board.fen()}: keys not strictly decreasing"
    captures = sorted(m.uci for m in ordered_moves(pos, side, GenMode.CAPTURES))
    if board.is_check():
        want_captures = want
    else:
        want_captures = sorted(m.uci() for m in emitted if board.is_capture(m) or m.promotion == chess.QUEEN)
    assert captures == want_captures, f"{board.fen()}: captures differ"
    opened = any(board.is_capture(m) or m.promotion == chess.QUEEN for m in emitted)
    assert captures_open(pos, side) == opened, f"{board.fen()}: captures open {not opened}, python-chess {opened}"
    checks = {m.uci for m in ordered_moves(pos, side, GenMode.CHECKS)}
    needed = {m.uci() for m in emitted
              if board.is_check() or board.is_capture(m) or m.promotion or board.gives_check(m)}
    assert needed <= checks <= set(want), f"{board.fen()}: checks mode misses {needed - checks}"
    assert in_check(pos, side) == board.is_check(), board.fen()
    for colour in (0, 1):
        assert attacked_squares(pos, colour) == python_chess_attacks(board, colour), (board.fen(), colour)


@pytest.mark.parametrize("name,limit", [("perft-standard.epd", None), ("special-positions.epd", None),
                                        ("random-positions.epd", 300)])
def test_model_matches_python_chess(name, limit):
    for record in reference_positions(name, limit):
        check_against_python_chess(record.board)


def test_model_on_random_games():
    for board in random_games(1234, 30, range(10, 120)):
        check_against_python_chess(board)


@pytest.mark.parametrize("name,limit", [("special-positions.epd", None), ("random-positions.epd", 600)])
def test_may_check_is_certain_when_it_says_no_check(name, limit):
    """A move whose ``may_check`` is 0 gives no check (python-chess's ``gives_check``), and a
    quiet move that gives no check is almost always told so (the search skips it unmade;
    castling is always a maybe)."""
    quiet_quiet = flagged = 0
    for record in reference_positions(name, limit):
        board = record.board
        for move in candidate_moves(MachinePosition.from_board(board), 0 if board.turn else 1):
            gives_check = board.gives_check(chess.Move.from_uci(move.uci))
            assert move.may_check or not gives_check, f"{board.fen()}: {move.uci} gives check"
            if not (move.capture or move.promotion or move.castle or gives_check):
                quiet_quiet += 1
                flagged += move.may_check
    assert quiet_quiet > 5000 and flagged < quiet_quiet / 100, (flagged, quiet_quiet)


def test_may_check_on_discovered_and_direct_checks():
    """The cases by hand: a discoverer (the knight between the bishop and the king) and the
    discovering slider itself, direct checks by a rook, a king (never a check itself)."""
    def moves_of(fen):
        return {m.uci: m for m in candidate_moves(MachinePosition.from_board(chess.Board(fen)), 0)}
    moves = moves_of("7k/8/8/8/3N4/8/1B6/4K3 w - - 0 1")      # Bb2, Nd4 on the long diagonal
    assert all(move.may_check for uci, move in moves.items() if uci.startswith("d4"))
    assert not any(moves[uci].may_check for uci in ("b2a1", "b2c3", "b2c1", "e1d1", "e1f2"))
    moves = moves_of("7k/8/8/8/8/8/6R1/K7 w - - 0 1")
    assert moves["g2g8"].may_check and moves["g2h2"].may_check and not moves["g2f2"].may_check
    moves = moves_of("8/8/8/8/8/2k5/8/K7 w - - 0 1")       # next to the other king: not a move
    assert "a1b2" not in moves and not moves["a1a2"].may_check


def test_next_move_walks_the_order():
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    pos = MachinePosition.from_board(board)
    order = ordered_moves(pos, 0)
    walked, key = [], None
    while (move := next_move(pos, 0, key)) is not None:
        walked.append(move)
        key = move.key
    assert walked == order


@pytest.mark.parametrize("name,limit", [("special-positions.epd", 120), ("random-positions.epd", 120)])
def test_a_ply_turning_to_checks_finishes_its_cell_then_takes_checks(name, limit):
    """``ply_moves``: one mode throughout is the fresh ply's order; a ply that turns from ALL to
    CHECKS after some moves gets the rest of the cell it is in, then exactly the CHECKS moves
    further down the order (every cell above has been entered); KEEP keeps the ply's mode."""
    square = MoveKey["square"].offset
    switched = 0
    for record in reference_positions(name, limit):
        pos = MachinePosition.from_board(record.board)
        side = 0 if record.board.turn else 1
        order = ordered_moves(pos, side)
        checks = ordered_moves(pos, side, GenMode.CHECKS)
        for mode, moves in ((GenMode.ALL, order), (GenMode.CHECKS, checks)):
            assert ply_moves(pos, side, [mode] * (len(moves) + 2)) == moves + [None, None]
        for turn in {0, len(order) // 3, len(order) // 2} - {len(order)}:
            modes = [GenMode.ALL] + [GenMode.KEEP] * turn + [GenMode.CHECKS] * len(order)
            answers = ply_moves(pos, side, modes)
            assert answers[:turn + 1] == order[:turn + 1]
            cell = order[turn].key >> square
            rest = [m for m in order[turn + 1:] if m.key >> square == cell or m in checks]
            assert [m for m in answers[turn + 1:] if m is not None] == rest, record.board.fen()
            switched += len(rest) < len(order) - turn - 1
    assert switched > 50        # the positions test the switch: it leaves moves out


def test_key_fields_follow_the_description():
    board = chess.Board("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1")
    first = ordered_moves(MachinePosition.from_board(board), 0)[0]
    assert first.uci == "e4d5"
    key = MoveKey.from_bits(first.key)
    assert int(key.victim) == chess.QUEEN
    assert int(key.attacker) == SLOT_COUNT - 1 - [s.name for s in SLOTS].index("pawn_x_from_se")
    assert int(key.centrality) == CENTRALITY[chess.D5]


def test_promotions_in_order():
    board = chess.Board("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    moves = [m.uci for m in ordered_moves(MachinePosition.from_board(board), 0)]
    assert moves[:4] == ["a7b8q", "a7b8n", "a7b8r", "a7b8b"]
    captures = [m.uci for m in ordered_moves(MachinePosition.from_board(board), 0, GenMode.CAPTURES)]
    assert captures == ["a7b8q", "a7b8n", "a7b8r", "a7b8b", "a7a8q"]


def test_halfmoves_unmake_exactly():
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    start = MachinePosition.from_board(board)
    for move in board.pseudo_legal_moves:
        pos = start.copy()
        made = move_halfmoves(board, move)
        pos.apply_all(made)
        after = board.copy()
        after.push(move)
        assert pos == MachinePosition.from_board(after), move.uci()
        pos.apply_all(inverse(made))
        assert pos == start, move.uci()


@pytest.mark.parametrize("fen,reason", [
    ("8/8/8/8/8/8/8/4K3 w - - 0 1", "black has no king"),
    ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "more than one king"),
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn stands on the first or last rank"),
    ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "side not to move is in check"),
])
def test_impossible_positions_are_rejected(fen, reason):
    with pytest.raises(PositionError, match=reason):
        validate_board(chess.Board(fen))
