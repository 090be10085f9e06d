"""The machine as the host sees it: a board behind a link (a real one on a serial port, or the
simulated board), with positions, tables, searches and perft as methods.

    with LinkClient(port) as client:            # sim.board_sim.open_machine starts a simulated board
        machine = RemoteMachine(client)
        machine.set_position(chess.Board())
        machine.download(store)
        result = machine.search(4)
"""

from dataclasses import dataclass

import chess

from hdl.encoding import MoveWord, pack
from hdl.eval.tables import TableKind
from hdl.link.protocol import PROTOCOL_VERSION
from hdl.movegen.layouts import VictimOrder
from hdl.search.controller import Job
from hdl.search.features import SearchFeatures
from hdl.search.frame import INFINITY
from hdl.search.hashtable import GENERATION_BITS
from models.movegen import config_for
from models.ordering import move_of_word, move_word
from models.position import MachinePosition, inverse, move_halfmoves, setup_halfmoves, validate_board
from models.repetition import game_history
from models.search import follow_best_moves, root_move_word
from models.zobrist import position_key

from .link import LinkError

__all__ = ["RemoteMachine", "JobResult", "MachineWasReset", "NotThisBuild"]


class MachineWasReset(LinkError):
    """The board no longer holds the position the host set (it was reset or power-cycled)."""


class NotThisBuild(LinkError):
    """The board cannot do what was asked: it speaks another protocol version, has another
    evaluator than expected, or is the evaluation station and runs no searches."""


@dataclass(frozen=True)
class JobResult:
    """A finished (or stopped) job: the search's value from the side to move's view and best
    move (perft: the leaves in ``nodes``), its nodes and cycles, whether it was stopped."""
    score: int
    move: chess.Move
    nodes: int
    cycles: int
    stopped: bool


