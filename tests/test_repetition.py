"""The repetition detector in the Amaranth simulator against its model: random pushes and pops
one every cycle, over a few keys (so positions repeat), deep enough to refill the window from
the stack (a pop right after a pop included), and
chess walks where knights shuffle back and forth."""

import random

import chess
import pytest

from hdl.search.repetition import CLOCK_LIMIT, FIFTY_MOVES, RepetitionDetector, fifty_move_draw, next_clock
from models.position import MachinePosition, move_halfmoves
from models.repetition import game_history, repeats
from models.zobrist import position_key
from sim.testing import simulate


def _run(operations, window=8, capacity=64):
    """Apply ("push", key, irreversible, zeroing) (the search's), ("history", key,
    irreversible, clock) (the host's) and ("pop",) operations; for each, the hardware's
    ``repeated`` and ``clock`` while a push is offered (None for a pop), the model's for the
    stack after it, and both depths after it."""
    dut = RepetitionDetector(window=window, capacity=capacity)
    results = []

    async def bench(ctx):
        entries = []
        for number, operation in enumerate(operations):
            while not ctx.get(dut.path.push.ready):
                await ctx.tick()
            kind, *fields = operation
            if kind == "pop":
                ctx.set(dut.path.pop, 1)
                entries.pop()
                judged = expected = None
            else:
                key, irreversible, last = fields
                if kind == "push":
                    ctx.set(dut.path.push.valid, 1)
                    ctx.set(dut.path.push.payload, {"key": key, "irreversible": irreversible, "zeroing": last})
                    clock = next_clock(entries[-1][2] if entries else 0, last)
                else:
                    ctx.set(dut.history.valid, 1)
                    ctx.set(dut.history.payload, {"key": key, "irreversible": irreversible, "clock": last})
                    clock = last
                entries.append((key, irreversible, clock))
                judged = (ctx.get(dut.path.repeated), ctx.get(dut.path.clock))
                expected = (int(repeats(entries, window)), clock)
            await ctx.tick()
            ctx.set(dut.path.push.valid, 0)
            ctx.set(dut.history.valid, 0)
            ctx.set(dut.path.pop, 0)
            results.append((number, judged, expected, ctx.get(dut.depth), len(entries)))

    simulate(dut, bench)
    return results


def test_random_stacks_equal_the_model():
    """Repetitions and clocks: the host's positions with clocks near the fifty-move limit and
    the search's zeroing moves, so that clocks restart, cross a hundred and stick there."""
    rng = random.Random(3)
    operations, depth = [], 0
    for _ in range(1500):
        if depth and (rng.random() < 0.45 or depth == 60):
            operations.append(("pop",))
            depth -= 1
        elif depth == 0 or rng.random() < 0.05:
            operations.append(("history", rng.randrange(3), int(rng.random() < 0.1),
                               rng.choice([0, 5, 97, 99, 100, 101, 126, CLOCK_LIMIT])))
            depth += 1
        else:
            operations.append(("push", rng.randrange(3), int(rng.random() < 0.1), int(rng.random() < 0.2)))
            depth += 1
    results = _run(operations)
    bad = [r for r in results if r[1] != r[2] or r[3] != r[4]]
    assert not bad, f"{len(bad)} differences, first (step, hardware, model, hw depth, depth): {bad[:3]}"
    assert sum(bool(r[2] and r[2][0]) for r in results) > 50, "too few repetitions to mean anything"
    assert max(r[4] for r in results) > 8 + 2, "the window was never refilled from the stack"
    clocks = [r[2][1] for r in results if r[2]]
    assert {0, FIFTY_MOVES, CLOCK_LIMIT} <= set(clocks), "the clocks never restarted, met the rule or saturated"


