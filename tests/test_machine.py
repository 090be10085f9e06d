"""Hardware perft on the Verilated machine (generator, move maker and microcoded controller):
the published counts of the standard positions, and perft 2 of random positions."""

import chess
import pytest

from sim.testing import reference_positions


@pytest.fixture
def machine(machine_hw):
    return machine_hw


def _nodes(board, depth):
    """The legal positions of the perft tree to ``depth`` (the root included)."""
    yield board
    if depth > 0:
        for move in board.legal_moves:
            board.push(move)
            yield from _nodes(board, depth - 1)
            board.pop()


def test_perft_standard_positions_to_depth_3(machine):
    for record in reference_positions("perft-standard.epd"):
        machine.set_position(record.board)
        assert machine.perft(0) == (1, 1)
        for depth in (1, 2, 3):
            leaves, cycles = machine.perft(depth)
            assert leaves == int(record.operations[f"D{depth}"]), f"{record.board.fen()} depth {depth}"
            # the last ply counted at once: a few cycles per node above it, not one per leaf
            interior = sum(1 for _ in _nodes(record.board, depth - 1))
            assert 4 * interior <= cycles < 5 * leaves + 40 * interior, (record.board.fen(), depth, cycles)


def test_perft_after_a_search_counts_as_before(machine):
    """A search leaves its frames' flags behind (a node going through its captures again for the
    losing ones it put off); perft reads none of them: once it did, and counted only captures."""
    from hdl.eval.tables import FULL
    from sim.search_check import SearchPair, table_store
    kiwipete = reference_positions("perft-standard.epd")[1].board
    pair = SearchPair(machine, table_store(FULL, "patterns"))
    for position in ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", kiwipete.fen()):
        pair.search(chess.Board(position), 3)
        machine.set_position(kiwipete)
        assert [machine.perft(depth)[0] for depth in (1, 2)] == [48, 2039]
        machine.set_position(chess.Board())
        assert machine.perft(2)[0] == 400


def test_perft_2_random_positions(machine):
    for record in reference_positions("random-positions.epd", limit=150):
        machine.set_position(record.board)
        assert machine.perft(2)[0] == int(record.operations["perft2"]), record.board.fen()


@pytest.mark.slow
def test_perft_standard_positions_depth_4(machine):
    for record in reference_positions("perft-standard.epd"):
        if "D4" in record.operations:
            machine.set_position(record.board)
            assert machine.perft(4)[0] == int(record.operations["D4"]), record.board.fen()


def test_microcode_downloads_without_resynthesis(machine):
    """A different microprogram through the download port changes what the machine does (perft
    counting every node, not only the leaves); the default one, loaded back, restores it."""

    from hdl.search.microcode import program
    machine.set_position(chess.Board())
    try:
        machine.load_microcode(program(count_interior=True).assemble())
        assert machine.perft(3)[0] == 20 + 400 + 8902
    finally:
        machine.load_microcode(program().assemble())
    assert machine.perft(3)[0] == 8902
