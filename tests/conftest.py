import os
from pathlib import Path

import pytest

from host.epd import EpdRecord, read_positions

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("SUPREM_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_positions(name, limit=None):
    """The positions of a file in shared/data as EpdRecords (every line must parse)."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not here (shared/ must stand beside the repository)")
    records = list(read_positions(path.read_text().splitlines()))
    bad = [r for r in records if not isinstance(r, EpdRecord)]
    assert not bad, f"unreadable lines in {name}: {bad[:3]}"
    return records[:limit]


ALL_SHARED = ("perft-standard.epd", "random-positions.epd", "special-positions.epd")


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
