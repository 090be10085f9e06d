"""The search driver: iterative deepening with the hardware search, under limits of depth,
nodes or time, reporting each finished iteration.

Time is hardware time: the board's cycles divided by its clock (which the board reports; a
simulated board reports the clock of the board it stands for), so a movetime means on the
simulated board what it means on a real one. Wall time can bound a search too
(``Limits.wall_ms``): under a game clock, since the clock on the wall is the one that flags,
and on request on the simulated board, which runs slower than the hardware.

Each iteration searches from the root with the transposition table of the iterations before
it, so the previous best move is searched first. From depth ``ASPIRATION_DEPTH`` on it searches
an aspiration window around the last iteration's score first (+-``ASPIRATION_WINDOW``), widened
(four times as far each time, toward the side it failed on) until the score lands inside it.
The table is kept from one
search to the next (a game's earlier searches know much of the new root's tree), but each
search from a new root is a new generation: the table's entries of other generations answer
probes yet give way to this search's stores (BENCHMARKS.md, "The transposition table between
moves"). An iteration that a limit or a stop request ends is not wasted: the hardware's best
root move among those it searched in full before the stop (the previous best is searched
first, so any other beat it at the new depth) is the answer, an ``Iteration`` with ``complete``
false — unless no root move was searched in full, or an aspiration search failed low (then
the moves' values are upper bounds and the last finished iteration stands). Limits never stop
the first iteration (depth 1 gives the move); a stop request does.

With ``root_loop`` (or ``root_moves``, UCI's ``searchmoves``: those moves only) the host
searches the root itself, each root move a job of its own on the board, ordered by shallow
searches and by the last iteration's subtree sizes (``host/root.py``).

A root of CHUNKER's domain (kings and passed pawns on files of their own, ``host/chunker``), or
a root with a capture that enters the domain, is handed to CHUNKER first (``chunker``, on by
default): if its proof search (levels ``CHUNKER_LEVELS``) shows a win within ``CHUNKER_NODES``
nodes in all (a few seconds) — of the root, or a loss for the other side after such a capture —
the answer is that proof — one ``Iteration`` whose ``source`` says so, scored
``SAFE_PROMOTION_SCORE`` (a promotion the other side cannot stop, not a mate), no board search;
otherwise (a loss, a draw, no proof) the board searches as ever. The proof search builds no
library (``suprem chunker --prepare`` does, once): a schema whose library is not built tells it
nothing. It ends early at ``CHUNKER_TIME_SHARE`` of the search's wall-time limits (a move time
counts as one) and at a stop request.

Before that, a root of king and pawn against king is judged exactly (``kpk``, on by default;
``host/kpk.py``, a database of the ending): a won one is answered by the database's line to
the safe promotion in the fewest plies (an ``Iteration`` as CHUNKER's), and a drawn or lost one
is searched among the moves that hold the draw, or resist the loss longest, only. So is a root
with a capture that leaves king and pawn against king won (the fastest such capture).

An antichess game (a ``chess.variant.AntichessBoard``) is searched in the generator's antichess
mode with the settings of ``host/antichess.py`` (its capture order and features; the Oracle's
antichess table); CHUNKER, a chess ending's solver, is not asked.

``update_limits`` changes the limits of the search in progress from another thread (UCI's
``ponderhit``): its time and node budgets count from that moment.
"""

import sys
import threading
import time
from dataclasses import dataclass, field

import chess

from hdl.search.features import SearchFeatures
from hdl.search.frame import INFINITY, MATE, MATE_BOUND

from .antichess import is_antichess, victim_order
from .kpk import is_kpk, judge, line, winning_capture
from .oracle import KNOWLEDGE, Oracle
from .root import RootIteration, RootJob, RootLoop

__all__ = ["Limits", "Iteration", "SearchDriver", "score_text", "stability", "chunker_unbuilt"]

MAX_DEPTH = 63
#: CHUNKER's node budget at a root of its domain (a few seconds of the host: its proof search
#: runs some 2,000 nodes a second in Python).
CHUNKER_NODES = 5_000
#: The schema levels the hand-off asks: not level 7, which at this budget proved no more wins
#: (13 of 24 seeded decisive positions either way) for a quarter more of the host's time, and
#: whose libraries (137.7 M indices each) would be built in the middle of a game; level 8, which
#: proved 67 of 100 seeded wins against 61 without it, in less time (BENCHMARKS.md, 2026-12-02);
#: level 9, 78 against 67, in fewer nodes (2026-12-07; its chunk games are made in the process), and 93
#: with its tempi counted and the search's killer (2026-12-07, second).
CHUNKER_LEVELS = (1, 2, 3, 4, 5, 6, 8, 9)
#: The share of the search's time (its target under a game clock, else its hard limit) that
#: CHUNKER's proof search may spend before the board searches.
CHUNKER_TIME_SHARE = 0.5
#: The score of a win CHUNKER or the king-and-pawn database proved: a safe promotion, a
#: queen's worth.
SAFE_PROMOTION_SCORE = 900

