import pytest


@pytest.fixture(scope="session")
def movegen_hw():
    from sim.movegen_sim import VerilatedMovegen
    with VerilatedMovegen() as hw:
        yield hw


@pytest.fixture(scope="session")
def machine_hw():
    """The Verilated machine (full evaluator), shared by the perft and search tests."""
    from sim.machine_sim import VerilatedMachine
    with VerilatedMachine() as hw:
        yield hw


@pytest.fixture(scope="session")
def full_evaluator():
    """The Verilated evaluator of the full configuration, shared by the pattern tests."""
    from hdl.eval.tables import FULL
    from sim.eval_sim import VerilatedEvaluator
    with VerilatedEvaluator(FULL) as hw:
        yield hw
