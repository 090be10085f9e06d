"""CHUNKER's search: full-width alpha-beta over the domain that asks the schemas at every node.

The search proves one of four goals for the side to move within ``depth`` plies: it wins, it
loses, it does not lose, it does not win — alpha-beta over two values, an OR node (wins, does
not lose) stopping at its first proved move and an AND node (loses, does not win) at its first
refuted one; a node's moves lead to the dual goal for the other side. A safe promotion, a mate,
a stalemate and both sides without pawns end the game; a schema that classifies a node decides
it (``host/chunker/schemas.py``), and one that bounds it (levels 5 to 7: a side does not lose)
decides the goals the bound settles and leaves the others to the search; at the horizon a node
proves nothing, unless a pawn stands on its seventh rank or the side to move is in check, where
the search goes on (quiescence, at most ``QUIESCENCE_PLIES`` plies). An unsafe promotion and
the capture it meets are one step of two plies that leaves the same side to move. Iterative
deepening asks of the root at each depth: wins, loses, then does not win and does not lose (a
draw, within its share of the budget, ``DRAW_SHARE``); a table keyed by the position's index
and goal keeps every proof for good (with the move that proves an OR node) and every failure
with the depth it failed at, or for good where no line of it met the horizon (every line ended
in a decided node: no depth would change it); a root goal so failed is not asked again. A goal
and its complement (wins and does not win, loses and does not lose) share what the table knows:
a proof of one fails the other for good, and a failure for good of "wins" or "does not lose"
proves "does not win" or "loses" (an AND node's proof needs no move). A draw is proved only
where every line ends in a decided node (the game's ends, a schema's draw or bound); a blockade
no schema decides stays unknown.

``nodes`` counts every node by what decided it, like Table 4-1 of Campbell and Berliner:
``interior``, ``horizon``, ``table``, the game's ends (``promotion``, ``mate``, ``stalemate``,
``no pawns``) and each schema by its level.
"""

import collections
from dataclasses import dataclass, field

import chess

from .domain import PAPER, capture_of
from .schemas import Wins, classify, joint_tables_from, values

__all__ = ["Solution", "solve"]

#: How many plies past the horizon a quiescence line (checks, pawns on the seventh) may run.
QUIESCENCE_PLIES = 6
#: How many positions' verdicts (the game's ends and the schemas') the search keeps at most.
KNOWN = 2_000_000
#: A draw's proof (does not win, does not lose) may spend at most one node in this many of the
#: budget: it is tried at every depth, and a won position's proof needs the rest.
DRAW_SHARE = 4
#: How often (in nodes) a search asks its ``stop``: a few hundredths of a second of the host.
STOP_POLL = 64
#: The depth a failure is kept with when no depth would change it (a schema's verdict, a node
#: whose every line ends in a decided node).
EXACT = 10 ** 6


@dataclass
class Solution:
    """The result of :func:`solve`: ``value`` (1, 0, -1 for the side to move; ``None`` when the
    depth ran out first), the principal ``line`` (moves) and what decided its last node
    (``ending``), the ``depth`` reached and ``nodes`` (a Counter by what decided each node)."""

    value: int
    line: list
    ending: str
    depth: int
    nodes: collections.Counter = field(default_factory=collections.Counter)

    @property
    def total(self):
        return sum(self.nodes.values())


class OutOfNodes(Exception):
    pass


class Stopped(OutOfNodes):
    """The caller's ``stop`` said so: the whole search ends, not only a draw's share."""


def _verdict(possible, meets):
    """True where every value in ``possible`` meets a goal (the values ``meets``), False where none
    does, None where the node's moves must tell."""
    return True if possible <= meets else False if not possible & meets else None


