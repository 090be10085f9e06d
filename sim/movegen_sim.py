"""The Verilated move generator, driven through its native harness (sim/harness/movegen.cpp).

:class:`VerilatedMovegen` starts the cached executable (building it on first use) and talks to
it over pipes; it speaks in the shared encodings, so tests and the CLI compare its answers with
``models.movegen`` and python-chess directly.
"""

from dataclasses import dataclass

import chess

from hdl.encoding import Colour, MoveWord, Piece, PieceType, pack, unpack
from hdl.encoding import Halfmove as HalfmoveLayout
from hdl.movegen.generator import MoveGenerator
from hdl.movegen.layouts import CHESS, GenConfig, GenMode, GenOp, GenRequest, GenResponse, MoveKey
from models.position import inverse, move_halfmoves, setup_halfmoves, validate_board

from .verilator import HARNESS, HarnessProcess, build_harness, verilog_for

__all__ = ["VerilatedMovegen", "HwMove", "HwState", "movegen_executable", "make", "unmake"]

LAYOUTS = {"halfmove": HalfmoveLayout, "moveword": MoveWord, "genrequest": GenRequest,
           "genresponse": GenResponse, "movekey": MoveKey, "piece": Piece, "piecetype": PieceType, "colour": Colour}


def movegen_executable(quiet=False, legal=True):
    """The Verilated generator's harness (``legal=False``: the lean generator)."""
    verilog = verilog_for("movegen", lambda: MoveGenerator(legal=legal), packages=("movegen",),
                          variant="" if legal else "-lean", registered_reset=True)
    return build_harness("movegen", verilog, HARNESS / "movegen.cpp", LAYOUTS, quiet=quiet)


@dataclass(frozen=True)
class HwMove:
    """One response of the generator."""
    found: bool
    word: int
    key: int
    piece: int
    victim: int
    may_check: bool
    count: int            # a COUNT's moves
    cycles: int

    @property
    def fields(self):
        return unpack(MoveWord, self.word)

    @property
    def uci(self):
        f = self.fields
        return chess.Move(f["from_sq"], f["to_sq"], f["promotion"] or None).uci()


@dataclass(frozen=True)
class HwState:
    in_check: bool
    king_attacked: int
    attacks: tuple        # (by white, by black) bitboards
    planes: tuple         # type0, type1, type2, colour, markers
    forced: bool          # antichess: the side to move has a capture
    moveless: bool        # antichess: the side to move has no move
    captures_open: bool   # a fresh CAPTURES ply would find a move
    checks_open: bool     # a fresh CHECKS ply would find a move


class VerilatedMovegen(HarnessProcess):
    """A running Verilated generator (``legal=False``: the lean one). Use as a context
    manager, or call :meth:`close`."""

    what = "generator"

    def __init__(self, executable=None, legal=True):
        super().__init__(executable or movegen_executable(legal=legal))
        self.legal_moves = legal        # (``legal`` is the LEGAL query)
        self.side = 0
        self.config = CHESS

    # --- state -------------------------------------------------------------------------------
    def reset(self):
        self._send("reset")

    def set_side(self, side):
        self.side = side
        self._send(f"side {side}")

    def set_config(self, config):
        """Set the rules and capture order (a ``GenConfig`` as a dict)."""
        self.config = config
        self._send(f"config {pack(GenConfig, **config)}")

    def set_position(self, board):
        """Load a python-chess position (rejecting impossible ones with ``PositionError``)."""
        validate_board(board)
        self.reset()
        self.apply(setup_halfmoves(board))
        self.set_side(0 if board.turn else 1)

    def state(self):
        self._send("state")
        v = [int(x) for x in self._read()]
        return HwState(bool(v[0]), v[1], (v[2], v[3]), tuple(v[4:9]), bool(v[9]), bool(v[10]), bool(v[11]),
                       bool(v[12]))

    def cycles(self):
        self._send("cycles")
        return int(self._read()[0])

    # --- requests ----------------------------------------------------------------------------
    def request(self, op, ply=0, mode=GenMode.ALL, move=0):
        bits = pack(GenRequest, op=op, ply=ply, mode=mode, move=unpack(MoveWord, move))
        self._send(f"req {bits}")
        return self._response(self._read())

    def first(self, ply=0, mode=GenMode.ALL):
        return self.request(GenOp.FIRST, ply, mode)

    def next(self, ply=0, mode=GenMode.ALL):
        return self.request(GenOp.NEXT, ply, mode)

    def held_next(self, gap, ply, before, after):
        """A PREFETCH's NEXT (KEEP mode) at ``ply`` offered while the board changes: the
        halfmoves ``before`` (``models.position.Halfmove``) one a cycle, the request ``gap``
        (0 or 1) cycles after the last of them, then the side toggled and the halfmoves ``after``
        one a cycle. The answer is for the board after ``before``; its ``cycles`` count from
        the request's offer."""
        bits = pack(GenRequest, op=GenOp.NEXT, ply=ply, mode=GenMode.KEEP, move=unpack(MoveWord, 0))
        words = [str(h.bits) for h in before] + ["/"] + [str(h.bits) for h in after]
        self._send(f"held {gap} {bits} " + " ".join(words))
        return self._response(self._read())

    def count(self):
        """COUNT: ``(moves but en passant, whether there is an en passant besides)``."""
        response = self.request(GenOp.COUNT)
        return response.count, response.found

    def legal(self, word):
        return self.request(GenOp.LEGAL, move=word).found

    def generate(self, ply=0, mode=GenMode.ALL):
        """Every move of a fresh ply, in emission order, and the cycles the whole ply took."""
        self._send(f"gen {ply} {mode.value}")
        moves = []
        while True:
            fields = self._read()
            if fields[0] == "end":
                return moves, int(fields[2])
            moves.append(self._response(fields))

    def perft(self, depth):
        """Legal leaves ``depth`` plies down, by make/unmake in the harness; and the cycles."""
        self._send(f"perft {depth}")
        count, cycles = self._read()
        return int(count), int(cycles)

    @staticmethod
    def _response(fields):
        found, word, key, piece, victim, may_check, count, cycles = (int(x) for x in fields)
        return HwMove(bool(found), word, key, piece, victim, bool(may_check), count, cycles)


def make(hw, board, move):
    """Make a python-chess ``move`` on both ``hw`` and ``board``; returns what :func:`unmake` needs."""
    halfmoves = move_halfmoves(board, move)
    hw.apply(halfmoves)
    hw.set_side(hw.side ^ 1)
    board.push(move)
    return halfmoves


def unmake(hw, board, halfmoves):
    hw.apply(inverse(halfmoves))
    hw.set_side(hw.side ^ 1)
    board.pop()
