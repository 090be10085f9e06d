"""The simulated board: the Verilated machine with its link (``hdl/link/top.py``) behind a
pseudo-terminal (``sim/harness/board.h``), opened by the host exactly like a real board's
serial port. By default the terminal's bytes enter the link a byte per cycle; with a UART
divisor they travel bit by bit on the serial lines of the FPGA boards' top (slower: 10 bits of
``divisor`` cycles per byte)."""

import contextlib
import subprocess

from hdl.eval.tables import FULL
from hdl.link.top import LinkedMachine, UartMachine
from host.link import LinkClient
from host.machine import RemoteMachine

from .eval_sim import params_variant
from .training import board_workload
from .verilator import HARNESS, build_harness, verilog_for

__all__ = ["SimulatedBoard", "board_executable", "MachineOpener", "open_machine", "REPLY_TIMEOUT"]

#: Seconds the host waits for each attempt at a reply from a simulated board. A real board
#: answers within microseconds (the link's default, 0.5 s, is ample); the simulation answers as
#: fast as the host lets it run, and a host busy with other work (a build, a test suite, a
#: second match at a lower priority) can hold it back for seconds: slow, not absent.
REPLY_TIMEOUT = 5.0


def board_executable(eval_params=FULL, uart_divisor=None, station=False, quiet=False, legal_moves=True):
    """The simulated board's executable, built once and cached: the link's byte streams on the
    terminal, or (``uart_divisor``) the UART's lines at that many cycles per bit; the searching
    machine (``legal_moves=False``: with the lean generator), or (``station``) the
    evaluation station. The searching machine on the terminal is a profile-guided build
    (``sim.training``) when gcc compiles it (``sim.verilator.cxx_compiler``)."""
    packages = ("movegen", "search", "eval", "link")
    variant = params_variant(eval_params) + ("-station" if station else "") + ("" if legal_moves else "-lean")
    if uart_divisor is None:
        verilog = verilog_for("board", lambda: LinkedMachine(eval_params=eval_params, station=station,
                                                             legal_moves=legal_moves),
                              variant=variant, packages=packages, registered_reset=True)
        train = None if station else board_workload(eval_params, legal_moves)
        return build_harness("board", verilog, HARNESS / "board.cpp", {}, quiet=quiet, train=train)
    verilog = verilog_for("board_uart", lambda: UartMachine(divisor=uart_divisor, eval_params=eval_params,
                                                            station=station, legal_moves=legal_moves),
                          variant=variant + f"-d{uart_divisor}", packages=packages,
                          registered_reset=True)
    return build_harness("board_uart", verilog, HARNESS / "board_uart.cpp", {}, quiet=quiet)


class SimulatedBoard:
    """A running simulated board; ``device`` is its serial device. Use as a context manager, or
    call :meth:`close` (the board also ends when this process does)."""

    def __init__(self, eval_params=FULL, executable=None, uart_divisor=None, station=False, legal_moves=True):
        self.eval_params = eval_params
        command = [str(executable or board_executable(eval_params, uart_divisor, station, legal_moves=legal_moves))]
        if uart_divisor is not None:
            command.append(str(uart_divisor))
        self._proc = subprocess.Popen(command,
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

    def client(self, **options):
        """A link client on this board's terminal, waiting ``REPLY_TIMEOUT`` an attempt unless
        ``options`` (``LinkClient``'s) say otherwise."""
        return LinkClient(self.device, **{"timeout": REPLY_TIMEOUT, **options})

    @property
    def pid(self):
        """The simulation's process (to pause it, as a busy host would)."""
        return self._proc.pid

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


class MachineOpener:
    """Opens the machine on a board: the one on ``port``, or a simulated board started for it
    (the searching machine with ``eval_params``, FULL by default) when ``port`` is None. Each
    call gives a new :class:`RemoteMachine` (after a board stopped answering, a simulated board
    that has stopped is started anew); ``close`` stops the simulated board. A real board's
    evaluator is its own; ``eval_params``, if given, must be it. ``legal_moves`` False: the
    simulated board has the lean generator (a real board's is its own)."""

    def __init__(self, port=None, *, eval_params=None, baud=1_000_000, legal_moves=True):
        self.port, self.eval_params, self.baud, self.legal_moves = port, eval_params, baud, legal_moves
        self._simulated = None

    def __call__(self):
        if self.port is not None:
            return RemoteMachine(LinkClient(self.port, baud=self.baud), self.eval_params)
        if self._simulated is None or not self._simulated.running:
            self.close()
            self._simulated = SimulatedBoard(self.eval_params or FULL, legal_moves=self.legal_moves)
        return RemoteMachine(self._simulated.client(), self.eval_params)

    @property
    def simulated(self):
        """The simulated board started for the machine (None before the first call, or with a port)."""
        return self._simulated

    def close(self):
        if self._simulated is not None:
            self._simulated.close()
            self._simulated = None


@contextlib.contextmanager
def open_machine(port=None, *, eval_params=None, baud=1_000_000, legal_moves=True):
    """A :class:`RemoteMachine` on ``port``, or on a simulated board started for it and stopped
    after (:class:`MachineOpener`)."""
    opener = MachineOpener(port, eval_params=eval_params, baud=baud, legal_moves=legal_moves)
    try:
        machine = opener()
        with machine.client:
            yield machine
    finally:
        opener.close()
