"""The Verilated machine (hdl/top.py), driven through its native harness (sim/harness/machine.cpp)."""

from dataclasses import dataclass

import chess

from hdl.encoding import Halfmove as HalfmoveLayout
from hdl.encoding import pack
from hdl.eval.tables import FULL
from hdl.movegen.layouts import GenConfig, VictimOrder
from hdl.search.controller import SPEC, Job, StartCommand, require_timing_contract
from hdl.search.features import SearchFeatures
from hdl.search.frame import INFINITY
from hdl.search.hashtable import GENERATION_BITS, HashEntry
from hdl.search.microsequencer import microcode_entries
from hdl.search.repetition import StackEntry
from hdl.top import MICROCODE_UNIT, Machine
from models.movegen import config_for
from models.ordering import move_of_word
from models.position import inverse, move_halfmoves, setup_halfmoves, validate_board
from models.repetition import game_history
from models.search import follow_best_moves, root_move_word

from .eval_sim import TABLE_LAYOUTS, TablePort, params_variant
from .verilator import HARNESS, HarnessProcess, build_harness, verilog_for

__all__ = ["VerilatedMachine", "machine_executable", "SearchResult", "HASH_BITS"]

#: The Verilated machine's transposition table: 2**HASH_BITS entries (the board's may be larger:
#: its STATUS says).
HASH_BITS = 12

LAYOUTS = {"halfmove": HalfmoveLayout, "startcommand": StartCommand, "job": Job, "hashentry": HashEntry,
           "stackentry": StackEntry, **TABLE_LAYOUTS}


def machine_executable(eval_params=FULL, quiet=False, legal_moves=True):
    """The Verilated machine's harness (``legal_moves=False``: with the lean generator)."""
    verilog = verilog_for("machine",
                          lambda: Machine(eval_params=eval_params, hash_bits=HASH_BITS, legal_moves=legal_moves),
                          variant=params_variant(eval_params) + ("" if legal_moves else "-lean"),
                          packages=("movegen", "search", "eval"), registered_reset=True)
    return build_harness("machine", verilog, HARNESS / "machine.cpp", LAYOUTS, quiet=quiet)


@dataclass(frozen=True)
class SearchResult:
    """What a search returns: the value from the side to move's view, the best move (None when
    the root has no legal move or is a quiescence node), the nodes visited and the cycles."""
    score: int
    move: chess.Move
    nodes: int
    cycles: int