def test_the_clock_restarts_before_the_rule_and_sticks_after_it():
    assert [next_clock(clock, False) for clock in (0, 98, 99, 100, CLOCK_LIMIT)] == [1, 99, 100, 101, CLOCK_LIMIT]
    assert [next_clock(clock, True) for clock in (0, 98, 99, 100, 120)] == [0, 0, 0, 101, 121]
    assert [bool(fifty_move_draw(clock, False)) for clock in (99, 100, 101)] == [False, True, True]
    assert [bool(fifty_move_draw(clock, True)) for clock in (99, 100, 101)] == [False, False, True]


def test_knight_shuffles_repeat_and_a_pawn_move_ends_it():
    board = chess.Board()
    position = MachinePosition.from_board(board)
    operations = [("history", position_key(position, 0), 0, 0)]
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "e7e5", "f3g1", "e5e4", "g1f3"):
        move = chess.Move.from_uci(uci)
        irreversible = board.is_zeroing(move) or board.is_castling(move)
        zeroing = board.is_zeroing(move)
        position.apply_all(move_halfmoves(board, move))
        board.push(move)
        operations.append(("push", position_key(position, 0 if board.turn else 1), int(irreversible), int(zeroing)))
    results = _run(operations, window=32)
    # after f6g8 the start position is back; after f3g1 (move 7) the pawn move e7e5 cut the
    # history; the clocks are the game's halfmove clocks
    assert [r[1] for r in results] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 4), (1, 5), (0, 0), (0, 1), (0, 0), (0, 1)]
    assert [r[2] for r in results] == [r[1] for r in results]


@pytest.mark.parametrize("window,capacity,message", [(7, 64, "even number"), (32, 20, "cannot hold")])
def test_parameter_checks(window, capacity, message):
    with pytest.raises(ValueError, match=message):
        RepetitionDetector(window=window, capacity=capacity)


def _shuffled(seed, plies, fen="7k/8/8/8/8/8/8/K7 w - - 0 1"):
    """A game of ``plies`` random moves of the pieces, none a capture (all reversible),
    from ``fen``."""
    rng, board = random.Random(seed), chess.Board(fen)
    for _ in range(plies):
        board.push(rng.choice([move for move in board.legal_moves if not board.is_capture(move)]))
    return board


def _key(board):
    return position_key(MachinePosition.from_board(board), 0 if board.turn == chess.WHITE else 1)


def test_a_short_history_is_the_games_own():
    board = _shuffled(1, 20)
    walk = [_key(board)]
    game = board.copy()
    while game.move_stack:
        game.pop()
        walk.append(_key(game))
    assert game_history(board) == [(key, index == 20, 20 - index) for index, key in enumerate(walk)][::-1]


@pytest.mark.parametrize("seed", range(4))
def test_a_long_shuffle_keeps_the_positions_that_stood_twice_in_the_window(seed):
    """Over 150 reversible plies the history is compressed into the window: 32 positions before
    the board's, only the oldest marked irreversible, each at a distance of the parity it stood
    at, each once but for the padding of the shorter parity; every position that stood twice is
    there (a third time is the rules' draw; here fewer than 16 a parity), so a line that comes
    back to one of the board's side two plies on is a repetition to the model."""
    board = _shuffled(seed, 150)
    history = game_history(board)
    assert len(history) == 33 and [flag for _, flag, _ in history] == [True] + [False] * 32
    # 150 plies: the board's clock saturated, the others a ply less each way back
    assert [clock for _, _, clock in history] == [min(150 - distance, CLOCK_LIMIT) for distance in range(32, -1, -1)]
    game, stood = board.copy(), {}
    for distance in range(1, 151):
        game.pop()
        times = stood.setdefault(_key(game), [distance % 2, 0])
        times[1] += 1
    kept = {}
    for distance, (key, _, _) in enumerate(history[-2::-1], 1):
        assert stood[key][0] == distance % 2
        kept.setdefault(key, distance)
    twice = [key for key, (_, times) in stood.items() if times >= 2]
    assert twice and len(twice) < 32 and set(twice) <= set(kept)
    for key in twice:
        comes_back = history + [(0, False, 0), (key, False, 0)]
        assert repeats(comes_back) == (stood[key][0] == 0 and kept[key] <= 30)
