"""Runs the cocotb testbench of the generator (tests/cocotb/movegen_tb.py) on Verilator."""

from pathlib import Path

from hdl.movegen.generator import MoveGenerator
from sim.testing import run_cocotb


def test_movegen_cocotb():
    outcomes = run_cocotb("movegen", MoveGenerator, "movegen_tb", Path(__file__).parent / "cocotb")
    assert outcomes == {"moves_in_model_order": "pass", "legality_and_make_unmake": "pass"}
