"""The machine behind the host link, as the top levels of a board's design.

``LinkedMachine`` takes and gives the link's bytes as streams (the simulated board feeds them
from a pseudo-terminal); ``UartMachine`` puts a UART in front of it (the FPGA boards). Either
holds the searching machine (``hdl/top.py``) or, with ``station=True``, the evaluation station
(``hdl/station.py``).
"""

from amaranth import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..eval.tables import FULL
from ..station import STATION_MAX_FRAME, EvaluationStation
from ..top import MACHINE_PORTS, Machine
from .executor import CommandExecutor
from .framing import FrameReceiver, ReplyTransmitter, receive_depth
from .protocol import MAX_FRAME
from .uart import UartReceiver, UartTransmitter

__all__ = ["HostLink", "LinkedMachine", "UartMachine", "BOARD_CLOCK_HZ", "STATION_CLOCK_HZ", "linked_machine"]

#: The clocks a simulated board reports as its own: the ULX3S-85F build's and, for the
#: evaluation station, the iCEBreaker's (fpga/boards.py).
BOARD_CLOCK_HZ = 20_000_000
STATION_CLOCK_HZ = 12_000_000


class HostLink(wiring.Component):
    """The link's protocol engine: frames in, commands executed on the machine, replies out.
    ``max_ply``, ``hash_bits``, ``clock_hz`` and ``eval_params`` describe the machine to the
    host (STATUS; ``max_ply`` 0: the evaluation station); frames are up to ``max_frame`` bytes.

    Interface attributes
    --------------------
    rx : In(stream of 8 bits)       bytes from the host (always ready)
    rx_error : In(1)                a UART framing error
    tx : Out(stream of 8 bits)      bytes to the host
    idle : Out(1)                   no frame executing, no reply waiting or being sent
    machine : the machine's ports, flipped
    """

    def __init__(self, *, max_ply, hash_bits, clock_hz, eval_params, max_frame=MAX_FRAME):
        self._max_ply, self._hash_bits, self._clock_hz = max_ply, hash_bits, clock_hz
        self._eval_params, self._max_frame = eval_params, max_frame
        super().__init__({
            "rx": In(stream.Signature(8)),
            "rx_error": In(1),
            "tx": Out(stream.Signature(8)),
            "idle": Out(1),
            "machine": Out(MACHINE_PORTS.flip()),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.receiver = receiver = FrameReceiver(self._max_frame)
        m.submodules.executor = executor = CommandExecutor(max_ply=self._max_ply, hash_bits=self._hash_bits,
                                                           clock_hz=self._clock_hz, eval_params=self._eval_params,
                                                           max_frame=self._max_frame)
        m.submodules.transmitter = transmitter = ReplyTransmitter()
        m.submodules.frames = frames = Memory(shape=8, depth=receive_depth(self._max_frame), init=[])
        write, read = frames.write_port(), frames.read_port()
        wiring.connect(m, wiring.flipped(self.rx), receiver.data)
        wiring.connect(m, transmitter.data, wiring.flipped(self.tx))
        wiring.connect(m, executor.machine, wiring.flipped(self.machine))
        m.d.comb += [
            receiver.line_error.eq(self.rx_error),
            write.en.eq(receiver.buffer_write.en), write.addr.eq(receiver.buffer_write.addr),
            write.data.eq(receiver.buffer_write.data),
            read.addr.eq(executor.buffer_addr), executor.buffer_data.eq(read.data),
            transmitter.nak_corrupt.eq(receiver.corrupt),
            self.idle.eq(executor.receiver.free & transmitter.idle & ~receiver.executor.frame.valid),
        ]
        wiring.connect(m, receiver.executor, executor.receiver)
        wiring.connect(m, executor.transmitter, transmitter.executor)
        return m


def linked_machine(m, *, max_ply, eval_params, hash_bits, clock_hz, station, legal_moves=True):
    """The machine (or the station) and its link as submodules of ``m``, connected:
    ``(machine, link)``. ``clock_hz`` None: the clock of the board it stands for;
    ``legal_moves`` False: the machine's lean generator (pins left to the search)."""
    clock_hz = clock_hz or (STATION_CLOCK_HZ if station else BOARD_CLOCK_HZ)
    max_frame = MAX_FRAME
    if station:
        m.submodules.machine = machine = EvaluationStation(eval_params=eval_params)
        max_ply = hash_bits = 0                 # (STATUS tells the host: no search here)
        max_frame = STATION_MAX_FRAME
    else:
        m.submodules.machine = machine = Machine(max_ply=max_ply, eval_params=eval_params, hash_bits=hash_bits,
                                                 legal_moves=legal_moves)
    m.submodules.link = link = HostLink(max_ply=max_ply, hash_bits=hash_bits, clock_hz=clock_hz,
                                        eval_params=eval_params, max_frame=max_frame)
    wiring.connect(m, link.machine, machine)
    return machine, link


class LinkedMachine(wiring.Component):
    """The machine behind the link, with the link's bytes as streams.

    Interface attributes
    --------------------
    rx : In(stream of 8 bits), tx : Out(stream of 8 bits)
    idle : Out(1)                   the link idle and no job running: nothing happens until a
                                    byte arrives
    """

    def __init__(self, *, max_ply=64, eval_params=FULL, hash_bits=14, clock_hz=None, station=False,
                 legal_moves=True):
        self._params = dict(max_ply=max_ply, eval_params=eval_params, hash_bits=hash_bits, station=station,
                            legal_moves=legal_moves)
        self._clock_hz = clock_hz
        super().__init__({"rx": In(stream.Signature(8)), "tx": Out(stream.Signature(8)), "idle": Out(1)})

    def elaborate(self, platform):
        m = Module()
        machine, link = linked_machine(m, clock_hz=self._clock_hz, **self._params)
        wiring.connect(m, wiring.flipped(self.rx), link.rx)
        wiring.connect(m, link.tx, wiring.flipped(self.tx))
        m.d.comb += self.idle.eq(link.idle & ~machine.job.busy & ~machine.hash_busy)
        return m


class UartMachine(wiring.Component):
    """The machine behind the link and a UART at ``divisor`` cycles per bit.

    Interface attributes
    --------------------
    rx : In(1), tx : Out(1)         the serial lines (idle high)
    idle : Out(1)                   the link idle, nothing being sent, no job running (for
                                    simulations that sleep meanwhile; unused on a board)
    """

    def __init__(self, *, divisor, clock_hz=None, max_ply=64, eval_params=FULL, hash_bits=14, station=False,
                 legal_moves=True):
        self._divisor = divisor
        self._clock_hz = clock_hz
        self._params = dict(max_ply=max_ply, eval_params=eval_params, hash_bits=hash_bits, station=station,
                            legal_moves=legal_moves)
        super().__init__({"rx": In(1, init=1), "tx": Out(1, init=1), "idle": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.receiver = receiver = UartReceiver(self._divisor)
        m.submodules.transmitter = transmitter = UartTransmitter(self._divisor)
        machine, link = linked_machine(m, clock_hz=self._clock_hz, **self._params)
        wiring.connect(m, receiver.data, link.rx)
        wiring.connect(m, link.tx, transmitter.data)
        line_error = Signal()
        m.d.comb += [receiver.rx.eq(self.rx), self.tx.eq(transmitter.tx),
                     line_error.eq(receiver.framing_error | receiver.overrun), link.rx_error.eq(line_error),
                     self.idle.eq(link.idle & ~machine.job.busy & ~machine.hash_busy & transmitter.data.ready)]
        return m