class VerilatedMachine(TablePort, HarnessProcess):
    """A running Verilated machine (``legal_moves=False``: with the lean generator). Use
    as a context manager, or call :meth:`close`."""

    what = "machine"

    def __init__(self, eval_params=FULL, executable=None, legal_moves=True):
        super().__init__(executable or machine_executable(eval_params, legal_moves=legal_moves))
        self.eval_params, self.legal_moves, self.hash_bits = eval_params, legal_moves, HASH_BITS
        self._loaded = []       # the setup halfmoves of the position on the board
        self.position = None    # ... and the position (a python-chess board) set last
        self.store = None       # the table store downloaded last as a whole

    def set_side(self, side):
        self._send(f"side {side}")

    def write_table(self, unit, kind, entries, start=0):
        """Download to one table. The evaluator's accumulators hold sums under the tables they
        were built with, so the position is taken off the board first and put back after."""
        self.apply(inverse(self._loaded))
        super().write_table(unit, kind, entries, start)
        self.apply(self._loaded)
        self.store = None

    def write_store(self, store):
        """Download the tables of a ``TableStore`` that differ from the board's (``TablePort``;
        the store remembered as :attr:`store`)."""
        self.apply(inverse(self._loaded))
        super().write_store(store)
        self.apply(self._loaded)
        self.store = store

    def load_microcode(self, image):
        """Rewrite the micro-store through the download port (``Program.assemble()``'s image);
        ValueError, and nothing written, for an image that breaks the controller's timing
        contract (``require_timing_contract``)."""
        require_timing_contract(image)
        entries = microcode_entries(SPEC, image)
        super().write_table(MICROCODE_UNIT, 0, entries)

    def now(self):
        """The simulation's clock cycles since it started (``--trace-from`` counts in them)."""
        self._send("now")
        return int(self._read()[0])

    def reset(self):
        """Reset the machine: the board empty; downloaded tables stay."""
        self._send("reset")
        self._loaded, self.position = [], None

    def set_position(self, board):
        """Load a python-chess position (rejecting impossible ones with ``PositionError``): the
        last position loaded is taken off by halfmoves, the new one put on. The game's
        positions since the last irreversible move (from ``board.move_stack``) go to the
        repetition detector."""
        validate_board(board)
        setup = setup_halfmoves(board)
        self.apply(inverse(self._loaded) + setup)
        self._loaded = setup
        self.position = board.copy()
        self.set_side(0 if board.turn else 1)
        self._send("history_clear")
        entries = game_history(board)
        if entries:
            self._send("history " + " ".join(f"{key} {int(irreversible)} {clock}"
                                             for key, irreversible, clock in entries))

    def perft(self, depth):
        """Hardware perft from the position loaded, in its variant (the board's class):
        ``(leaves, cycles)``."""
        if not 0 <= depth < 64:
            raise ValueError(f"perft depth must be 0..63, not {depth}")
        self._send(f"perft {depth} {self._config()}")
        leaves, cycles = self._read()
        return int(leaves), int(cycles)

    def clear_hash(self):
        """Empty the transposition table."""
        self._send("hash_clear")

    def probe(self):
        """The transposition table's entry for the position on the board:
        ``(hit, depth, bound, value, move word)``."""
        self._send("probe")
        return tuple(int(x) for x in self._read())

    def principal_variation(self, board, limit=64):
        """The principal variation of the last search from ``board`` (the position loaded), as
        ``models.search.follow_best_moves`` finds it in the transposition table; the
        board is left as it was."""
        made = []

        def best_word(game):
            hit, _, _, _, word = self.probe()
            return word if hit else 0

        def play(game, move):
            halfmoves = move_halfmoves(game, move)
            self.apply(halfmoves)
            made.append(halfmoves)
            self.set_side(1 if game.turn else 0)     # (the side after the move)

        line = follow_best_moves(board, best_word, play, limit)
        for halfmoves in reversed(made):
            self.apply(inverse(halfmoves))
        self.set_side(0 if board.turn else 1)
        return line

    def key(self):
        """The Zobrist key of the position on the board, the side to move included."""
        self._send("key")
        return int(self._read()[0])

    def evaluate(self):
        """The evaluator's static value of the position on the board (White's view)."""
        self._send("eval")
        return int(self._read()[0])

    def _config(self, victim_order=VictimOrder.MOST_VALUABLE):
        """START's generator configuration for the position loaded, as bits."""
        return pack(GenConfig, **config_for(self.position, victim_order))

    def search(self, depth, alpha=-INFINITY, beta=INFINITY, generation=0, features=None, root_move=None,
               keep_killers=False, victim_order=VictimOrder.MOST_VALUABLE):
        """The alpha-beta search of ``depth`` plies in the window (``alpha``, ``beta``) from the
        position loaded, with the tables downloaded; ``generation`` is stored with the
        transposition table's entries (those of another generation may be replaced);
        ``features`` (a ``SearchFeatures``, all by default) is the search's control word;
        ``root_move`` (a legal move of the position loaded) the one root move to search,
        ``keep_killers`` whether the killer moves of the search before stay, ``victim_order`` the
        generator's capture order (START's fields; the rules are the position's)."""
        if not 0 <= depth < 64:
            raise ValueError(f"search depth must be 0..63, not {depth}")
        if not -INFINITY <= alpha < beta <= INFINITY:
            raise ValueError(f"the window ({alpha}, {beta}) must satisfy -{INFINITY} <= alpha < beta <= {INFINITY}")
        root_word = root_move_word(self.position, root_move, depth)
        features = SearchFeatures() if features is None else features
        self._send(f"search {depth} {alpha} {beta} {generation % (1 << GENERATION_BITS)} {features.word()} "
                   f"{root_word} {int(keep_killers)} {self._config(victim_order)}")
        nodes, cycles, score, word = (int(x) for x in self._read())
        return SearchResult(score, move_of_word(word), nodes, cycles)

    def trace(self, depth, alpha=-INFINITY, beta=INFINITY, features=None):
        """:meth:`search`, and the Zobrist key of each node in the order the search enters them
        (as counted: the key may still be settling when a node is counted after its move)."""
        features = SearchFeatures() if features is None else features
        self._send(f"trace {depth} {alpha} {beta} 0 {features.word()} 0 0 {self._config()}")
        keys = []
        while True:
            words = self._read()
            if words[0] != "node":
                nodes, cycles, score, word = (int(x) for x in words)
                return SearchResult(score, move_of_word(word), nodes, cycles), keys
            keys.append(int(words[1]))

    def divide(self, board, depth):
        """Per legal root move of ``board`` (loaded by :meth:`set_position`), the hardware perft of
        ``depth`` - 1 after it: ``{uci: leaves}`` and the cycles of all the sub-perfts."""
        if depth < 1:
            raise ValueError(f"divide needs a depth of at least 1, not {depth}")
        side = 0 if board.turn else 1
        counts, cycles = {}, 0
        for move in sorted(board.legal_moves, key=lambda m: m.uci()):
            halfmoves = move_halfmoves(board, move)
            self.apply(halfmoves)
            self.set_side(side ^ 1)
            counts[move.uci()], spent = self.perft(depth - 1)
            cycles += spent
            self.apply(inverse(halfmoves))
            self.set_side(side)
        return counts, cycles

