"""Runs the cocotb testbench of the whole evaluator (tests/cocotb/evaluator_tb.py) on Verilator."""

from pathlib import Path

from hdl.eval.evaluator import Evaluator
from hdl.eval.tables import SMALL
from sim.testing import run_cocotb


def test_evaluator_cocotb():
    outcomes = run_cocotb("evaluator_small", lambda: Evaluator(SMALL), "evaluator_tb", Path(__file__).parent / "cocotb",
                          packages=("eval",))
    assert outcomes == {"walks_equal_model": "pass", "checksums_read_back": "pass"}
