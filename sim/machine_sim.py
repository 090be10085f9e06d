"""The Verilated machine (hdl/top.py), driven through its native harness (sim/harness/machine.cpp)."""


from hdl.encoding import Halfmove as HalfmoveLayout
from hdl.top import Machine, SideIn, Start

from .models.position import inverse, move_halfmoves, setup_halfmoves, validate_board
from .verilator import HARNESS, HarnessProcess, build_harness, verilog_for

__all__ = ["VerilatedMachine", "machine_executable"]

LAYOUTS = {"halfmove": HalfmoveLayout, "sidein": SideIn, "start": Start}


def machine_executable(quiet=False):
    verilog = verilog_for("machine", Machine, packages=("movegen", "search"))
    return build_harness("machine", verilog, HARNESS / "machine.cpp", LAYOUTS, quiet=quiet)


class VerilatedMachine(HarnessProcess):
    """A running Verilated machine. Use as a context manager, or call :meth:`close`."""

    what = "machine"

    def __init__(self, executable=None):
        super().__init__(executable or machine_executable())

    def set_side(self, side):
        self._send(f"side {side}")

    def set_board(self, board):
        """Load a python-chess position (rejecting impossible ones with ``PositionError``)."""
        validate_board(board)
        self._send("reset")
        self.apply(setup_halfmoves(board))
        self.set_side(0 if board.turn else 1)

    def perft(self, depth):
        """Hardware perft from the position loaded: ``(leaves, cycles)``."""
        if not 0 <= depth < 64:
            raise ValueError(f"perft depth must be 0..63, not {depth}")
        self._send(f"perft {depth}")
        leaves, cycles = self._read()
        return int(leaves), int(cycles)

    def divide(self, board, depth):
        """Per legal root move of ``board`` (loaded by :meth:`set_board`), the hardware perft of
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

