"""The machine's two handshakes, each spelled one way.

* ``amaranth.lib.stream.Signature(shape)``: a payload offered with ``valid`` until the receiver
  takes it (``ready``), the four transfer rules of Amaranth's streams.
* :func:`Pulse`: a payload valid for the cycle ``valid`` is high, with no back-pressure (the
  receiver takes it or loses it). Amaranth's ``stream.Signature(shape, always_ready=True)``
  says the same, but its ``ready`` is a constant, which cannot be a port of a top-level
  component; the units here are tops of their own in the simulations and block builds.
"""

from amaranth.lib import wiring
from amaranth.lib.wiring import Out

__all__ = ["Pulse"]


def Pulse(shape):
    """A one-cycle payload, from the sender's side: ``valid`` and ``payload``."""
    return wiring.Signature({"valid": Out(1), "payload": Out(shape)})
