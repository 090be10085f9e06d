"""The host's root loop: the root's moves searched one by one, each as a job of its own on the
board (START's root move), in an order the host chooses.

Deep Blue split its search the same way: software searched the top of the tree and handed
subtrees to the chips; Hitech's host ordered the root's moves by shallow searches. Here the
board's search of one root move is exactly its search of the whole root restricted to that
move (the same plies, extensions and root material: ``StartCommand``), so the loop only decides
order and windows:

* the first iteration searches every move with the iteration's full window: an exact score
  for each (a shallow search: depth 1 is one ply and quiescence), and the next iteration takes
  them best first;
* each later iteration takes the last iteration's best move first and the others by the size
  of their subtrees in the last iteration, largest first (a move that took many nodes to
  refute is the likeliest to be better);
* from the second move on, a null window at the best value so far (PVS, as the board's root
  does), searched again with the full window when it lands inside it;
* the killer moves carry from one root move's job to the next (``keep_killers``), as they do
  within one search of the whole root.

An iteration that a limit stops answers with the best move among those searched in full
before the stop, as the board's root does (``host/driver.py``).
"""

from dataclasses import dataclass

from hdl.search.frame import INFINITY

__all__ = ["RootLoop", "RootJob", "RootIteration"]


@dataclass
class RootJob:
    """What the board returned for one root move's job."""
    score: int
    nodes: int
    cycles: int
    stopped: bool


@dataclass
class RootIteration:
    """An iteration of the loop: the best value and move (``None`` if none was searched in
    full), the nodes and cycles of all its jobs, whether a limit stopped it."""
    score: int
    move: object
    nodes: int
    cycles: int
    stopped: bool


class RootLoop:
    """The root moves of one search and what the loop has learnt of them between iterations."""

    def __init__(self, moves):
        if not moves:
            raise ValueError("a root loop needs at least one move")
        self.moves = list(moves)
        self.exact = {}             # move -> its exact score (the first iteration's)
        self.subtree = {}           # move -> its nodes in the last iteration
        self.best = None            # the last iteration's best move
        self.iterations = 0

    def order(self):
        """The moves in the order the next iteration takes them."""
        if self.iterations == 0:
            return list(self.moves)
        if self.iterations == 1 and self.exact:
            ranked = sorted(self.moves, key=lambda m: -self.exact.get(m, -INFINITY))
        else:
            ranked = sorted(self.moves, key=lambda m: -self.subtree.get(m, 0))
        if self.best in ranked:
            ranked.remove(self.best)
            ranked.insert(0, self.best)
        return ranked

    def iterate(self, search, depth, alpha=-INFINITY, beta=INFINITY):
        """Search every root move ``depth`` plies deep in the window (``alpha``, ``beta``)
        (fail-soft: a value at or below alpha is an upper bound, at or above beta a lower one).
        ``search(move, depth, alpha, beta, keep_killers)`` runs one job, the root restricted to
        ``move``, and returns a :class:`RootJob`."""
        first_iteration = self.iterations == 0
        best, best_move, nodes, cycles = -INFINITY, None, 0, 0
        subtree = {}
        low = alpha
        for index, move in enumerate(self.order()):
            keep = index > 0
            if first_iteration or index == 0:
                windows = [(alpha if first_iteration else low, beta)]
            else:
                windows = [(low, low + 1), (low, beta)]
            spent = 0
            for window_index, (lo, hi) in enumerate(windows):
                job = search(move, depth, lo, hi, keep or window_index > 0)
                nodes, cycles, spent = nodes + job.nodes, cycles + job.cycles, spent + job.nodes
                if job.stopped:     # the moves searched in full before it: their best, unless a bound
                    return RootIteration(best, best_move if best > alpha else None, nodes, cycles, True)
                score = job.score
                if window_index == 0 and len(windows) == 2 and not (lo < score < beta):
                    break           # the null window held (or failed high past beta): no re-search
            subtree[move] = spent
            if first_iteration:
                self.exact[move] = score
            if score > best:
                best, best_move = score, move
            if score > low:
                low = score
            if score >= beta:
                break
        self.iterations += 1
        self.subtree = subtree
        if best_move is not None and best > alpha:
            self.best = best_move
        return RootIteration(best, best_move, nodes, cycles, False)