class RemoteMachine:
    """The machine behind ``client`` (a :class:`~host.link.LinkClient`). Its evaluator's shape
    and whether it searches come from its STATUS; ``eval_params``, if given, is what the caller
    expects (another is :class:`NotThisBuild`)."""

    def __init__(self, client, eval_params=None):
        status = client.status()
        if status.version != PROTOCOL_VERSION:
            raise NotThisBuild(f"the board speaks protocol version {status.version}, this host {PROTOCOL_VERSION}: "
                               f"build and program the board from this version")
        if eval_params is not None and eval_params != status.evaluator:
            raise NotThisBuild(f"the board's evaluator is {status.evaluator}, not the {eval_params} expected")
        self.client, self.eval_params, self.searches = client, status.evaluator, status.searches
        self.hash_bits = status.hash_bits       # the transposition table has 2**hash_bits entries
        self.position = None            # the position set last (a python-chess board)
        self.store = None               # the table store downloaded last
        self._tables = {}               # (unit, kind) -> checksum known to be on the board

    # --- positions -------------------------------------------------------------------------------
    def set_position(self, position):
        """The position (rejected with ``PositionError`` when impossible) and the game's
        positions a repetition can reach (from ``position.move_stack``)."""
        validate_board(position)
        self.client.set_position(setup_halfmoves(position), black_to_move=not position.turn)
        if self.searches:
            self.client.set_history(game_history(position))
        self.position = position.copy()
        self._key = position_key(MachinePosition.from_board(position), 0 if position.turn else 1)

    def key(self):
        """The Zobrist key of the position on the board, the side to move included."""
        return self.client.status().key

    def _apply(self, halfmoves, side_after_black):
        self.client.set_position(halfmoves, black_to_move=side_after_black, clear=False)

    # --- tables ----------------------------------------------------------------------------------
    def download(self, store, microcode=None):
        """Make the board's tables those of ``store`` (a ``TableStore``): a table whose checksum
        on the board already matches is not sent. The position is taken off while tables change
        (the evaluator's sums depend on them) and put back. Returns the tables sent."""
        if store.params != self.eval_params:
            raise ValueError("the tables are for another evaluator configuration than the board's")
        changed = []
        for (unit, kind), entries in store.tables.items():
            expected = store.checksum(unit, kind)
            if self._tables.get((unit, kind)) == expected:
                continue
            if self.client.checksum(unit, kind) == expected:
                self._tables[(unit, kind)] = expected
                continue
            changed.append((unit, kind, entries, expected))
        if changed:
            if self.position is not None:
                self.client.set_position([], black_to_move=False)
            for unit, kind, entries, expected in changed:
                self.client.write_table(unit, kind, 0, entries)
                self._tables.pop((unit, kind), None)
                if self.client.checksum(unit, kind) != expected:
                    raise RuntimeError(f"unit {unit} {TableKind(kind).name}: the checksum read back differs")
                self._tables[(unit, kind)] = expected
            if self.position is not None:
                self.set_position(self.position)
        self.store = store
        return [(unit, kind) for unit, kind, _, _ in changed]

    write_store = download

    # --- jobs ------------------------------------------------------------------------------------
    def require_search(self):
        """Raise :class:`NotThisBuild` unless the board searches."""
        if not self.searches:
            raise NotThisBuild("this board is the evaluation station: it evaluates positions (EVALUATE) but has "
                               "no move generator and runs no search or perft")

    def start_search(self, depth, alpha=-INFINITY, beta=INFINITY, node_limit=0, generation=0, features=None,
                     root_move=None, keep_killers=False, victim_order=VictimOrder.MOST_VALUABLE):
        """Start a search; ``generation`` counts the host's searches from new roots (the
        transposition table's entries of another generation give way to this search's);
        ``features`` (a ``SearchFeatures``, all by default) the search's control word;
        ``root_move`` (a legal move of the position set, depth at least 1) restricts the root to
        that move (nothing stored for the root); ``keep_killers`` keeps the killer moves of the
        search before (a root loop's searches of sibling moves). The position's board says the
        rules (an ``AntichessBoard``: antichess); ``victim_order`` is the generator's capture
        order."""
        self.require_search()
        if not 0 <= depth < 64:
            raise ValueError(f"search depth must be 0..63, not {depth}")
        if not -INFINITY <= alpha < beta <= INFINITY:
            raise ValueError(f"the window ({alpha}, {beta}) must satisfy -{INFINITY} <= alpha < beta <= {INFINITY}")
        word = root_move_word(self.position, root_move, depth)
        features = SearchFeatures() if features is None else features
        self.client.start(Job.SEARCH, depth, alpha, beta, node_limit, generation % (1 << GENERATION_BITS),
                          features, root_move=word, keep_killers=keep_killers,
                          config=config_for(self.position, victim_order))

    def start_perft(self, depth):
        """Start hardware perft from the position set, in its variant (the board's class)."""
        self.require_search()
        if not 0 <= depth < 64:
            raise ValueError(f"perft depth must be 0..63, not {depth}")
        self.client.start(Job.PERFT, depth, config=config_for(self.position))

    def result(self, status):
        return JobResult(status.score, move_of_word(status.best_move), status.count, status.cycles, status.stopped)

    def finish(self, deadline=None, on_progress=None):
        """Wait for the job (stopping it at ``deadline``, a ``time.monotonic()``); its result."""
        status = self.client.wait(deadline=deadline, on_progress=on_progress)
        if status.busy:
            self.client.stop()
            status = self.client.wait()
        self.check_position(status)
        return self.result(status)

    def check_position(self, status=None):
        """Raise :class:`MachineWasReset` unless the board holds the position set last."""
        status = status or self.client.status()
        if self.position is not None and status.key != self._key:
            self.position = None
            self._tables.clear()            # a power cycle loses them too: checksums will tell
            raise MachineWasReset("the board lost its position (reset?): set it again")

    def search(self, depth, alpha=-INFINITY, beta=INFINITY, node_limit=0, deadline=None, on_progress=None,
               generation=0, features=None, root_move=None, keep_killers=False,
               victim_order=VictimOrder.MOST_VALUABLE):
        self.start_search(depth, alpha, beta, node_limit, generation, features, root_move, keep_killers,
                          victim_order)
        return self.finish(deadline, on_progress)

    def perft(self, depth):
        """Hardware perft from the position set: ``(leaves, cycles)``."""
        self.start_perft(depth)
        result = self.finish()
        return result.nodes, result.cycles

    def evaluate(self):
        """The evaluator's static value of the position on the board (White's view)."""
        return self.client.evaluate()

    def clear_hash(self):
        self.require_search()
        self.client.clear_hash()

    def principal_variation(self, position=None, limit=64, first=None):
        """The last search's principal variation from the position set (``position``), from the
        transposition table's best moves; the board is left on that position. ``first``: the
        root's move (a root loop's searches store no entry for the root)."""
        root = position or self.position
        made = []

        def best_word(game):
            if first is not None and not made:
                return move_word(game, first)
            hit, entry = self.client.probe()
            return pack(MoveWord, **entry["move"]) if hit else 0

        def play(game, move):
            halfmoves = move_halfmoves(game, move)
            self._apply(halfmoves, side_after_black=game.turn == chess.WHITE)
            made.append((halfmoves, game.turn == chess.WHITE))

        line = follow_best_moves(root, best_word, play, limit)
        for halfmoves, _ in reversed(made):
            self._apply(inverse(halfmoves), side_after_black=False)
        self._apply([], side_after_black=not root.turn)
        return line