class _Search:
    def __init__(self, domain, levels, max_nodes, avoid=frozenset(), stop=None):
        self.domain, self.levels, self.max_nodes, self.avoid, self.stop = domain, levels, max_nodes, avoid, stop
        self.proved = {}                # (index, goal) -> the proving move (OR goals) or None
        self.failed = {}                # (index, goal) -> the deepest depth it failed at (or EXACT)
        self.exact = True               # whether the last failure returned holds at every depth
        self.known = {}                 # index -> what the schemas say of it (``_settled``)
        self.nodes = collections.Counter()
        self.count = 0
        self.killers = {}               # depth -> the move that last decided a node there

    def _ordered(self, board, goal, root=False, killer=None):
        """The node's children for ``goal`` as ``(move, outcome, index of the position after or
        None)``, in the order to try them: first those known to decide the node (what the table
        knows for good of the child, ``_tabled``, or a schema's verdict on it: one that meets the
        goal at an OR node, one that fails it at an AND node), last those known not to; within
        each, a promotion, then a schema's win in the fewest moves (so that a proof's move makes
        progress where schemas decide: their bounds fall), then the ``killer`` (the move that last
        decided a node with as many plies left: a proof's move, or a refutation; a third fewer
        nodes on the deep test positions, BENCHMARKS.md 2026-12-07 (second)), then — at the
        ``root`` — a position not to ``avoid``, then a capture, the most advanced pawn's step, the
        king's moves."""
        meets, any_move, child_goal = self.GOALS[goal]
        ranked = []
        for move, outcome in self.domain.children(board):
            index = None
            moves = None
            if outcome == "win":
                holds = 1 in meets
            else:
                plies, after = outcome
                wanted = goal if plies == 2 else child_goal
                index = self.domain.index(after)
                _, possible, moves = self._settled(after, index)
                holds = self._tabled(index, wanted)
                if holds is None:
                    holds = _verdict(possible, self.GOALS[wanted][0])
            known = 1 if holds is None else 0 if holds == any_move else 2
            pawn = board.piece_type_at(move.from_square) == chess.PAWN
            rank = (known, outcome != "win", moves if moves is not None else 99, move != killer,
                    root and index in self.avoid,
                    move.promotion is None,
                    not board.is_capture(move),
                    -chess.square_rank(move.to_square if board.turn == chess.WHITE else
                                       chess.square_mirror(move.to_square)) if pawn else 1)
            ranked.append((rank, len(ranked), (move, outcome, index)))
        return [child for _, _, child in sorted(ranked)]

    def _settled(self, board, index, schemas=True):
        """``(kind, values, moves)``: what the node's value (for the side to move: 1, 0, -1) can
        be without its moves — one value where the game's end or a schema decides it (``kind``
        names which), two where a schema bounds it (``kind`` names it too); ``(None, {-1, 0, 1})``
        where nothing is known — and, where a schema sees a win, the winner's moves it needs at
        most (else None). ``schemas`` false asks only the game's ends. Kept per index (up to
        ``KNOWN`` of them), as the move order asks it of every child."""
        if schemas and index in self.known:
            return self.known[index]
        if not any(board.legal_moves):
            found = ("mate", {-1}, None) if board.is_check() else ("stalemate", {0}, None)
        elif not board.pieces(chess.PAWN, chess.WHITE) and not board.pieces(chess.PAWN, chess.BLACK):
            found = "no pawns", {0}, None
        elif not schemas:
            return None, {-1, 0, 1}, None
        else:
            level, result = classify(self.domain, board, self.levels)
            moves = result.moves if isinstance(result, Wins) else None
            found = (f"level {level}", values(result, board.turn), moves) if level is not None \
                else (None, {-1, 0, 1}, None)
        if schemas:
            if len(self.known) >= KNOWN:
                self.known.clear()
            self.known[index] = found
        return found

    def _pressing(self, board):
        return board.is_check() or any(chess.square_rank(sq) == (6 if colour == chess.WHITE else 1)
                                       for colour in chess.COLORS for sq in board.pieces(chess.PAWN, colour))

    #: Each goal: the values (for the side to move) that meet it, whether one move suffices (an
    #: OR node) or every move must (AND), and the goal its moves' children must meet (the side
    #: to move changes; after an unsafe promotion's two plies it is the same goal again).
    GOALS = {"win": ({1}, True, "loss"), "loss": ({-1}, False, "win"),
             "notloss": ({0, 1}, True, "notwin"), "notwin": ({-1, 0}, False, "notloss")}
    #: Each goal's complement. A goal's failure for good (``EXACT``: every line of it ended in a
    #: decided node) is a proof of its complement, and a proof is such a failure of it.
    COMPLEMENTS = {"win": "notwin", "notwin": "win", "loss": "notloss", "notloss": "loss"}

    def prove(self, goal, board, depth, quiescence=0, root=False, index=None):
        """Whether ``goal`` holds for the side to move within ``depth``: it wins ("win"), loses
        ("loss"), does not lose ("notloss") or does not win ("notwin") by force, every line ending
        in a decided node; at the ``root`` the schemas are not asked (a proof there needs a move).
        ``index``: the position's, where the caller has it."""
        index = self.domain.index(board) if index is None else index
        key = (index, goal)
        meets, any_move, child_goal = self.GOALS[goal]
        known = self._tabled(index, goal)
        if known and (not any_move or key in self.proved and not root):   # an OR proof needs its move
            self.nodes["table"] += 1
            self.proved.setdefault(key, None)
            return True
        if not root and (known is False or key in self.failed and self.failed[key] >= depth):
            self.nodes["table"] += 1
            self.exact = known is False
            if self.exact:
                self.failed[key] = EXACT
            return False
        self.count += 1
        if self.count > self.max_nodes:
            raise OutOfNodes
        if self.stop is not None and self.count % STOP_POLL == 0 and self.stop():
            raise Stopped
        kind, possible, _ = self._settled(board, index, schemas=not root)
        verdict = _verdict(possible, meets)
        if verdict is not None:
            self.nodes[kind] += 1
            if verdict:
                self.proved[key] = None
            else:
                self.failed[key], self.exact = EXACT, True
            return verdict
        if depth <= 0:
            if quiescence >= QUIESCENCE_PLIES or not self._pressing(board):
                self.nodes["horizon"] += 1
                self.exact = False
                return False
            quiescence += 1
        self.nodes["interior"] += 1
        exact = True                        # every move failed whatever the depth (an OR node)
        for move, outcome, after_index in self._ordered(board, goal, root, self.killers.get(depth)):
            if outcome == "win":
                self.nodes["promotion"] += 1
                holds = 1 in meets
            else:
                plies, after = outcome
                if plies == 2:          # the same side moves again
                    holds = self.prove(goal, after, depth - 2, quiescence, index=after_index)
                else:
                    holds = self.prove(child_goal, after, depth - 1, quiescence, index=after_index)
            if any_move and holds:
                self.proved[key] = move
                self.killers[depth] = move
                return True
            if not holds and outcome != "win":
                exact = exact and self.exact
            if not any_move and not holds:
                self.killers[depth] = move
                self._fail(key, depth, quiescence, exact)
                return False
        if not any_move:
            self.proved[key] = None
            return True
        self._fail(key, depth, quiescence, exact)
        return False

    def _tabled(self, index, goal):
        """What the table knows for good of ``goal`` at the position ``index``: True (proved),
        False (failed at every depth, or its complement proved) or None; a complement failed at
        every depth is True, though ``prove`` takes only an AND node's proof from it."""
        if (index, goal) in self.proved or not self.may_hold(self.COMPLEMENTS[goal], index):
            return True
        if not self.may_hold(goal, index) or (index, self.COMPLEMENTS[goal]) in self.proved:
            return False
        return None

    def may_hold(self, goal, index):
        """Whether ``goal`` may still hold at the position ``index``: it has not failed at every
        depth (``EXACT``)."""
        return self.failed.get((index, goal), -1) < EXACT

    def _fail(self, key, depth, quiescence, exact):
        """Keep a failure: for good where no line of it met the horizon (``exact``), else with the
        depth it failed at (none in quiescence); ``exact`` tells the caller which."""
        self.failed[key] = EXACT if exact else max(self.failed.get(key, -1), depth if not quiescence else -1)
        self.exact = exact

    def line(self, board, limit=120):
        """``(moves, ending)``: the proof's principal line (the winner's proving moves, the
        loser's first move) and what decided its last node (``"promotion"``, ``"mate"``, a schema's
        ``"level N"``)."""
        board, moves = board.copy(stack=False), []
        while len(moves) < limit:
            index = self.domain.index(board)
            if (index, "win") in self.proved:
                move = self.proved[(index, "win")]
            elif (index, "loss") in self.proved:
                children = self.domain.children(board)
                move = children[0][0] if children else None
            else:
                move = None
            if move is None:
                kind, possible, _ = self._settled(board, index)
                return moves, kind if len(possible) == 1 else None
            outcome = dict(self.domain.children(board))[move]
            moves.append(move)
            if outcome == "win":
                return moves, "promotion"
            board.push(move)
            if outcome[0] == 2:
                moves.append(capture_of(board, move.to_square))
            board = outcome[1].copy(stack=False)
        return moves, None


