"""The host link and the simulated board: table download, start-up, simulation speed.

    python -m benchmarks.link [--depth D] [--turnaround MS]
    python -m benchmarks.link --station [--positions N] [--turnaround MS]

* Table download: the Oracle's middlegame table set (FULL evaluator) sent to an empty
  simulated board, counted in frames and bytes on the line both ways; the line time at 1 and
  3 Mbaud is bytes x 10 bits / baud, plus a turnaround per frame (stop and wait; ``MS``, 1 ms
  by default, a USB serial bridge's latency — not measured here: no board is attached).
* Start-up: starting the simulated board (cached build) and the first STATUS answered; the
  first download of the tables (checksums read back for every table); the same download
  again, by the same host (nothing to do) and by a new one (every checksum read back).
* Speed: ``suprem analyze``'s search (iterative deepening to depth D from a middlegame
  position) on the simulated board: simulated cycles and nodes per second of wall time, against
  the Verilated machine driven directly (no link) on the same searches in the same run.

``--station``: the evaluation station (the iCEBreaker's build, SMALL evaluator, 256-byte
frames) simulated: the Oracle's SMALL middlegame tables downloaded, then N positions of seeded
random games each set and evaluated under them (every value checked against the bit-exact
model), in frames and bytes on the line, projected to evaluations per second at 1 Mbaud.
"""

import argparse
import sys
import time

import chess

from hdl.eval.tables import FULL, SMALL
from hdl.search.zobrist import ComputedZobristUnit
from host.driver import Limits, SearchDriver
from host.machine import RemoteMachine
from host.oracle import Oracle
from models.evaluator import static_value
from models.position import setup_halfmoves
from sim.board_sim import SimulatedBoard, board_executable
from sim.machine_sim import VerilatedMachine
from sim.testing import random_games

POSITION = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--turnaround", type=float, default=1.0, help="ms per frame for the projection (1)")
    parser.add_argument("--station", action="store_true", help="the evaluation station instead")
    parser.add_argument("--positions", type=int, default=200, help="positions the station evaluates (200)")
    args = parser.parse_args(argv)
    if args.station:
        return station(args)
    game = chess.Board(POSITION)
    _, store = Oracle(FULL).tables_for(game)
    board_executable()

    start = time.perf_counter()
    with SimulatedBoard() as simulated, simulated.client() as client:
        ready = time.perf_counter() - start
        board = RemoteMachine(client)
        board.set_position(game)
        before = client.status().frames
        client.bytes_sent = client.bytes_received = 0
        start = time.perf_counter()
        sent = board.download(store)
        first_download = time.perf_counter() - start
        frames = client.status().frames - before - 1
        line_bytes = client.bytes_sent + client.bytes_received
        print(f"simulated board started and answering in {ready:.2f} s")
        print(f"table download: {len(sent)} of {len(store.tables)} tables sent (the rest were already zero), "
              f"{frames} frames, {client.bytes_sent:,} bytes out, {client.bytes_received:,} bytes back, "
              f"{first_download:.1f} s wall on the simulated board (checksums of all tables included)")
        for baud in (1e6, 3e6):
            wire = line_bytes * 10 / baud
            with_turnaround = wire + frames * args.turnaround / 1000
            print(f"  at {baud / 1e6:.0f} Mbaud: {wire:.2f} s on the line, {with_turnaround:.2f} s "
                  f"with {args.turnaround:g} ms turnaround per frame")

        for what, host in (("again (the tables known to be on the board)", board),
                           ("again after the host forgot (every checksum read back)", RemoteMachine(client))):
            before = client.status().frames
            start = time.perf_counter()
            resent = host.download(store)
            print(f"the same download {what}: {len(resent)} tables sent, "
                  f"{client.status().frames - before - 1} frames, {time.perf_counter() - start:.2f} s wall")

        driver = SearchDriver(board)
        start = time.perf_counter()
        iterations = driver.analyse(game, Limits(depth=args.depth), new_table=True)
        wall = time.perf_counter() - start
        nodes, cycles = iterations[-1].total_nodes, iterations[-1].total_cycles
        print(f"simulated board, analyze to depth {args.depth}: {nodes:,} nodes, {cycles:,} cycles in {wall:.1f} s: "
              f"{nodes / wall:,.0f} nodes/s, {cycles / wall:,.0f} cycles/s of wall time")

    with VerilatedMachine(FULL) as machine:
        machine.write_store(store)
        machine.set_position(game)
        machine.clear_hash()
        start = time.perf_counter()
        direct_nodes = direct_cycles = 0
        for depth in range(1, args.depth + 1):
            result = machine.search(depth)
            direct_nodes += result.nodes
            direct_cycles += result.cycles
        direct = time.perf_counter() - start
        print(f"Verilated machine without the link, the same searches: {direct_nodes:,} nodes, "
              f"{direct_cycles:,} cycles "
              f"in {direct:.1f} s: {direct_nodes / direct:,.0f} nodes/s, {direct_cycles / direct:,.0f} cycles/s")
    return 0


def _line_time(line_bytes, frames, turnaround_ms, baud=1e6):
    return line_bytes * 10 / baud + frames * turnaround_ms / 1000


def station(args):
    game = chess.Board(POSITION)
    oracle = Oracle(SMALL)
    _, store = oracle.tables_for(game)
    board_executable(SMALL, station=True)
    with SimulatedBoard(SMALL, station=True) as simulated, simulated.client() as client:
        board = RemoteMachine(client)
        board.set_position(game)
        before = client.status().frames
        client.bytes_sent = client.bytes_received = 0
        sent = board.download(store)
        frames = client.status().frames - before - 1
        line_bytes = client.bytes_sent + client.bytes_received
        print(f"station: frames of up to {client.max_frame} bytes; table download: {len(sent)} of {len(store.tables)} "
              f"tables sent, {frames} frames, {client.bytes_sent:,} bytes out, {client.bytes_received:,} back: "
              f"{_line_time(line_bytes, frames, args.turnaround):.2f} s at 1 Mbaud with {args.turnaround:g} ms "
              f"turnaround per frame")

        games = random_games(1, args.positions, range(10, 80))
        before = client.status().frames
        client.bytes_sent = client.bytes_received = 0
        start, wrong, halfmoves = time.perf_counter(), 0, 0
        for game in games:                      # (all under the middlegame tables downloaded)
            board.set_position(game)
            wrong += board.evaluate() != static_value(store, game)
            halfmoves += len(setup_halfmoves(game))
        wall = time.perf_counter() - start
        frames = client.status().frames - before - 1
        line_bytes = client.bytes_sent + client.bytes_received
        # On the board each halfmove waits for its computed Zobrist key (ComputedZobristUnit).
        key_seconds = halfmoves * ComputedZobristUnit.CYCLES / client.status().clock_hz
        per_position = (_line_time(line_bytes, frames, args.turnaround) + key_seconds) / len(games)
        print(f"{len(games)} positions set and evaluated ({wrong} differ from the model): {frames} frames, "
              f"{line_bytes:,} bytes, {halfmoves:,} halfmoves ({key_seconds / len(games) * 1000:.2f} ms of key "
              f"computing per position at the board's clock); {wall:.1f} s on the simulated station; at 1 Mbaud "
              f"with {args.turnaround:g} ms turnaround per frame {per_position * 1000:.2f} ms per position: "
              f"{1 / per_position:,.0f} evaluations/s")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
