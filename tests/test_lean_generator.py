"""The smaller build's lean generator (``legal=False``: pins left to the search): its moves
against its model and python-chess (the legal moves and a pinned piece's others), and the
machine built with it — the same search node for node as the reference and as the legal
generator's machine, and exact perft, counting the leaves of a node without a pinned piece at
once, and those of a node with one unmade but the pinned pieces' moves."""

import random

import chess
import pytest

from hdl.eval.tables import FULL
from sim.movegen_check import compare_position
from sim.search_check import SearchPair, table_store
from sim.testing import reference_positions

#: A bishop pinned to its king (its moves off the line are emitted, for the search to test),
#: and a king in check by a queen (the lean generator still decides evasions).
PINNED = "4k3/8/8/8/8/2b5/3B4/4K3 w - - 0 1"
CHECKED = "4k3/8/8/8/8/8/3q4/4K2R w K - 0 1"


@pytest.fixture(scope="module")
def lean_generator():
    from sim.movegen_sim import VerilatedMovegen
    with VerilatedMovegen(legal=False) as hw:
        yield hw


@pytest.fixture(scope="module")
def lean_machine():
    from sim.machine_sim import VerilatedMachine
    with VerilatedMachine(FULL, legal_moves=False) as hw:
        yield hw


def _positions(count, seed):
    records = reference_positions("special-positions.epd") + reference_positions("random-positions.epd", limit=400)
    return random.Random(seed).sample(records, count)


def test_the_generator_emits_the_legal_moves_and_the_pinned_pieces_others(lean_generator):
    for record in _positions(200, seed=7):
        diffs = compare_position(lean_generator, record.board)
        assert not diffs, f"FEN {record.board.fen()}: " + "; ".join(diffs)


def test_a_pinned_pieces_moves_are_emitted_and_counted_as_inexact(lean_generator):
    for fen in (PINNED, CHECKED):
        board = chess.Board(fen)
        assert not compare_position(lean_generator, board)
        lean_generator.set_position(board)
        emitted = {move.uci for move in lean_generator.generate()[0]}
        legal = {move.uci() for move in board.legal_moves}
        if fen == PINNED:
            assert emitted == legal | {"d2e3", "d2f4", "d2g5", "d2h6", "d2c1"}
            assert lean_generator.count() == (len(emitted), True)      # "go through the moves"
        else:                           # out of check: a capture of the queen or a king step
            assert emitted == legal == {"e1d2", "e1f1"}
            assert lean_generator.count() == (2, False)                # no pin: the legal moves


def test_the_machine_searches_the_same_nodes_as_the_reference(lean_machine):
    pair = SearchPair(lean_machine, table_store(FULL, "patterns"))
    for record in _positions(24, seed=11) + [reference_positions("perft-standard.epd")[1]]:
        hw, ref, diffs = pair.compare(record.board, 3)
        assert not diffs, f"FEN {record.board.fen()}: " + "; ".join(diffs)


def test_the_same_nodes_as_the_legal_generators_machine(lean_machine, machine_hw):
    store = table_store(FULL, "patterns")
    for record in reference_positions("perft-standard.epd"):     # Kiwipete and its pins among them
        lean = SearchPair(lean_machine, store).search(record.board, 4)
        legal = SearchPair(machine_hw, store).search(record.board, 4)
        assert (lean.score, lean.move, lean.nodes) == (legal.score, legal.move, legal.nodes), record.board.fen()
        assert lean.cycles >= legal.cycles


def test_perft_counts_exactly_and_in_bulk_where_no_piece_is_pinned(lean_machine, machine_hw):
    leaves_3 = cycles_3 = 0
    for record in reference_positions("perft-standard.epd"):
        lean_machine.set_position(record.board)
        machine_hw.set_position(record.board)
        for depth in (1, 2, 3):
            leaves, cycles = lean_machine.perft(depth)
            assert leaves == int(record.operations[f"D{depth}"]), f"{record.board.fen()} depth {depth}"
            # the legal generator counts every node above the leaves at once but those with an
            # en passant; the lean one goes through the moves of those with a pin too
            _, legal_cycles = machine_hw.perft(depth)
            assert cycles >= legal_cycles
            if record.board == chess.Board() and depth == 3:
                assert cycles == legal_cycles       # no piece is pinned before the third ply
        leaves_3, cycles_3 = leaves_3 + leaves, cycles_3 + cycles
    # (each leaf made, tested and unmade: 8 cycles a leaf; the legal generator 0.5)
    assert cycles_3 < 2 * leaves_3, f"{cycles_3} cycles for {leaves_3} leaves"
