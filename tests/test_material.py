"""The material counter in the Amaranth simulator: after every halfmove of random games (made
and unmade, promotions and captures included), its balance and each side's piece count equal
python-chess's."""

import random

import chess
import pytest

from hdl.search.material import MaterialCounter
from models.position import inverse, move_halfmoves, setup_halfmoves
from models.search import material_balance
from sim.testing import play_halfmoves, reference_positions, simulate


def _pieces(board, colour):
    return sum(len(board.pieces(t, colour)) for t in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))


@pytest.mark.parametrize("pairs", [False, True], ids=["single", "pairs"])
def test_balance_and_pieces_follow_the_halfmoves(pairs):
    dut = MaterialCounter()
    rng = random.Random(3)
    boards = [r.board for r in reference_positions("special-positions.epd", limit=60)]
    problems, checked = [], 0

    async def bench(ctx):
        nonlocal checked

        async def play(halfmoves):
            await play_halfmoves(ctx, dut.halfmove, halfmoves, pairs=pairs)

        def check(board, what):
            nonlocal checked
            checked += 1
            got = (ctx.get(dut.balance), ctx.get(dut.pieces[0]), ctx.get(dut.pieces[1]))
            want = (material_balance(board), _pieces(board, chess.WHITE), _pieces(board, chess.BLACK))
            if got != want:
                problems.append(f"{board.fen()} {what}: counted {got}, want {want}")

        for board in boards:
            ctx.set(dut.clear, 1)
            await ctx.tick()
            ctx.set(dut.clear, 0)
            await play(setup_halfmoves(board))
            check(board, "set up")
            made = []
            for _ in range(6):
                moves = list(board.legal_moves)
                if not moves:
                    break
                move = rng.choice([m for m in moves if board.is_capture(m) or m.promotion] or moves)
                halfmoves = move_halfmoves(board, move)
                await play(halfmoves)
                board.push(move)
                made.append(halfmoves)
                check(board, f"after {move.uci()}")
            while made:
                await play(inverse(made.pop()))
                board.pop()
                check(board, "unmade")

    simulate(dut, bench)
    assert not problems, "\n".join(problems[:5])
    assert checked > 300
