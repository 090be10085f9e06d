"""The smaller build's pseudo-legal generator (``legal=False``): its moves against its model
and python-chess's pseudo-legal moves, and the machine built with it — the same search node for
node as the reference (and as the legal generator's machine, in more cycles), and exact perft
with every leaf made."""

import random

import chess
import pytest

from hdl.eval.tables import FULL
from sim.movegen_check import compare_position
from sim.search_check import SearchPair, table_store
from sim.testing import reference_positions

#: A bishop pinned to its king, a king in check, an en passant that would expose the king: each
#: has pseudo-legal moves that are not legal.
PINNED = "4k3/8/8/8/8/2b5/3B4/4K3 w - - 0 1"
CHECKED = "4k3/8/8/8/8/8/3q4/4K2R w K - 0 1"


@pytest.fixture(scope="module")
def pseudo_generator():
    from sim.movegen_sim import VerilatedMovegen
    with VerilatedMovegen(legal=False) as hw:
        yield hw


@pytest.fixture(scope="module")
def pseudo_machine():
    from sim.machine_sim import VerilatedMachine
    with VerilatedMachine(FULL, legal_moves=False) as hw:
        yield hw


def _positions(count, seed):
    records = reference_positions("special-positions.epd") + reference_positions("random-positions.epd", limit=400)
    return random.Random(seed).sample(records, count)


def test_the_generator_emits_the_pseudo_legal_moves(pseudo_generator):
    for record in _positions(200, seed=7):
        diffs = compare_position(pseudo_generator, record.board)
        assert not diffs, f"FEN {record.board.fen()}: " + "; ".join(diffs)


def test_its_moves_include_the_illegal_ones_and_it_does_not_count(pseudo_generator):
    for fen, illegal in ((PINNED, "d2e3"), (CHECKED, "e1g1")):
        board = chess.Board(fen)
        assert not compare_position(pseudo_generator, board)
        pseudo_generator.set_position(board)
        emitted = {move.uci for move in pseudo_generator.generate()[0]}
        if illegal == "e1g1":           # castling's own test stays exact: out of check, no castling
            assert illegal not in emitted and "e1f1" in emitted and "h1h2" in emitted
        else:
            assert illegal in emitted and illegal not in {m.uci() for m in board.legal_moves}
        assert emitted > {m.uci() for m in board.legal_moves}
        assert pseudo_generator.count() == (0, True)       # "go through the moves"


def test_the_machine_searches_the_same_nodes_as_the_reference(pseudo_machine):
    pair = SearchPair(pseudo_machine, table_store(FULL, "patterns"))
    for record in _positions(24, seed=11) + [reference_positions("perft-standard.epd")[1]]:
        hw, ref, diffs = pair.compare(record.board, 3)
        assert not diffs, f"FEN {record.board.fen()}: " + "; ".join(diffs)


def test_the_same_nodes_as_the_legal_generator_in_more_cycles(pseudo_machine, machine_hw):
    store = table_store(FULL, "patterns")
    kiwipete = reference_positions("perft-standard.epd")[1].board
    pseudo = SearchPair(pseudo_machine, store).search(kiwipete, 4)
    legal = SearchPair(machine_hw, store).search(kiwipete, 4)
    assert (pseudo.score, pseudo.move, pseudo.nodes) == (legal.score, legal.move, legal.nodes)
    assert pseudo.cycles > legal.cycles


def test_perft_makes_every_leaf_and_counts_exactly(pseudo_machine):
    for record in reference_positions("perft-standard.epd"):
        pseudo_machine.set_position(record.board)
        for depth in (1, 2, 3):
            leaves, cycles = pseudo_machine.perft(depth)
            assert leaves == int(record.operations[f"D{depth}"]), f"{record.board.fen()} depth {depth}"
            assert cycles > 6 * leaves      # each leaf made, tested and taken back: no bulk count
