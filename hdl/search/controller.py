"""The search controller: the microsequencer and the datapath it drives (shared/DESIGN.md §4.3).

So far the datapath holds what hardware perft needs — the ply, the side to move, the depth
limit, the leaf and cycle counters — and issues the generator's requests and the move maker's
commands. A microinstruction that issues a request or a command, or waits for a unit, is held
(the sequencer stalls) until the unit takes it or is done; its other actions happen in the
cycle it completes.

Control fields (``CONTROL``): ``gen`` issues FIRST/NEXT at the current ply; ``maker`` issues
MAKE/UNMAKE at the current ply; ``wait`` holds until the generator's response, the maker's last
halfmove, or the generator's settling on the new position; ``ply`` steps the ply (and with it
the side to move; UNMAKE names the parent's ply, so it goes in the same microinstruction as
the step up); ``count`` adds one leaf; ``clear`` zeroes the counters; ``done`` reports the
end of a job.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.wiring import In, Out

from ..movegen.layouts import GenMode, GenOp, GenRequest, GenResponse
from .maker import MakerCommand, MakerOp
from .microsequencer import Microsequencer, MicroSpec

__all__ = ["CONTROL", "STATUSES", "SPEC", "Controller"]


class GenIssue(enum.Enum, shape=2):
    NONE = 0
    FIRST = 1
    NEXT = 2


class MakerIssue(enum.Enum, shape=2):
    NONE = 0
    MAKE = 1
    UNMAKE = 2


class Wait(enum.Enum, shape=2):
    NONE = 0
    GEN = 1         # the response to the last request
    MAKER = 2       # the maker idle again
    SETTLED = 3     # the maker is done and the generator takes requests: the board and side
                    # have reached its outputs


class PlyStep(enum.Enum, shape=2):
    HOLD = 0
    DOWN = 1        # one ply deeper; the other side moves
    UP = 2          # back to the parent


CONTROL = data.StructLayout({
    "gen": GenIssue, "maker": MakerIssue, "wait": Wait, "ply": PlyStep,
    "count": 1, "clear": 1, "done": 1,
})

STATUSES = [
    "start",        # a job is waiting
    "found",        # the last response found a move
    "illegal",      # the side that just moved left its king attacked
    "at_leaf",      # ply == depth limit
    "at_root",      # ply == 0
    "depth_zero",   # the depth limit is 0
]

SPEC = MicroSpec(CONTROL, STATUSES, address_bits=8)


class Controller(wiring.Component):
    """Interface attributes
    --------------------
    start : In({valid, depth})          begin a perft of ``depth`` plies from the position set up
    busy : Out(1)
    leaves, cycles : Out(64)            the last job's count and its length in cycles
    gen_request : Out(stream of GenRequest), gen_response : In(valid, payload)
    king_attacked : In(2)               from the generator
    maker_command : Out(stream of MakerCommand), maker_idle : In(1)
    side : Out(1)                       the side to move (to the generator)
    side_in : In({valid, side})         set the side to move (while idle)
    """

    def __init__(self, image, entry, *, max_ply=64):
        self._image, self._entry, self._max_ply = image, entry, max_ply
        super().__init__({
            "start": In(data.StructLayout({"valid": 1, "depth": 6})),
            "busy": Out(1),
            "leaves": Out(64),
            "cycles": Out(64),
            "gen_request": Out(stream.Signature(GenRequest)),
            "gen_response": In(wiring.Signature({"valid": Out(1), "payload": Out(GenResponse)})),
            "king_attacked": In(2),
            "maker_command": Out(stream.Signature(MakerCommand)),
            "maker_idle": In(1),
            "side": Out(1),
            "side_in": In(data.StructLayout({"valid": 1, "side": 1})),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.sequencer = seq = Microsequencer(SPEC, self._image)
        control = seq.control

        ply = Signal(range(self._max_ply))
        depth = Signal(6)
        requested = Signal()
        response = Signal(GenResponse)
        answered = Signal()

        # --- status for branches --------------------------------------------------------------
        mover_attacked = Signal()
        m.d.comb += mover_attacked.eq(self.king_attacked.bit_select(~self.side, 1))
        status = {
            "start": requested, "found": response.found, "illegal": mover_attacked,
            "at_leaf": ply == depth, "at_root": ply == 0, "depth_zero": depth == 0,
        }
        m.d.comb += seq.status.eq(Cat(*(status[name] for name in STATUSES)))

        # Out of reset, the sequencer is sent to the idle loop.
        booted = Signal()
        m.d.sync += booted.eq(1)
        m.d.comb += [seq.start.eq(~booted), seq.entry.eq(self._entry)]

        # --- issuing and waiting --------------------------------------------------------------
        m.d.comb += [
            # A request waits for the maker: the generator must see whole moves only.
            self.gen_request.valid.eq((control.gen != GenIssue.NONE) & self.maker_idle),
            self.gen_request.payload.op.eq(GenOp.FIRST),
            self.gen_request.payload.mode.eq(GenMode.ALL),
            self.gen_request.payload.ply.eq(ply),
            self.maker_command.valid.eq(control.maker != MakerIssue.NONE),
            self.maker_command.payload.op.eq(MakerOp.MAKE),
            self.maker_command.payload.ply.eq(ply),
            self.maker_command.payload.move.eq(response.move),
            self.maker_command.payload.piece.eq(response.piece),
            self.maker_command.payload.victim.eq(response.victim),
        ]
        with m.If(control.gen == GenIssue.NEXT):
            m.d.comb += self.gen_request.payload.op.eq(GenOp.NEXT)
        with m.If(control.maker == MakerIssue.UNMAKE):
            # The move to unmake was made at the parent's ply: UNMAKE goes with the step UP.
            m.d.comb += [self.maker_command.payload.op.eq(MakerOp.UNMAKE),
                         self.maker_command.payload.ply.eq(ply - 1)]
        stall = Signal()
        waiting = {
            Wait.NONE: 0, Wait.GEN: ~answered, Wait.MAKER: ~self.maker_idle,
            Wait.SETTLED: ~self.gen_request.ready | ~self.maker_idle,
        }
        issuing = control.gen != GenIssue.NONE
        with m.Switch(control.wait):
            for kind, condition in waiting.items():
                with m.Case(kind):
                    m.d.comb += stall.eq(condition
                                         | (issuing & ~(self.gen_request.valid & self.gen_request.ready))
                                         | (self.maker_command.valid & ~self.maker_command.ready))
        m.d.comb += seq.stall.eq(stall)

        with m.If(self.gen_request.valid & self.gen_request.ready):
            m.d.sync += answered.eq(0)
        with m.If(self.gen_response.valid):
            m.d.sync += [response.eq(self.gen_response.payload), answered.eq(1)]

        # --- the datapath's actions, when the microinstruction completes -----------------------
        with m.If(self.start.valid & ~self.busy):
            m.d.sync += [requested.eq(1), depth.eq(self.start.depth), ply.eq(0), self.busy.eq(1)]
        with m.If(self.side_in.valid & ~self.busy):
            m.d.sync += self.side.eq(self.side_in.side)
        with m.If(self.busy):
            m.d.sync += self.cycles.eq(self.cycles + 1)
        with m.If(~stall):
            with m.If(control.clear):
                m.d.sync += [self.leaves.eq(0), self.cycles.eq(0), requested.eq(0)]
            with m.If(control.count):
                m.d.sync += self.leaves.eq(self.leaves + 1)
            with m.If(control.done):
                m.d.sync += self.busy.eq(0)
            with m.Switch(control.ply):
                with m.Case(PlyStep.DOWN):
                    m.d.sync += [ply.eq(ply + 1), self.side.eq(~self.side)]
                with m.Case(PlyStep.UP):
                    m.d.sync += [ply.eq(ply - 1), self.side.eq(~self.side)]
        return m
