"""The machine's top level (so far): move generator, move maker and search controller on one
halfmove bus, with a host port to set up positions and start jobs (the UART link drives it in
issue 5; until then tests and the simulated machine drive it directly).

The evaluator, the Zobrist unit and the repetition detector join the bus with the search
microprogram; today's microprogram is hardware perft.
"""

from amaranth import Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .encoding import Halfmove
from .movegen.generator import MoveGenerator
from .search.controller import Controller
from .search.maker import MoveMaker
from .search.microcode import program

__all__ = ["Machine", "SideIn", "Start"]

#: Setting the side to move from the host.
SideIn = data.StructLayout({"valid": 1, "side": 1})

#: Starting a job from the host.
Start = data.StructLayout({"valid": 1, "depth": 6})


class Machine(wiring.Component):
    """Interface attributes
    --------------------
    setup : In(stream of Halfmove)   halfmoves from the host, taken while no job runs
    side_in : In({valid, side})      the side to move, set while no job runs
    start : In({valid, depth})       run hardware perft from the position set up
    busy : Out(1)
    leaves, cycles : Out(64)         the last job's result and length
    """

    def __init__(self, *, max_ply=64):
        if max_ply > 64:
            raise ValueError(f"at most 64 plies (the depth field is 6 bits), not {max_ply}")
        self._max_ply = max_ply
        super().__init__({
            "setup": In(stream.Signature(Halfmove)),
            "side_in": In(SideIn),
            "start": In(Start),
            "busy": Out(1),
            "leaves": Out(64),
            "cycles": Out(64),
        })

    def elaborate(self, platform):
        m = Module()
        microprogram = program()
        m.submodules.generator = generator = MoveGenerator(max_ply=self._max_ply)
        m.submodules.maker = maker = MoveMaker(max_ply=self._max_ply)
        m.submodules.controller = controller = Controller(microprogram.assemble(), microprogram.address_of("idle"),
                                                          max_ply=self._max_ply)

        # The halfmove bus: the maker's halfmoves, or the host's while the maker is idle.
        bus = generator.halfmove
        with m.If(maker.halfmove.valid):
            m.d.comb += [bus.valid.eq(1), bus.payload.eq(maker.halfmove.payload),
                         maker.halfmove.ready.eq(bus.ready)]
        with m.Else():
            m.d.comb += [bus.valid.eq(self.setup.valid & ~controller.busy), bus.payload.eq(self.setup.payload),
                         self.setup.ready.eq(bus.ready & ~controller.busy)]

        wiring.connect(m, controller.gen_request, generator.request)
        m.d.comb += [
            controller.gen_response.valid.eq(generator.response.valid),
            controller.gen_response.payload.eq(generator.response.payload),
            controller.king_attacked.eq(generator.king_attacked),
            generator.side.eq(controller.side),
            controller.maker_idle.eq(maker.idle),
            maker.markers.eq(generator.board.markers),
            controller.side_in.eq(self.side_in),
            controller.start.eq(self.start),
            self.busy.eq(controller.busy),
            self.leaves.eq(controller.leaves),
            self.cycles.eq(controller.cycles),
        ]
        wiring.connect(m, controller.maker_command, maker.command)
        return m
