"""The Verilated move generator against its model and python-chess, on the reference positions.

Driven through the generator's ports by the native harness (sim/harness/movegen.cpp); the
port-level cocotb testbench is tests/cocotb/.
"""

import random

import chess
import pytest

from hdl.encoding import MoveWord, pack
from models.movegen import candidate_moves, ordered_moves
from models.position import MachinePosition, inverse, move_halfmoves
from sim.movegen_check import compare_position, order_difference
from sim.movegen_sim import make, unmake
from sim.testing import reference_positions


def same(got, want):
    def fields(m):
        return (m.word, m.key, m.piece, m.victim, m.may_check)
    return [fields(m) for m in got] == [fields(m) for m in want]


def describe(board, got, want):
    return f"FEN {board.fen()}\n" + "\n".join(order_difference("order", got, want))


@pytest.mark.parametrize("name, limit", [
    ("perft-standard.epd", None), ("special-positions.epd", None), ("random-positions.epd", 400),
    pytest.param("random-positions.epd", None, marks=pytest.mark.slow),
])
def test_generator_matches_model_and_python_chess(movegen_hw, name, limit):
    """Every standard and special position and 400 random ones (all 2,000 in the slow suite)."""
    for record in reference_positions(name, limit):
        diffs = compare_position(movegen_hw, record.board)
        assert not diffs, f"FEN {record.board.fen()}\n" + "\n".join(diffs)


def random_word(rng):
    return pack(MoveWord, from_sq=rng.randrange(64), to_sq=rng.randrange(64),
                promotion=rng.choice([0, 0, 0, 2, 3, 4, 5]),
                flags={"capture": rng.randrange(2), "en_passant": rng.randrange(8) == 0,
                       "castle": rng.randrange(8) == 0, "double_push": rng.randrange(8) == 0})


def test_legality_query(movegen_hw):
    rng = random.Random(7)
    records = reference_positions("special-positions.epd") + reference_positions("random-positions.epd", 60)
    previous = []
    for record in records:
        board = record.board
        movegen_hw.set_position(board)
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


def test_each_request_answers_in_its_documented_cycles(movegen_hw):
    """The generator's timing contract (``MoveGenerator``), counted by the harness from the
    request's offer to its response: NEXT and LEGAL 2 cycles, FIRST 4, COUNT
    ``COUNT_LATENCY`` + 1 (a request right after a new position waits for it first), and one
    more for a request at a ply the port did not show in the cycle before (its context is read
    a cycle ahead)."""
    from hdl.movegen.counter import COUNT_LATENCY
    from hdl.movegen.layouts import GenOp
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    movegen_hw.set_position(board)
    movegen_hw.first(ply=0)
    following = movegen_hw.next(ply=0)
    legal = movegen_hw.request(GenOp.LEGAL, move=following.word)
    count = movegen_hw.request(GenOp.COUNT)
    first = movegen_hw.first(ply=0)
    elsewhere = movegen_hw.first(ply=1)
    back = movegen_hw.next(ply=0)
    assert first.found and following.found and legal.found and count.count == 48
    assert elsewhere.found and elsewhere.word == first.word and back.word == following.word
    assert (first.cycles, following.cycles, legal.cycles, count.cycles) == (4, 2, 2, COUNT_LATENCY + 1)
    assert (elsewhere.cycles, back.cycles) == (4 + 1, 2 + 1)


def test_a_prefetch_offered_as_the_board_changes_answers_for_the_board_of_its_cycle(movegen_hw):
    """The search's PREFETCH (NEXT in KEEP mode) comes with the MAKE that follows an UNMAKE,
    offered as the UNMAKE's last halfmove is taken or a cycle after: the generator holds it
    until that board reaches its cells (two cycles, or one), so it answers for the board of its
    cycle, not the child's, whose halfmoves follow at once; and the ply goes on from there."""
    positions = ["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                 "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                 "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"]
    for fen in positions:
        board = chess.Board(fen)
        for gap in (0, 1):
            movegen_hw.set_position(board)
            quiet, _ = movegen_hw.generate(ply=0)
            movegen_hw.set_position(board)
            side = movegen_hw.side
            m1 = movegen_hw.first(ply=0)
            m2 = movegen_hw.next(ply=0)                         # a PREFETCH on a settled board
            made = make(movegen_hw, board, chess.Move.from_uci(m1.uci))
            movegen_hw.first(ply=1)                             # the child's own ply
            board.pop()
            movegen_hw.set_side(side)
            second = move_halfmoves(board, chess.Move.from_uci(m2.uci))
            m3 = movegen_hw.held_next(gap, 0, inverse(made), second)
            assert same([m1, m2, m3], quiet[:3]), describe(board, [m1, m2, m3], quiet[:3])
            assert m3.cycles == 2 + 2 - gap
            movegen_hw.apply(inverse(second))                  # the child returns: the ply goes on
            movegen_hw.set_side(side)
            m4 = movegen_hw.next(ply=0)
            assert same([m4], quiet[3:4]), describe(board, [m4], quiet[3:4])


STANDARD_DEPTH = 3


def test_perft_standard_positions(movegen_hw):
    for record in reference_positions("perft-standard.epd"):
        movegen_hw.set_position(record.board)
        before = movegen_hw.state().planes
        count, cycles = movegen_hw.perft(STANDARD_DEPTH)
        assert count == int(record.operations[f"D{STANDARD_DEPTH}"]), record.board.fen()
        assert movegen_hw.state().planes == before


def check_perft2(hw, records):
    for record in records:
        hw.set_position(record.board)
        count, _ = hw.perft(2)
        assert count == int(record.operations["perft2"]), record.board.fen()


def test_perft2_random_positions(movegen_hw):
    check_perft2(movegen_hw, reference_positions("random-positions.epd", 100))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["random-positions.epd", "special-positions.epd"])
def test_perft2_all_positions(movegen_hw, name):
    check_perft2(movegen_hw, reference_positions(name))


def test_nested_contexts_survive_subtrees(movegen_hw):
    """Generation at ply p interleaved with whole subtrees below continues exactly at p."""
    rng = random.Random(3)
    for record in reference_positions("random-positions.epd", 40):
        board = record.board
        hw = movegen_hw
        hw.set_position(board)
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


def test_a_check_said_to_be_impossible_is_reported(movegen_hw, monkeypatch):
    """The comparison catches a generator that calls a checking move certain to give none (the
    search would pass it over unmade): here the answers are doctored after the fact."""
    import dataclasses

    import chess
    board = chess.Board("7k/8/8/8/8/8/6R1/K7 w - - 0 1")      # Rg8+ and Rh2+ give check
    assert compare_position(movegen_hw, board) == []
    generate = movegen_hw.generate

    def doctored(*args, **kwargs):
        moves, cycles = generate(*args, **kwargs)
        return [dataclasses.replace(m, may_check=False) if m.uci == "g2g8" else m for m in moves], cycles
    monkeypatch.setattr(movegen_hw, "generate", doctored)
    diffs = compare_position(movegen_hw, board)
    assert "g2g8 gives check, but the generator says it certainly does not" in diffs, diffs
