"""cocotb testbench of the whole evaluator (small configuration), through its top-level ports.

A driver downloads tables and plays halfmoves; a checker compares the value after each step
with the bit-exact model (models/evaluator.py) and the cycle it became valid with the
evaluator's latency.
"""

import random

import chess
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from hdl.encoding import pack
from hdl.eval.tables import SMALL, TableKind, TableSelect, TableWrite
from models.evaluator import EvaluatorModel, signed
from ports import transfer
from sim.eval_check import random_tables, walk_steps
from sim.testing import reference_positions

PARAMS = SMALL


class EvaluatorTB:
    def __init__(self, dut):
        self.dut = dut

    async def start(self):
        Clock(self.dut.clk, 10, unit="ns").start()
        for port in ("halfmove__valid", "write__valid", "checksum_request__valid", "clear", "side"):
            getattr(self.dut, port).value = 0
        self.dut.rst.value = 1
        await RisingEdge(self.dut.clk)
        await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0

    async def download(self, store):
        for (unit, kind), entries in store.tables.items():
            for index, data in enumerate(entries):
                address = {"unit": unit, "table": kind, "index": index}
                await transfer(self.dut, "write", pack(TableWrite, address=address, data=data))

    async def halfmoves(self, halfmoves):
        for h in halfmoves:
            await transfer(self.dut, "halfmove", h.bits)

    async def valid_value(self):
        """Called just after a transfer: how many cycles after it ``valid`` rises, and the value."""
        edges = 0
        while True:
            await ReadOnly()
            if int(self.dut.valid.value):
                value = signed(int(self.dut.value.value), 16)
                await RisingEdge(self.dut.clk)
                return edges + 1, value
            await RisingEdge(self.dut.clk)
            edges += 1

    async def checksum(self, unit, kind):
        await transfer(self.dut, "checksum_request", pack(TableSelect, unit=unit, table=kind))
        busy_cycles = 0
        while True:
            await ReadOnly()
            if not int(self.dut.halfmove__ready.value):
                busy_cycles += 1
            if int(self.dut.checksum__valid.value):
                crc = int(self.dut.checksum__payload.value)
                await RisingEdge(self.dut.clk)
                return crc, busy_cycles
            await RisingEdge(self.dut.clk)


def boards():
    return [chess.Board()] + [r.board for r in random.Random(4).sample(reference_positions("random-positions.epd"), 5)]


@cocotb.test()
async def walks_equal_model(dut):
    """Random tables through the download port; after every make and unmake the value equals
    the model's, and valid rises exactly ``latency`` cycles after the last halfmove."""
    tb = EvaluatorTB(dut)
    await tb.start()
    store = random_tables(PARAMS, 21)
    await tb.download(store)
    rng = random.Random(8)
    for board in boards():
        dut.clear.value = 1
        await RisingEdge(dut.clk)
        dut.clear.value = 0
        model = EvaluatorModel(PARAMS, store)
        for label, halfmoves, side in walk_steps(board, 6, rng):
            dut.side.value = side
            model.set_side(side)
            for h in halfmoves:
                model.apply(h)
            await tb.halfmoves(halfmoves)
            cycles, value = await tb.valid_value()
            assert value == model.value(), f"{board.fen()} after {label}: hardware {value}, model {model.value()}"
            assert cycles == PARAMS.latency, f"{board.fen()} after {label}: valid {cycles} cycles after"


@cocotb.test()
async def checksums_read_back(dut):
    """Each table's CRC-32 equals zlib's over the downloaded entries; the bus waits meanwhile."""
    tb = EvaluatorTB(dut)
    await tb.start()
    store = random_tables(PARAMS, 22)
    await tb.download(store)
    for unit, kind in PARAMS.tables():
        crc, busy = await tb.checksum(unit, kind)
        assert crc == store.checksum(unit, kind), f"unit {unit} {TableKind(kind).name}"
        assert busy >= PARAMS.table_geometry(unit, kind)[0], "halfmoves were accepted during the sweep"
