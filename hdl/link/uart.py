"""A UART, 8 data bits, no parity, one stop bit, at ``divisor`` clock cycles per bit
(25 cycles at 25 MHz and 12 at 12 MHz give 1 Mbaud exactly)."""

from amaranth import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["UartReceiver", "UartTransmitter", "divisor_for"]


def divisor_for(clock_hz, baud):
    """Cycles per bit for ``baud`` at ``clock_hz``; refuses a rate more than 2 % off."""
    divisor = round(clock_hz / baud)
    if divisor < 4 or abs(clock_hz / divisor - baud) > 0.02 * baud:
        raise ValueError(f"{baud} baud cannot be made from {clock_hz} Hz (nearest: "
                         f"{clock_hz / max(divisor, 1):.0f} baud with {divisor} cycles per bit)")
    return divisor


class UartReceiver(wiring.Component):
    """Bytes from the ``rx`` line. The line passes two synchronising registers; a start bit is
    checked at its middle and each bit sampled at its middle; a byte whose stop bit is low is
    not delivered and raises ``framing_error`` for one cycle. A byte is offered about a
    bit-time after its last data bit's middle and must be taken before the next one arrives
    (else ``overrun`` pulses and it is lost).

    Interface attributes
    --------------------
    rx : In(1)                      the line (idle high)
    data : Out(stream of 8 bits)
    framing_error, overrun : Out(1) one-cycle pulses
    """

    def __init__(self, divisor):
        if divisor < 4:
            raise ValueError(f"at least 4 cycles per bit, not {divisor}")
        self._divisor = divisor
        super().__init__({"rx": In(1, init=1), "data": Out(stream.Signature(8)),
                          "framing_error": Out(1), "overrun": Out(1)})

    def elaborate(self, platform):
        m = Module()
        line = Signal(2, init=0b11)
        m.d.sync += line.eq(line << 1 | self.rx)
        bit = line[1]
        timer = Signal(range(self._divisor + 1))
        count = Signal(range(9))
        shift = Signal(8)
        m.d.sync += [self.framing_error.eq(0), self.overrun.eq(0)]
        with m.If(self.data.ready):
            m.d.sync += self.data.valid.eq(0)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(~bit):
                    m.d.sync += timer.eq(self._divisor // 2 - 1)
                    m.next = "START"
            with m.State("START"):
                with m.If(timer != 0):
                    m.d.sync += timer.eq(timer - 1)
                with m.Elif(bit):                   # a glitch, not a start bit
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += [timer.eq(self._divisor - 1), count.eq(0)]
                    m.next = "DATA"
            with m.State("DATA"):
                with m.If(timer != 0):
                    m.d.sync += timer.eq(timer - 1)
                with m.Else():
                    m.d.sync += [shift.eq(bit << 7 | shift >> 1), count.eq(count + 1),
                                 timer.eq(self._divisor - 1)]
                    with m.If(count == 7):
                        m.next = "STOP"
            with m.State("STOP"):
                with m.If(timer != 0):
                    m.d.sync += timer.eq(timer - 1)
                with m.Else():
                    with m.If(bit):
                        m.d.sync += [self.data.payload.eq(shift), self.data.valid.eq(1)]
                        with m.If(self.data.valid & ~self.data.ready):
                            m.d.sync += self.overrun.eq(1)
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += self.framing_error.eq(1)
                        m.next = "BREAK"
            with m.State("BREAK"):                  # wait for the line to be idle again
                with m.If(bit):
                    m.next = "IDLE"
        return m


class UartTransmitter(wiring.Component):
    """Bytes onto the ``tx`` line, back to back (10 bit-times each).

    Interface attributes
    --------------------
    data : In(stream of 8 bits)
    tx : Out(1)                     the line (idle high)
    """

    def __init__(self, divisor):
        if divisor < 4:
            raise ValueError(f"at least 4 cycles per bit, not {divisor}")
        self._divisor = divisor
        super().__init__({"data": In(stream.Signature(8)), "tx": Out(1, init=1)})

    def elaborate(self, platform):
        m = Module()
        shift = Signal(10, init=0x3FF)      # stop bit, data, start bit: sent from bit 0
        remaining = Signal(range(11))
        timer = Signal(range(self._divisor))
        m.d.comb += [self.tx.eq(shift[0]), self.data.ready.eq(remaining == 0)]
        with m.If(self.data.valid & self.data.ready):
            m.d.sync += [shift.eq(1 << 9 | self.data.payload << 1), remaining.eq(10),
                         timer.eq(self._divisor - 1)]
        with m.Elif(remaining != 0):
            with m.If(timer != 0):
                m.d.sync += timer.eq(timer - 1)
            with m.Else():
                m.d.sync += [shift.eq(1 << 9 | shift >> 1), remaining.eq(remaining - 1),
                             timer.eq(self._divisor - 1)]
        return m
