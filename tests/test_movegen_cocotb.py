"""Runs the cocotb testbench of the generator (tests/cocotb/movegen_tb.py) on Verilator."""

from pathlib import Path

from hdl.movegen.generator import MoveGenerator
from sim.testing import run_cocotb

from .conftest import SHARED_DATA


def test_movegen_cocotb():
    outcomes = run_cocotb("movegen", MoveGenerator, "movegen_tb", Path(__file__).parent / "cocotb",
                          extra_env={"SUPREM_SHARED_DATA": str(SHARED_DATA)})
    assert outcomes == {"moves_in_model_order": "pass", "legality_and_make_unmake": "pass"}
