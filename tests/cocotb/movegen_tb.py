"""cocotb testbench of the move generator, through its top-level ports only.

A driver applies halfmoves and requests, a monitor collects responses, and a checker compares
them in order with the bit-exact model (models/movegen.py) and python-chess.
"""

import os
import random

import chess
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from hdl.encoding import MoveWord, Piece, pack, unpack
from hdl.movegen.layouts import GenMode, GenOp, GenRequest, GenResponse
from models.movegen import candidate_moves, in_check, ordered_moves
from models.position import MachinePosition, inverse, move_halfmoves, setup_halfmoves
from ports import transfer
from sim.testing import reference_positions


class MovegenTB:
    """Bus-functional model of the generator's ports."""

    def __init__(self, dut):
        self.dut = dut
        self.side = 0

    async def reset(self):
        self.dut.halfmove__valid.value = 0
        self.dut.search__request__valid.value = 0
        self.dut.side.value = 0
        self.dut.rst.value = 1
        await RisingEdge(self.dut.clk)
        await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0

    async def halfmoves(self, halfmoves):
        for h in halfmoves:
            await transfer(self.dut, "halfmove", h.bits)

    def set_side(self, side):
        self.side = side
        self.dut.side.value = side

    async def load(self, board):
        await self.reset()
        await self.halfmoves(setup_halfmoves(board))
        self.set_side(0 if board.turn else 1)

    async def request(self, op, ply=0, mode=GenMode.ALL, move=0):
        await transfer(self.dut, "search__request", pack(GenRequest, op=op, ply=ply, mode=mode,
                                             move=unpack(MoveWord, move)))
        while True:
            await ReadOnly()
            if int(self.dut.search__response__valid.value):
                response = unpack(GenResponse, int(self.dut.search__response__payload.value))
                await RisingEdge(self.dut.clk)
                return response
            await RisingEdge(self.dut.clk)

    async def generate(self, ply=0, mode=GenMode.ALL):
        moves = []
        response = await self.request(GenOp.FIRST, ply, mode)
        while response["found"]:
            moves.append(response)
            response = await self.request(GenOp.NEXT, ply, mode)
        return moves

    async def settled_outputs(self):
        while True:
            await ReadOnly()
            if int(self.dut.search__request__ready.value):
                attacks = int(self.dut.attacks.value)
                out = (int(self.dut.search__in_check.value), int(self.dut.search__king_attacked.value),
                       attacks & ((1 << 64) - 1), attacks >> 64)
                await RisingEdge(self.dut.clk)
                return out
            await RisingEdge(self.dut.clk)


def positions():
    rng = random.Random(int(os.environ.get("SUPREM_SEED", "11")))
    boards = [r.board for r in reference_positions("perft-standard.epd")]
    for name, count in (("special-positions.epd", 12), ("random-positions.epd", 12)):
        boards += [r.board for r in rng.sample(reference_positions(name), count)]
    return boards


def as_tuple(move):
    return (move.word, move.key, move.piece, move.victim, int(move.may_check))


def response_tuple(r):
    return (pack(MoveWord, **r["move"]), pack_key(r["key"]), pack(Piece, **r["piece"]), pack(Piece, **r["victim"]),
            r["may_check"])


def pack_key(fields):
    from hdl.movegen.layouts import MoveKey
    return pack(MoveKey, **fields)


@cocotb.test()
async def moves_in_model_order(dut):
    """Every move, in order, with key, piece codes and may-check bit, in every mode; check and
    attack maps."""
    Clock(dut.clk, 10, unit="ns").start()
    tb = MovegenTB(dut)
    for board in positions():
        await tb.load(board)
        pos = MachinePosition.from_board(board)
        side = 0 if board.turn else 1
        for mode in (GenMode.ALL, GenMode.CAPTURES, GenMode.CHECKS):
            got = [response_tuple(r) for r in await tb.generate(mode=mode)]
            want = [as_tuple(m) for m in ordered_moves(pos, side, mode)]
            first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
            assert got == want, (f"{board.fen()} {mode.name}: hardware {len(got)} moves, model {len(want)}; "
                                 f"first difference at {first}")
        check, kings, white, black = await tb.settled_outputs()
        assert check == in_check(pos, side) == board.is_check(), board.fen()
        for colour, got in ((0, white), (1, black)):
            want = sum(1 << sq for sq in chess.SQUARES if board.is_attacked_by(colour == 0, sq))
            assert got == want, f"{board.fen()}: attacks by {'wb'[colour]} differ at {got ^ want:#x}"


@cocotb.test()
async def legality_and_make_unmake(dut):
    """LEGAL on every move and on random words; make/unmake and the king-attacked flags."""
    Clock(dut.clk, 10, unit="ns").start()
    tb = MovegenTB(dut)
    rng = random.Random(5)
    for board in positions()[:18]:
        await tb.load(board)
        side = 0 if board.turn else 1
        words = {m.word for m in candidate_moves(MachinePosition.from_board(board), side)}
        probes = list(words) + [rng.randrange(1 << MoveWord.size) for _ in range(30)]
        for word in probes:
            response = await tb.request(GenOp.LEGAL, move=word)
            assert response["found"] == (word in words), f"{board.fen()}: LEGAL({word:#x})"
        legal = set()
        for move in board.pseudo_legal_moves:
            made = move_halfmoves(board, move)
            await tb.halfmoves(made)
            tb.set_side(side ^ 1)
            _, kings, _, _ = await tb.settled_outputs()
            if not kings >> side & 1:
                legal.add(move)
            await tb.halfmoves(inverse(made))
            tb.set_side(side)
        assert legal == set(board.legal_moves), board.fen()
