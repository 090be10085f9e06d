"""The evaluation station: the evaluator on a board of its own, without generator or search —
the configuration the iCE40UP5K holds (its 5,280 logic cells take the SMALL evaluator and the
link, not the 64-cell move generator: BENCHMARKS.md, "Board build: the iCEBreaker").

The host sets positions, downloads and checks tables and reads the evaluator's value
(``EVALUATE``) exactly as on the searching machine; the station runs no jobs (the link refuses
them, seeing ``max_ply`` 0).
"""

from amaranth import Module, Signal
from amaranth.lib import wiring

from .eval.evaluator import Evaluator
from .eval.tables import SMALL
from .search.zobrist import ComputedZobristUnit
from .top import MACHINE_PORTS

__all__ = ["EvaluationStation", "STATION_MAX_FRAME"]

#: The station's link takes frames of up to 256 bytes: both receive buffers in one iCE40 block
#: RAM (table downloads take more frames; nothing else needs long ones).
STATION_MAX_FRAME = 256


class EvaluationStation(wiring.Component):
    """The machine's ports (:data:`~hdl.top.MACHINE_PORTS`) with only the position, the tables and
    the evaluator behind them.

    A halfmove from ``setup`` waits while the Zobrist unit computes its key (no key ROM: the
    iCE40's block RAM holds the evaluator's tables), then goes to the evaluator and the key in
    the same cycle; ``clear`` empties both (the evaluator's sums and the key are those of the
    empty board); ``side_in`` sets the side to move. The station keeps no board of its own.
    ``static_value`` is the evaluator's value (White's view), ``static_valid`` once it includes
    everything given; ``key`` the Zobrist key of the position. The job ports are tied off:
    never busy, nothing counted; the history and the transposition table do not exist
    (``history.ready``, ``hash_busy`` and ``hash_hit`` low).

    Latency: a halfmove is taken ``ComputedZobristUnit.CYCLES`` (141) cycles after it is offered;
    then the evaluator's latency (``hdl/eval/evaluator.py``); the key from the cycle after.
    """

    def __init__(self, *, eval_params=SMALL):
        self._eval_params = eval_params
        super().__init__(MACHINE_PORTS)

    def elaborate(self, platform):
        m = Module()
        m.submodules.evaluator = evaluator = Evaluator(self._eval_params)
        m.submodules.zobrist = zobrist = ComputedZobristUnit()

        side = Signal()
        with m.If(self.side_in.valid):
            m.d.sync += side.eq(self.side_in.payload)
        # A halfmove waits while the Zobrist unit computes its key, then goes to every unit at once.
        transfer = Signal()
        m.d.comb += [
            zobrist.halfmove.valid.eq(self.setup.valid & evaluator.halfmove.ready),
            zobrist.halfmove.payload.eq(self.setup.payload),
            self.setup.ready.eq(evaluator.halfmove.ready & zobrist.halfmove.ready),
            transfer.eq(self.setup.valid & self.setup.ready),
        ]
        m.d.comb += [evaluator.halfmove.valid.eq(transfer), evaluator.halfmove.payload.first.eq(self.setup.payload),
                     evaluator.clear.eq(self.clear), zobrist.clear.eq(self.clear)]
        wiring.connect(m, wiring.flipped(self.write), evaluator.write)
        wiring.connect(m, wiring.flipped(self.checksum_request), evaluator.checksum_request)
        wiring.connect(m, evaluator.checksum, wiring.flipped(self.checksum))
        m.d.comb += [
            evaluator.side.eq(side),
            zobrist.side.eq(side),
            self.static_value.eq(evaluator.value),
            self.static_valid.eq(evaluator.valid),
            self.key.eq(zobrist.key),
        ]
        return m
