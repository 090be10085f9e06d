"""The simulated board: the Verilated board top (``hdl/link/board.py``) behind a
pseudo-terminal (``sim/harness/board.cpp``), opened by the host exactly like a real board's
serial port."""

import subprocess

from hdl.eval.tables import FULL
from hdl.link.board import LinkedMachine

from .eval_sim import params_variant
from .verilator import HARNESS, build_harness, verilog_for

__all__ = ["SimulatedBoard", "board_executable"]


def board_executable(eval_params=FULL, quiet=False):
    """The simulated board's executable, built once and cached."""
    verilog = verilog_for("board", lambda: LinkedMachine(eval_params=eval_params), variant=params_variant(eval_params),
                          packages=("movegen", "search", "eval", "link"))
    return build_harness("board", verilog, HARNESS / "board.cpp", {}, quiet=quiet)


class SimulatedBoard:
    """A running simulated board; ``device`` is its serial device. Use as a context manager, or
    call :meth:`close` (the board also ends when this process does)."""

    def __init__(self, eval_params=FULL, executable=None):
        self.eval_params = eval_params
        self._proc = subprocess.Popen([str(executable or board_executable(eval_params))],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self._proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "device":
            self._proc.kill()
            raise RuntimeError("the simulated board did not start")
        self.device = line[1]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def running(self):
        return self._proc.poll() is None

    def press_reset(self):
        """Reset the board as its reset button would: a job stops, the position is lost
        (downloaded tables and microcode stay, as in block RAM)."""
        self._proc.stdin.write("reset\n")
        self._proc.stdin.flush()
        if self._proc.stdout.readline().strip() != "reset":
            raise RuntimeError("the simulated board did not reset")

    def close(self):
        if self._proc.poll() is None:
            try:
                self._proc.stdin.write("quit\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
