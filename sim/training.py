"""The work a profile-guided build of the simulated board is trained on.

``sim.verilator.build_harness``, when its compiler is gcc, compiles a harness with gcc's
instrumentation, runs it through this workload, and compiles it again with the branch and call
counts the run left (clang's builds are plain: its profile gained nothing over ``-O3``).
The workload should take the paths the simulation takes in use: ``suprem analyze``'s
iterative deepening from an empty table, with the Oracle's root knowledge and the default
search features, on an opening, a tactical middlegame and an endgame position, and a perft.
They are not the benchmarks' positions (``benchmarks.simspeed`` measures the gain on positions
the build never saw). The workload is named by a hash of this file, so a change here builds
the board again.

Only the simulated board is built this way: it is what a user runs (``suprem analyze``, the
UCI engine, the matches), and it gains 5-10 % of wall time. The native harnesses of the tests
gain 4-6 % (the machine's, measured) and are built in many variants on a fresh clone, where a
second compile and a training run each would cost CI more than the tests would save.
"""

import hashlib
from pathlib import Path

import chess

__all__ = ["board_workload"]

#: The positions: an opening, a middlegame full of captures and checks (Kiwipete), an endgame.
POSITIONS = (
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/5pk1/6p1/3R4/1r5P/6P1/5PK1/8 b - - 0 40",
)
#: The depth of each search: a few seconds of simulation in all.
DEPTH = 5
#: The perft's depth, from the starting position.
PERFT_DEPTH = 3

_NAME = "training " + hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


def board_workload(eval_params, legal_moves):
    """``(run, name)`` for ``build_harness``'s ``train``: ``run(executable)`` starts that
    simulated board and analyses each position as ``suprem analyze FEN --depth DEPTH`` does
    (the Oracle's root knowledge downloaded, then iterative deepening), then counts a perft."""
    def run(executable):
        from host.driver import Limits, SearchDriver
        from host.machine import RemoteMachine

        from .board_sim import SimulatedBoard
        with SimulatedBoard(eval_params, executable=executable, legal_moves=legal_moves) as board:
            machine = RemoteMachine(board.client(), eval_params)
            with machine.client:
                driver = SearchDriver(machine)
                for fen in POSITIONS:
                    driver.analyse(chess.Board(fen), Limits(depth=DEPTH), new_table=True)
                machine.set_position(chess.Board())
                machine.perft(PERFT_DEPTH)
    return run, _NAME
