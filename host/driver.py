"""The search driver: iterative deepening with the hardware search, under limits of depth,
nodes or time, reporting each finished iteration.

Time is hardware time: the board's cycles divided by its clock (which the board reports; a
simulated board reports the clock of the board it stands for), so a movetime means on the
simulated board what it means on a real one. Games against a clock also watch
wall time (``Limits.wall_ms``): the simulation runs slower than the hardware, and the clock
on the wall is the one that flags.

Each iteration searches the whole window from the root with the transposition table of the
iterations before it, so the previous best move is searched first. An iteration that a limit
stops is discarded: the result is the last finished iteration's (at least depth 1 is always
finished, whatever the limits).
"""

import threading
import time
from dataclasses import dataclass, field

from hdl.search.frame import MATE, MATE_BOUND

from .oracle import Oracle

__all__ = ["Limits", "Iteration", "SearchDriver", "score_text"]

MAX_DEPTH = 63


def score_text(score):
    """UCI's ``cp N`` or ``mate N`` (moves, negative when the side to move is mated)."""
    if abs(score) > MATE_BOUND:
        plies = MATE - abs(score)
        moves = (plies + 1) // 2
        return f"mate {moves if score > 0 else -moves}"
    return f"cp {score}"


@dataclass
class Limits:
    """What ends a search: a depth, a node count, hardware milliseconds, wall milliseconds
    (any that are set; none: search until ``MAX_DEPTH`` or stopped)."""
    depth: int = None
    nodes: int = None
    movetime_ms: float = None
    wall_ms: float = None


@dataclass
class Iteration:
    depth: int
    score: int
    nodes: int          # this iteration's
    total_nodes: int    # every iteration's so far
    cycles: int
    total_cycles: int
    hardware_ms: float
    wall_ms: float
    pv: list = field(default_factory=list)

    def nps(self):
        return int(self.total_nodes * 1000 / self.hardware_ms) if self.hardware_ms else 0


class SearchDriver:
    """Iterative deepening on ``board`` (a :class:`~host.board.HardwareBoard`)."""

    def __init__(self, board):
        board.require_search()
        self.board = board
        self.clock_hz = board.client.status().clock_hz
        self.oracle = Oracle(board.eval_params)

    def prepare(self, game):
        """The Oracle's tables for ``game``'s position downloaded, the position set."""
        phase, store = self.oracle.tables_for(game)
        self.board.set_position(game)
        self.board.download(store)
        return phase

    def analyse(self, game, limits, on_iteration=None, stop_event=None, new_table=False):
        """Iterate from depth 1; returns the iterations finished (the last is the answer).
        Setting ``stop_event`` (a ``threading.Event``) stops the search in progress."""
        stop_event = stop_event or threading.Event()
        self.prepare(game)
        if new_table:
            self.board.clear_hash()
        wall_start = time.monotonic()
        finished, total_nodes, total_cycles = [], 0, 0
        last_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        if not any(True for _ in game.legal_moves):
            return finished
        for depth in range(1, last_depth + 1):
            node_limit = 0
            if limits.nodes is not None and finished:
                node_limit = max(1, limits.nodes - total_nodes)
            cycle_budget = None
            if limits.movetime_ms is not None and finished:
                cycle_budget = limits.movetime_ms * self.clock_hz / 1000 - total_cycles
            self.board.start_search(depth, node_limit=node_limit)
            status = self._run(cycle_budget, wall_start, limits.wall_ms if finished else None, stop_event,
                               first=not finished)
            result = self.board.result(status)
            total_nodes += result.nodes
            total_cycles += result.cycles
            if result.stopped:
                break
            iteration = Iteration(depth, result.score, result.nodes, total_nodes, result.cycles, total_cycles,
                                  total_cycles * 1000 / self.clock_hz, (time.monotonic() - wall_start) * 1000,
                                  self.board.principal_variation(game) or ([result.move] if result.move else []))
            if iteration.pv and iteration.pv[0] != result.move and result.move is not None:
                iteration.pv = [result.move]
            finished.append(iteration)
            if on_iteration:
                on_iteration(iteration)
            if abs(result.score) > MATE_BOUND and MATE - abs(result.score) <= depth:
                break                       # a mate found within the full-width depth
            if stop_event.is_set() or not self._room_for_another(limits, iteration, finished):
                break
        return finished

    def _run(self, cycle_budget, wall_start, wall_ms, stop_event, first):
        """Poll the board until the job ends, stopping it on a limit or a stop request (not
        the ``first`` iteration: it gives the move)."""
        client = self.board.client
        poll = 0.002
        while True:
            status = client.status()
            if not status.busy:
                self.board.check_position(status)
                return status
            over = ((stop_event.is_set() and not first)
                    or (cycle_budget is not None and status.cycles >= cycle_budget)
                    or (wall_ms is not None and (time.monotonic() - wall_start) * 1000 >= wall_ms))
            if over:
                client.stop()
                status = client.wait()
                self.board.check_position(status)
                return status
            time.sleep(poll)
            poll = min(poll * 1.5, 0.02)

    def _room_for_another(self, limits, iteration, finished):
        """False when the next iteration (about 4 times this one) cannot finish in time."""
        if limits.nodes is not None and iteration.total_nodes >= limits.nodes:
            return False
        growth = 4
        if limits.movetime_ms is not None:
            if iteration.hardware_ms + growth * iteration.cycles * 1000 / self.clock_hz > limits.movetime_ms:
                return False
        if limits.wall_ms is not None:
            previous = finished[-2].wall_ms if len(finished) > 1 else 0
            if iteration.wall_ms + growth * (iteration.wall_ms - previous) > limits.wall_ms:
                return False
        return True
