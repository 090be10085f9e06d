"""The repetition detector in the Amaranth simulator against its model: random pushes and pops
one every cycle, over a few keys (so positions repeat), deep enough to refill the window from
the stack (a pop right after a pop included), and
chess walks where knights shuffle back and forth."""

import random

import chess
import pytest

from hdl.search.repetition import RepetitionDetector
from models.position import MachinePosition, move_halfmoves
from models.repetition import repeats
from models.zobrist import position_key
from sim.testing import simulate


def _run(operations, window=8, capacity=64):
    """Apply ("push", key, irreversible) / ("pop",) operations; for each, the hardware's
    ``repeated`` while a push is offered (None for a pop), the model's for the stack after it,
    and both depths after it."""
    dut = RepetitionDetector(window=window, capacity=capacity)
    results = []

    async def bench(ctx):
        entries = []
        for number, operation in enumerate(operations):
            while not ctx.get(dut.path.push.ready):
                await ctx.tick()
            if operation[0] == "push":
                ctx.set(dut.path.push.valid, 1)
                ctx.set(dut.path.push.payload, {"key": operation[1], "irreversible": operation[2]})
                entries.append(operation[1:])
                judged = ctx.get(dut.path.repeated)
                expected = repeats(entries, window)
            else:
                ctx.set(dut.path.pop, 1)
                entries.pop()
                judged = expected = None
            await ctx.tick()
            ctx.set(dut.path.push.valid, 0)
            ctx.set(dut.path.pop, 0)
            results.append((number, judged, expected, ctx.get(dut.depth), len(entries)))

    simulate(dut, bench)
    return results


def test_random_stacks_equal_the_model():
    rng = random.Random(3)
    operations, depth = [], 0
    for _ in range(1500):
        if depth and (rng.random() < 0.45 or depth == 60):
            operations.append(("pop",))
            depth -= 1
        else:
            operations.append(("push", rng.randrange(3), int(rng.random() < 0.1)))
            depth += 1
    results = _run(operations)
    bad = [r for r in results if r[1] != r[2] or r[3] != r[4]]
    assert not bad, f"{len(bad)} differences, first (step, hardware, model, hw depth, depth): {bad[:3]}"
    assert sum(bool(r[2]) for r in results) > 50, "too few repetitions to mean anything"
    assert max(r[4] for r in results) > 8 + 2, "the window was never refilled from the stack"


def test_knight_shuffles_repeat_and_a_pawn_move_ends_it():
    board = chess.Board()
    position = MachinePosition.from_board(board)
    operations = [("push", position_key(position, 0), 0)]
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "e7e5", "f3g1", "e5e4", "g1f3"):
        move = chess.Move.from_uci(uci)
        irreversible = board.is_zeroing(move) or board.is_castling(move)
        position.apply_all(move_halfmoves(board, move))
        board.push(move)
        operations.append(("push", position_key(position, 0 if board.turn else 1), int(irreversible)))
    results = _run(operations, window=32)
    flags = [r[1] for r in results]
    # after f6g8 the start position is back; after f3g1 (move 7) the pawn move e7e5 cut the history
    assert flags == [0, 0, 0, 0, 1, 1, 0, 0, 0, 0], flags
    assert [r[2] for r in results] == flags


@pytest.mark.parametrize("window,capacity,message", [(7, 64, "even number"), (32, 20, "cannot hold")])
def test_parameter_checks(window, capacity, message):
    with pytest.raises(ValueError, match=message):
        RepetitionDetector(window=window, capacity=capacity)
