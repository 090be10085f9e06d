"""The evaluation station (hdl/station.py, the iCEBreaker's build) as a simulated board behind
its link: positions, tables and EVALUATE exactly as on the searching machine, against the
bit-exact evaluator model; the commands of the search refused."""

import chess
import pytest

from hdl.eval.tables import SMALL
from hdl.link.protocol import PROTOCOL_VERSION, Command
from host.link import CommandRefused
from host.machine import NotThisBuild, RemoteMachine
from host.oracle import Oracle
from models.evaluator import static_value
from models.position import MachinePosition
from models.zobrist import position_key
from sim.search_check import table_store
from sim.testing import random_games, reference_positions


@pytest.fixture(scope="module")
def station():
    from sim.board_sim import SimulatedBoard
    with SimulatedBoard(SMALL, station=True) as simulated, simulated.client() as client:
        yield RemoteMachine(client)


def test_the_station_says_what_it_is(station):
    status = station.client.status()
    assert (status.version, status.max_ply, status.hash_bits, status.clock_hz) == (PROTOCOL_VERSION, 0, 0, 12_000_000)
    assert status.max_frame == station.client.max_frame == 256
    assert station.eval_params == SMALL and not station.searches and not status.busy


@pytest.mark.parametrize("tables", ["random", "oracle"])
def test_positions_and_values_equal_the_model(station, tables):
    """Random tables (every unit and map in use), and the Oracle's own tables for SMALL."""
    games = [r.board for r in reference_positions("random-positions.epd", limit=20)] + random_games(8, 20, range(80))
    oracle = Oracle(SMALL)
    problems, values = [], set()
    for game in games:
        store = table_store(SMALL, "random", seed=5) if tables == "random" else oracle.tables_for(game)[1]
        station.set_position(game)
        station.download(store)
        key, want_key = station.key(), position_key(MachinePosition.from_board(game), 0 if game.turn else 1)
        value, want = station.evaluate(), static_value(store, game)
        values.add(want)
        if (key, value) != (want_key, want):
            problems.append(f"{game.fen()}: key {key:#018x} value {value}, want {want_key:#018x} {want}")
    assert not problems, "\n".join(problems[:10])
    assert len(values) > len(games) // 4


def test_tables_read_back_by_checksum(station):
    store = table_store(SMALL, "random", seed=9)
    station.download(store)
    assert all(station.client.checksum(unit, kind) == store.checksum(unit, kind) for unit, kind in store.tables)


def test_the_search_is_refused_clearly_and_changes_nothing(station):
    game = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    store = table_store(SMALL, "random", seed=5)
    station.download(store)
    station.set_position(game)
    with pytest.raises(NotThisBuild, match="evaluation station"):
        station.search(3)
    with pytest.raises(NotThisBuild, match="evaluation station"):
        station.perft(2)
    for command in (Command.START, Command.STOP, Command.PROBE, Command.HASH_CLEAR, Command.HISTORY):
        with pytest.raises(CommandRefused, match="unknown"):
            station.client.command(command, bytes(16))
    assert station.evaluate() == static_value(store, game)
    assert station.key() == position_key(MachinePosition.from_board(game), 0)