def solve(board, domain=PAPER, max_depth=80, levels=None, max_nodes=1_000_000, avoid=frozenset(), stop=None,
          progress=None):
    """Solve ``board`` (a position of ``domain``) by iterative deepening to ``max_depth`` plies or
    ``max_nodes`` nodes searched (the nodes the table or a promotion decides come on top, in
    ``Solution.nodes`` as in the paper's Table 4-1); returns a :class:`Solution` (``value``
    ``None`` when neither proof came in time). ``levels`` (the schema levels to use; all by
    default) lets the schemas' worth be measured: fewer levels, more nodes. ``avoid``: indices
    of positions the root's proving move should not lead to where another proves as well (a
    game's earlier positions: a proof that keeps a won position won need not make progress, and
    one that returns to where the game has been walks into a draw by repetition). ``stop``: a
    callable asked every ``STOP_POLL`` nodes, true to end the search as the node budget would
    (a time limit, a stop command). ``progress``: a callable told ``(depth, nodes)`` after each
    iteration that proved nothing (the nodes searched so far, as the budget counts them). Level
    10's tables are built to serve every position the search may reach from ``board``
    (``schemas.joint_tables_from``)."""
    search = _Search(domain, levels, max_nodes, avoid, stop)
    index, value, depth = domain.index(board), None, 0   # (a clear error outside the domain)
    kind, possible, _ = search._settled(board, index, schemas=False)
    if kind is not None:                                # the game is over (or no pawns are left)
        search.nodes[kind] += 1
        return Solution(possible.pop(), [], kind, 0, search.nodes)
    draw_budget = max_nodes // DRAW_SHARE
    try:
        with joint_tables_from(domain, board):     # level 10's tables cover the search's positions
            for depth in range(1, max_depth + 1):
                if search.may_hold("win", index) and search.prove("win", board, depth, root=True):
                    value = 1
                    break
                if search.may_hold("loss", index) and search.prove("loss", board, depth, root=True):
                    value = -1
                    break
                if draw_budget > 0:             # a draw's proof gets its share of the nodes at most
                    before, search.max_nodes = search.count, min(max_nodes, search.count + draw_budget)
                    try:
                        drawn = all(search.may_hold(goal, index) and search.prove(goal, board, depth, root=True)
                                    for goal in ("notwin", "notloss"))
                    except Stopped:
                        raise
                    except OutOfNodes:
                        drawn = False
                    draw_budget -= search.count - before
                    search.max_nodes = max_nodes
                    if drawn:
                        value = 0
                        break
                if progress is not None:
                    progress(depth, search.count)
    except OutOfNodes:
        pass
    line, ending = search.line(board) if value is not None else ([], None)
    return Solution(value, line, ending, depth, search.nodes)
