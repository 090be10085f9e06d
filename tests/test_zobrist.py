"""The Zobrist units (the ROM's and the computed keys') in the Amaranth simulator against the
from-scratch model: random walks from reference positions, transpositions and unwinding."""

import random

import chess
import pytest

from hdl.encoding import HalfmoveOp
from hdl.search.zobrist import SIDE_KEY, ComputedZobristUnit, ZobristUnit, piece_square_key
from models.position import Halfmove, MachinePosition, move_halfmoves
from models.zobrist import position_key
from sim.eval_check import walk_steps
from sim.testing import play_halfmoves, reference_positions, simulate


def _drive(unit, boards, plies, seed, pairs=False):
    """Per board, (label, hardware key, model key) after every step of a walk from it."""
    dut = unit()
    rng = random.Random(seed)
    seen = []

    async def bench(ctx):
        for board in boards:
            ctx.set(dut.clear, 1)
            await ctx.tick()
            ctx.set(dut.clear, 0)
            position = MachinePosition()
            seen.append([])
            for label, halfmoves, side in walk_steps(board, plies, rng):
                ctx.set(dut.side, side)
                await play_halfmoves(ctx, dut.halfmove, halfmoves, pairs=pairs)
                position.apply_all(halfmoves)
                await ctx.tick()            # the last halfmove's XOR lands
                seen[-1].append((f"{board.fen()} {label}", ctx.get(dut.key), position_key(position, side)))

    simulate(dut, bench)
    return seen


@pytest.mark.parametrize("unit, count, pairs", [(ZobristUnit, 15, True), (ZobristUnit, 5, False),
                                                (ComputedZobristUnit, 4, False)])
def test_keys_equal_the_model_after_every_make_and_unmake(unit, count, pairs):
    """The ROM unit two halfmoves a transfer (as the machine's bus) and one; the computed unit
    (the station's) one."""
    boards = [r.board for r in reference_positions("special-positions.epd", limit=count)]
    boards += [r.board for r in reference_positions("random-positions.epd", limit=count)]
    walks = _drive(unit, boards, 10, 1, pairs)
    bad = [f"{where}: hardware {hw:#018x}, model {model:#018x}"
           for walk in walks for where, hw, model in walk if hw != model]
    assert not bad, "\n".join(bad[:5])
    for walk in walks:
        assert walk[-1][1] == walk[0][1], f"{walk[0][0]}: unwinding did not restore the key"
    starts = [walk[0][1] for walk in walks]
    assert len(set(starts)) == len(starts), "two different positions share a key"


def test_the_computed_keys_are_the_roms():
    """Every (piece code, square) key the computed unit makes, one halfmove each, marker colours
    and the empty square included (a third of the squares, seeded; the walks above do the rest)."""
    dut = ComputedZobristUnit()
    squares = random.Random(4).sample(range(64), 22)
    seen = []

    async def bench(ctx):
        for code in range(16):
            for square in squares:
                halfmove = Halfmove(HalfmoveOp.PLACE, square, code)
                before = ctx.get(dut.key)
                await play_halfmoves(ctx, dut.halfmove, [halfmove])
                seen.append((code, square, ctx.get(dut.key) ^ before))

    simulate(dut, bench)
    bad = [f"piece {code} square {square}: {got:#018x}, want {piece_square_key(code, square):#018x}"
           for code, square, got in seen if got != piece_square_key(code, square)]
    assert not bad, "\n".join(bad[:5])


def test_transpositions_share_a_key_and_rights_and_side_change_it():
    def key(board):
        return position_key(MachinePosition.from_board(board), 0 if board.turn else 1)

    a, b = chess.Board(), chess.Board()
    for uci in ("g1f3", "g8f6", "b1c3", "b8c6"):
        a.push_uci(uci)
    for uci in ("b1c3", "b8c6", "g1f3", "g8f6"):
        b.push_uci(uci)
    assert key(a) == key(b)
    no_rights = chess.Board(a.fen().replace("KQkq", "Qkq"))
    assert key(no_rights) != key(a)
    assert key(a) ^ key(chess.Board(a.fen().replace(" w ", " b "))) == SIDE_KEY
    assert piece_square_key(0, 12) == 0 and piece_square_key(7, 20) == piece_square_key(15, 20) != 0
    board = chess.Board()
    assert move_halfmoves(board, chess.Move.from_uci("e2e4"))   # the double push places a marker
    board.push_uci("e2e4")
    assert key(board) != key(chess.Board(board.fen().replace("e3", "-")))