#: The longest pause between two STATUS polls of a running job (the first after a millisecond,
#: each next one half as long again): a job's end is seen within it.
POLL_SECONDS = 0.005

#: Aspiration windows: from this depth, +- this many centipawns around the last score first.
ASPIRATION_DEPTH = 4
ASPIRATION_WINDOW = 35


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
    (any that are set; none: search until ``MAX_DEPTH`` or stopped). ``target_ms`` (under a
    game clock) is the time the search aims at, on the clock the time limits are set on (wall
    time if ``wall_ms`` is set): no iteration starts that would end past it, scaled by how
    settled the search is (:func:`stability`); the time limits stay hard."""
    depth: int = None
    nodes: int = None
    movetime_ms: float = None
    wall_ms: float = None
    target_ms: float = None

    def __post_init__(self):
        for name in ("depth", "nodes", "movetime_ms", "wall_ms", "target_ms"):
            value = getattr(self, name)
            if value is not None and value <= 0:    # depth 0 would read as no limit at all
                raise ValueError(f"a search's {name} must be positive, not {value}")


def chunker_unbuilt():
    """A line saying which of the libraries of CHUNKER's hand-off are not built, and how to build
    them (the hand-off builds no database in a game, and solves level 9's tempo libraries only as
    it meets them); None when all are."""
    from .chunker.domain import PAPER
    from .chunker.schemas import libraries, tempo_libraries, unbuilt, unmade_tempo_libraries
    missing, levels = unbuilt(PAPER, CHUNKER_LEVELS), ",".join(map(str, CHUNKER_LEVELS))
    tempo = unmade_tempo_libraries(PAPER, CHUNKER_LEVELS)
    said = []
    if missing:
        said.append(f"{len(missing)} of the {len(libraries(PAPER, CHUNKER_LEVELS))} libraries of CHUNKER's levels "
                    f"{levels} are not built; its proofs in games go without them")
    if tempo:
        said.append(f"{len(tempo)} of level 9's {len(tempo_libraries(PAPER))} tempo libraries are not made; its "
                    "proofs in games solve them as they meet them, about 0.4 s each")
    if not said:
        return None
    return "; ".join(said) + f" (build them once: suprem chunker --prepare --levels {levels})"


def stability(finished):
    """How much of its target time a search should spend, from its finished iterations: more
    when the best move changed in the last iteration (x1.6) or the score fell by more than
    30 (x1.4), less when the best move has stood four iterations without its score falling
    (x0.6)."""
    if len(finished) < 2:
        return 1.0
    last, before = finished[-1], finished[-2]
    factor = 1.0
    if last.pv[:1] != before.pv[:1]:
        factor *= 1.6
    if last.score < before.score - 30:
        factor *= 1.4
    if (len(finished) >= 4 and all(it.pv[:1] == last.pv[:1] for it in finished[-4:])
            and last.score >= before.score - 10):
        factor *= 0.6
    return factor


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
    complete: bool = True   # false: a stopped iteration (its best move among those searched)
    researches: int = 0     # the aspiration window's failures
    source: str = None      # None: the board's search; else who answered instead and how (CHUNKER)

    def nps(self):
        return int(self.total_nodes * 1000 / self.hardware_ms) if self.hardware_ms else 0


@dataclass
class _Budget:
    """Limits and where their counting starts (total cycles and nodes, wall time)."""
    limits: Limits
    cycles: int = 0
    nodes: int = 0
    wall: float = 0.0


class SearchDriver:
    """Iterative deepening on ``machine`` (a :class:`~host.machine.RemoteMachine`)."""

    #: The host's root loop (host/root.py) by default; off: the board's own root.
    root_loop = False
    #: Hand a root of CHUNKER's domain to its proof when it proves a win.
    chunker = True
    #: Judge a root of king and pawn against king by its database (``host/kpk.py``).
    kpk = True

    def __init__(self, machine, knowledge=KNOWLEDGE[0]):
        machine.require_search()
        self.machine = machine
        self.clock_hz = machine.client.status().clock_hz
        self.oracle = Oracle(machine.eval_params, knowledge)    # its knowledge: host/oracle.py
        self._lock = threading.Lock()
        self._budget = _Budget(Limits())
        self._spent = (0, 0)            # (cycles, nodes) of the search so far, for update_limits
        self.generation = -1            # the searches from new roots so far, less one
        self.features = SearchFeatures()    # the searches' control word
        self.aspiration = True              # aspiration windows (off: every iteration full width)
        self._last_line = None              # (the last root's moves, its search's principal variation)
        self._told_unbuilt = False          # said that CHUNKER's hand-off lacks libraries
        self.allocation = None              # the Oracle's choice for the last root
        #: (nodes, cycles) the last ``analyse`` spent on the board, its unfinished iteration
        #: included (the iterations' totals leave out an iteration stopped without a move).
        self.searched = (0, 0)

    def prepare(self, game):
        """The Oracle's tables for ``game``'s position downloaded, the position set."""
        self.allocation = self.oracle.allocate(game, self.expected_line(game))
        self.machine.set_position(game)
        self.machine.download(self.allocation.store)
        return self.allocation.label

    def expected_line(self, game):
        """The moves the last search expects from ``game``'s position: the rest of its principal
        variation when the game went on along it (empty otherwise)."""
        if self._last_line is None:
            return []
        root, pv = self._last_line
        played = game.move_stack[len(root):]
        if game.move_stack[:len(root)] != root or played != pv[:len(played)]:
            return []
        return pv[len(played):]

    def update_limits(self, limits):
        """New limits for the search in progress, counted from now."""
        with self._lock:
            cycles, nodes = self._spent
            self._budget = _Budget(limits, cycles, nodes, time.monotonic())

    def analyse(self, game, limits, on_iteration=None, stop_event=None, new_table=False, root_moves=None):
        """Iterate from depth 1; returns the iterations finished, the last of them perhaps a
        stopped one's answer (``complete`` false): the last is the answer. ``on_iteration`` is
        told each. Setting ``stop_event`` (a ``threading.Event``) stops the search in progress."""
        stop_event = stop_event or threading.Event()
        self.generation += 1
        self.searched = (0, 0)
        legal = list(game.legal_moves)
        if root_moves is not None:
            root_moves = [m for m in root_moves if m in legal]
        wall_start = time.monotonic()
        with self._lock:
            self._budget, self._spent = _Budget(limits, 0, 0, wall_start), (0, 0)
        chess_root = root_moves is None and legal and not is_antichess(game)
        proved = None
        if self.kpk and chess_root:
            proved, root_moves = self._kpk(game, wall_start)
        if self.chunker and chess_root and not proved and root_moves is None:
            proved = self._chunker(game, wall_start, stop_event)
        if proved:
            if on_iteration:
                on_iteration(proved)
            return [proved]
        self.prepare(game)
        if new_table:
            self.machine.clear_hash()
        self._prepared_ms = (time.monotonic() - wall_start) * 1000     # tables and position sent
        finished, total_nodes, total_cycles = [], 0, 0
        if not legal or root_moves == []:
            return finished
        loop = None
        if root_moves is not None or self.root_loop:
            loop = RootLoop(root_moves if root_moves is not None else legal)
        depth = 0
        while depth < min(self._budget.limits.depth or MAX_DEPTH, MAX_DEPTH):
            depth += 1
            previous = finished[-1].score if finished and finished[-1].complete else None
            score, move, nodes, cycles, stopped, pv, researches = self._iterate(
                game, depth, total_nodes, total_cycles, stop_event, first=not finished, previous=previous, loop=loop)
            total_nodes += nodes
            total_cycles += cycles
            self.searched = (total_nodes, total_cycles)
            elapsed = (time.monotonic() - wall_start) * 1000
            if stopped:
                if move in legal:
                    finished.append(Iteration(depth, score, nodes, total_nodes, cycles, total_cycles,
                                              total_cycles * 1000 / self.clock_hz, elapsed, pv or [move],
                                              complete=False, researches=researches))
                    if on_iteration:
                        on_iteration(finished[-1])
                break
            iteration = Iteration(depth, score, nodes, total_nodes, cycles, total_cycles,
                                  total_cycles * 1000 / self.clock_hz, elapsed, pv, researches=researches)
            finished.append(iteration)
            if on_iteration:
                on_iteration(iteration)
            if abs(score) > MATE_BOUND and MATE - abs(score) <= depth:
                break                       # a mate found within the full-width depth
            if stop_event.is_set() or not self._room_for_another(iteration, finished):
                break
            if len(legal) == 1 and self._budget.limits.target_ms is not None:
                break                       # under a clock, the only move is played at once
        if finished:
            self._last_line = (list(game.move_stack), list(finished[-1].pv))
        return finished

    def _kpk(self, game, wall_start):
        """``(iteration, root moves)`` by the king-and-pawn database (``host/kpk.py``): at a root
        of king and pawn against king, a win as the database's line, else no iteration and the
        moves that hold the draw or resist the loss longest (the board's search chooses among
        them); at a root with a capture into a won one, that capture and the line after it;
        else neither."""
        def answer(first, after, plies, how):
            moves = first + line(after)
            source = f"the king-and-pawn database: a win in {plies} plies{how}, its line to the safe promotion"
            return Iteration(len(moves), SAFE_PROMOTION_SCORE, 0, 0, 0, 0, 0.0,
                             (time.monotonic() - wall_start) * 1000, moves, source=source)

        if is_kpk(game):
            judgement = judge(game)
            if judgement.value <= 0:
                return None, list(judgement.moves)
            return answer([], game, judgement.plies, ""), None
        found = winning_capture(game)
        if found is None:
            return None, None
        capture, plies = found
        after = game.copy(stack=False)
        after.push(capture)
        return answer([capture], after, plies, f" after {game.san(capture)}"), None

    def _chunker(self, game, wall_start, stop_event):
        """CHUNKER's proved win as an ``Iteration``, else None: a root of its domain solved, or a
        root outside it that enters the domain by a capture — each such capture's position solved
        from the other side's view, a proved loss there a win here (``CHUNKER_NODES`` in all, and
        ``CHUNKER_TIME_SHARE`` of the time limits), with the libraries already built."""
        from .chunker import OutsideDomain, place, unmirror, visited
        from .chunker.database import built_only
        from .chunker.search import solve

        limits = self._budget.limits
        allowed = [ms for ms in (limits.wall_ms, limits.movetime_ms,
                                 limits.target_ms if limits.wall_ms is not None else None) if ms is not None]
        deadline = wall_start + CHUNKER_TIME_SHARE * min(allowed) / 1000 if allowed else None

        def stop():
            return stop_event.is_set() or (deadline is not None and time.monotonic() >= deadline)

        def placed(board):
            try:
                return place(board)
            except OutsideDomain:
                return None

        def proof(first, solution, mirrored, entered):
            line = first + [unmirror(move) if mirrored else move for move in solution.line]
            source = (f"CHUNKER proved the win {entered}in {solution.total} nodes at depth {solution.depth} (its "
                      f"line's last node decided by: {solution.ending})")
            return Iteration(len(line), SAFE_PROMOTION_SCORE, 0, 0, 0, 0, 0.0, (time.monotonic() - wall_start) * 1000,
                             line, source=source)

        def solved(board, nodes, avoid=frozenset()):
            if not self._told_unbuilt:
                self._told_unbuilt = True
                if (note := chunker_unbuilt()) is not None:
                    print(f"suprem: {note}", file=sys.stderr, flush=True)
            with built_only():
                return solve(board, max_nodes=nodes, levels=CHUNKER_LEVELS, avoid=avoid, stop=stop)

        root = placed(game)
        if root is not None:
            solution = solved(root[0], CHUNKER_NODES, visited(game, root[1]))
            return proof([], solution, root[1], "") if solution.value == 1 and solution.line else None
        if chess.popcount(game.occupied & ~(game.kings | game.pawns)) > 1:
            return None                     # no capture leaves kings and pawns alone
        budget = CHUNKER_NODES
        for move in game.legal_moves:
            if budget <= 0 or stop():
                break
            if not game.is_capture(move):
                continue
            after = game.copy(stack=False)
            after.push(move)
            entered = placed(after)
            if entered is None:
                continue
            solution = solved(entered[0], budget)
            budget -= solution.total
            if solution.value == -1:
                return proof([move], solution, entered[1], f"after {game.san(move)}, which enters its domain, ")
        return None

    def _iterate(self, game, depth, total_nodes, total_cycles, stop_event, first, previous, loop):
        """One iteration over the root's moves: the board's own root (``loop`` None) or the
        host's root loop (:class:`~host.root.RootLoop`), in an aspiration window around
        ``previous`` (the last iteration's score) widened until the score is inside it. A
        stopped search's move is kept only if its value is not an upper bound."""
        alpha, beta = -INFINITY, INFINITY
        if self.aspiration and previous is not None and depth >= ASPIRATION_DEPTH and abs(previous) < MATE_BOUND:
            alpha, beta = previous - ASPIRATION_WINDOW, previous + ASPIRATION_WINDOW
        delta, nodes, cycles, researches = ASPIRATION_WINDOW, 0, 0, 0
        spent = [total_nodes, total_cycles]     # every job's so far, for the limits

        def job(move, depth, alpha, beta, keep_killers):
            node_limit = self._node_limit(spent[0], first)
            if node_limit is None:                  # the budget is spent: the job is not started
                return RootJob(-INFINITY, 0, 0, True), None
            self.machine.start_search(depth, alpha, beta, node_limit=node_limit,
                                      generation=self.generation, features=self.features,
                                      root_move=move, keep_killers=keep_killers, victim_order=victim_order(game))
            status = self._run(spent[0], spent[1], stop_event, first)
            result = self.machine.result(status)
            spent[0], spent[1] = spent[0] + result.nodes, spent[1] + result.cycles
            return RootJob(result.score, result.nodes, result.cycles, result.stopped), result.move

        while True:
            if loop is None:
                board, move = job(None, depth, alpha, beta, False)
                result = RootIteration(board.score, move if not board.stopped or board.score > alpha else None,
                                       board.nodes, board.cycles, board.stopped)
            else:
                result = loop.iterate(lambda *args: job(*args)[0], depth, alpha, beta)
            nodes, cycles = nodes + result.nodes, cycles + result.cycles
            if result.stopped:
                return result.score, result.move, nodes, cycles, True, [], researches
            if alpha < result.score < beta or (alpha == -INFINITY and beta == INFINITY):
                break
            researches += 1
            delta *= 4
            if result.score <= alpha:
                alpha = max(-INFINITY, result.score - delta) if delta < 1000 else -INFINITY
            else:
                beta = min(INFINITY, result.score + delta) if delta < 1000 else INFINITY
        pv = self.machine.principal_variation(game, first=result.move if loop is not None else None)
        if result.move is not None and pv[:1] != [result.move]:
            pv = [result.move]
        return result.score, result.move, nodes, cycles, False, pv, researches

    def _node_limit(self, total_nodes, first):
        """A job's node limit after ``total_nodes``: 0 (none) without a node limit or in the
        ``first`` iteration (it gives the move), else what the budget has left — None when
        nothing is (an aspiration re-search or a root move after a job that spent the rest)."""
        budget = self._budget
        if budget.limits.nodes is None or first:
            return 0
        left = budget.limits.nodes - (total_nodes - budget.nodes)
        return left if left > 0 else None

    def _run(self, total_nodes, total_cycles, stop_event, first):
        """Poll the board until the job ends, stopping it on a stop request or (not in the
        ``first`` iteration: it gives the move) on a limit."""
        client = self.machine.client
        poll = 0.001
        while True:
            status = client.status()
            with self._lock:
                self._spent = (total_cycles + status.cycles, total_nodes + status.count)
                budget = self._budget
            if not status.busy:
                self.machine.check_position(status)
                return status
            limits, cycles = budget.limits, total_cycles + status.cycles - budget.cycles
            over = stop_event.is_set() or (not first and (
                (limits.movetime_ms is not None and cycles * 1000 / self.clock_hz >= limits.movetime_ms)
                or (limits.nodes is not None and total_nodes + status.count - budget.nodes >= limits.nodes)
                or (limits.wall_ms is not None and (time.monotonic() - budget.wall) * 1000 >= limits.wall_ms)))
            if over:
                client.stop()
                status = client.wait()
                self.machine.check_position(status)
                return status
            time.sleep(poll)
            poll = min(poll * 1.5, POLL_SECONDS)

    def _room_for_another(self, iteration, finished):
        """False when the next iteration (about 4 times this one) cannot finish in time."""
        budget = self._budget
        limits = budget.limits
        if limits.nodes is not None and iteration.total_nodes - budget.nodes >= limits.nodes:
            return False
        growth = 4
        if limits.movetime_ms is not None:
            spent_ms = (iteration.total_cycles - budget.cycles) * 1000 / self.clock_hz
            if spent_ms + growth * iteration.cycles * 1000 / self.clock_hz > limits.movetime_ms:
                return False
        wall_spent = (time.monotonic() - budget.wall) * 1000
        wall_next = growth * (iteration.wall_ms - (finished[-2].wall_ms if len(finished) > 1 else self._prepared_ms))
        if limits.wall_ms is not None and wall_spent + wall_next > limits.wall_ms:
            return False
        if limits.target_ms is not None:
            if limits.wall_ms is not None:
                spent_ms, next_ms = wall_spent, wall_next
            else:
                spent_ms = (iteration.total_cycles - budget.cycles) * 1000 / self.clock_hz
                next_ms = growth * iteration.cycles * 1000 / self.clock_hz
            if spent_ms + next_ms > limits.target_ms * stability(finished):
                return False
        return True
