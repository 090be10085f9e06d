"""The Verilated move generator against its model and python-chess, on the shared positions.

Driven through the generator's ports by the native harness (sim/harness/movegen.cpp); the
port-level cocotb testbench is tests/cocotb/.
"""

import random

import chess
import pytest

from hdl.encoding import MoveWord, pack
from hdl.movegen.layouts import GenMode
from sim.models.movegen import attacked_squares, candidate_moves, in_check, ordered_moves
from sim.models.position import MachinePosition
from sim.movegen_sim import make, unmake

from .conftest import ALL_SHARED, shared_positions


def describe(board, got, want):
    got_uci, want_uci = [m.uci for m in got], [m.uci for m in want]
    lines = [f"FEN {board.fen()}",
             f"missing {sorted(set(want_uci) - set(got_uci))}",
             f"extra {sorted(set(got_uci) - set(want_uci))}"]
    for i, (g, w) in enumerate(zip(got, want)):
        if (g.word, g.key, g.piece, g.victim) != (w.word, w.key, w.piece, w.victim):
            lines.append(f"first difference at {i}: hardware {g.uci} key {g.key:#x}, model {w.uci} key {w.key:#x}")
            break
    return "\n".join(lines)


def same(got, want):
    return [(m.word, m.key, m.piece, m.victim) for m in got] == [(m.word, m.key, m.piece, m.victim) for m in want]


def check_position(hw, board):
    hw.set_board(board)
    pos = MachinePosition.from_board(board)
    side = 0 if board.turn else 1
    for mode in (GenMode.ALL, GenMode.CAPTURES):
        got, _ = hw.generate(mode=mode)
        want = ordered_moves(pos, side, mode)
        assert same(got, want), f"{mode.name}: " + describe(board, got, want)
        keys = [m.key for m in got]
        assert keys == sorted(set(keys), reverse=True), f"{board.fen()}: keys not strictly decreasing"
        if mode == GenMode.ALL:
            assert sorted(m.uci for m in got) == sorted(m.uci() for m in board.pseudo_legal_moves), board.fen()
            all_moves = got
    state = hw.state()
    assert state.in_check == board.is_check(), board.fen()
    for colour in (0, 1):
        want = sum(1 << sq for sq in chess.SQUARES if board.is_attacked_by(colour == 0, sq))
        assert state.attacks[colour] == want, f"{board.fen()} attacks by {'wb'[colour]}: {state.attacks[colour] ^ want:#x}"
    # The fourth sense: after the make, the mover's own king must not stand attacked.
    legal = set()
    for move in all_moves:
        undo = make(hw, board, chess.Move.from_uci(move.uci))
        if not hw.state().king_attacked >> side & 1:
            legal.add(move.uci)
        unmake(hw, board, undo)
    assert legal == {m.uci() for m in board.legal_moves}, board.fen()
    assert hw.state().planes == state.planes, f"{board.fen()}: make/unmake did not restore the board"
    return all_moves


@pytest.mark.parametrize("name", ALL_SHARED)
def test_generator_matches_model_and_python_chess(movegen_hw, name):
    for record in shared_positions(name):
        check_position(movegen_hw, record.board)


def random_word(rng):
    return pack(MoveWord, from_sq=rng.randrange(64), to_sq=rng.randrange(64),
                promotion=rng.choice([0, 0, 0, 2, 3, 4, 5]),
                flags={"capture": rng.randrange(2), "en_passant": rng.randrange(8) == 0,
                       "castle": rng.randrange(8) == 0, "double_push": rng.randrange(8) == 0})


def test_legality_query(movegen_hw):
    rng = random.Random(7)
    records = shared_positions("special-positions.epd") + shared_positions("random-positions.epd", 300)
    previous = []
    for record in records:
        board = record.board
        movegen_hw.set_board(board)
        words = {m.word for m in candidate_moves(MachinePosition.from_board(board), 0 if board.turn else 1)}
        for word in words:
            assert movegen_hw.legal(word), f"{board.fen()}: legal move {word:#x} refused"
        # near misses: a legal move with a flag or the promotion changed
        for word in list(words)[:10]:
            for bit in range(MoveWord.size):
                if bit < 12:
                    continue
                other = word ^ (1 << bit)
                assert movegen_hw.legal(other) == (other in words), f"{board.fen()}: {other:#x}"
        # random words and moves from another position
        for word in [random_word(rng) for _ in range(20)] + previous:
            assert movegen_hw.legal(word) == (word in words), f"{board.fen()}: word {word:#x}"
        previous = list(words)[:15]


STANDARD_DEPTH = 3


def test_perft_standard_positions(movegen_hw):
    for record in shared_positions("perft-standard.epd"):
        movegen_hw.set_board(record.board)
        before = movegen_hw.state().planes
        count, cycles = movegen_hw.perft(STANDARD_DEPTH)
        assert count == int(record.operations[f"D{STANDARD_DEPTH}"]), record.board.fen()
        assert movegen_hw.state().planes == before


def check_perft2(hw, records):
    for record in records:
        hw.set_board(record.board)
        count, _ = hw.perft(2)
        assert count == int(record.operations["perft2"]), record.board.fen()


def test_perft2_random_positions(movegen_hw):
    check_perft2(movegen_hw, shared_positions("random-positions.epd", 100))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["random-positions.epd", "special-positions.epd"])
def test_perft2_all_positions(movegen_hw, name):
    check_perft2(movegen_hw, shared_positions(name))


def test_nested_contexts_survive_subtrees(movegen_hw):
    """Generation at ply p interleaved with whole subtrees below continues exactly at p."""
    rng = random.Random(3)
    for record in shared_positions("random-positions.epd", 40):
        board = record.board
        hw = movegen_hw
        hw.set_board(board)
        want = ordered_moves(MachinePosition.from_board(board), 0 if board.turn else 1)
        got = []
        move = hw.first(ply=0)
        while move.found:
            got.append(move)
            if rng.random() < 0.5:
                undo = make(hw, board, chess.Move.from_uci(move.uci))
                # a subtree: generate a few moves at ply 1, descend into one, generate at ply 2
                child = hw.first(ply=1)
                for _ in range(rng.randrange(3)):
                    if not child.found:
                        break
                    child = hw.next(ply=1)
                if child.found and rng.random() < 0.7:
                    undo2 = make(hw, board, chess.Move.from_uci(child.uci))
                    hw.first(ply=2)
                    hw.next(ply=2)
                    hw.first(ply=0 + 3)
                    unmake(hw, board, undo2)
                    hw.next(ply=1)
                unmake(hw, board, undo)
            move = hw.next(ply=0)
        assert same(got, want), describe(board, got, want)
        # an exhausted ply stays exhausted
        assert not hw.next(ply=0).found
