"""The move generator: square cells, priority arbiter, attacker select and per-ply context."""

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import Halfmove
from .arbiter import DestinationArbiter
from .attacker import AttackerSelect
from .cells import Planes, SquareCells
from .layouts import Context, GenMode, GenOp, GenRequest, GenResponse

__all__ = ["MoveGenerator"]


class MoveGenerator(wiring.Component):
    """The move generator of shared/DESIGN.md §4.1.

    Keeps the board through ``halfmove`` and answers requests:

    * ``FIRST``/``NEXT`` at a ply: the best pseudo-legal move not yet returned at that ply
      (``FIRST`` starts the ply afresh), in ``ALL`` or ``CAPTURES`` mode. Moves come in strictly
      decreasing key order, each exactly once; ``found`` = 0 when the ply is exhausted. A ply's
      context (the cells it has finished, the next slot and promotion piece in the current
      cell) lives in small memories indexed by ply, so it survives any generation, make and
      unmake at other plies, as long as the position at the ply is the same when it resumes.
    * ``LEGAL``: whether ``move`` is a move the generator would emit here, flags included.

    ``side`` is the colour to move; it and the board must be steady while a request is in
    flight. Check, attacked squares and the king-attacked flags are continuous outputs.

    Timing: ``halfmove`` is taken every cycle the generator is not busy; a request is taken
    (``request.ready``) from the second cycle after the last halfmove or change of ``side``,
    and its response is valid for one cycle, two cycles later. A ply thus
    yields one move every two cycles. ``attacks``, ``king_attacked`` and ``in_check`` follow
    the board with the same latency as requests.

    Interface attributes
    --------------------
    halfmove : In(stream of Halfmove).
    side : In(1).
    request : In(stream of GenRequest).
    response : Out(valid, payload: GenResponse), a one-cycle pulse (no back-pressure).
    in_check : Out(1), the side to move is in check.
    king_attacked : Out(2), the white, the black king stands attacked.
    attacks : Out(array of 2 planes), squares attacked by white, by black.
    board : Out(Planes), the stored state, for tests.
    """

    def __init__(self, *, max_ply=64):
        if not isinstance(max_ply, int) or max_ply < 1:
            raise TypeError(f"max_ply must be a positive integer, not {max_ply!r}")
        self._max_ply = max_ply
        super().__init__({
            "halfmove": In(stream.Signature(Halfmove)),
            "side": In(1),
            "request": In(stream.Signature(GenRequest)),
            "response": Out(wiring.Signature({"valid": Out(1), "payload": Out(GenResponse)})),
            "in_check": Out(1),
            "king_attacked": Out(2),
            "attacks": Out(data.ArrayLayout(64, 2)),
            "board": Out(Planes),
        })

    @property
    def max_ply(self):
        return self._max_ply

    def elaborate(self, platform):
        m = Module()
        m.submodules.cells = cells = SquareCells()
        m.submodules.arbiter = arbiter = DestinationArbiter()
        m.submodules.attacker = attacker = AttackerSelect()
        m.submodules.context = context = Memory(shape=Context, depth=self._max_ply, init=[])
        m.submodules.done = done_cells = Memory(shape=64, depth=self._max_ply, init=[])
        ctx_read = context.read_port(domain="comb")
        ctx_write = context.write_port()
        done_read = done_cells.read_port(domain="comb")
        done_write = done_cells.write_port()

        # Stage A (the request cycle): arbitration across cells. Stage B: the attacker.
        busy = Signal()         # a request is in stage B
        # The cells see the side to move through a register, so that all their logic hangs off
        # registers (in simulation it is then evaluated once per clock, not on every input
        # change). A change of board or side takes two cycles to reach the cells' outputs.
        side = Signal()
        changing = Signal()
        changed = Signal()
        m.d.comb += changing.eq((self.halfmove.valid & self.halfmove.ready) | (self.side != side))
        m.d.sync += [side.eq(self.side), changed.eq(changing)]

        m.d.comb += [
            self.halfmove.ready.eq(~busy),
            cells.halfmove.valid.eq(self.halfmove.valid & ~busy),
            cells.halfmove.payload.eq(self.halfmove.payload),
            cells.side.eq(side),
            self.request.ready.eq(~busy & ~self.halfmove.valid & ~changing & ~changed),
            self.in_check.eq(cells.king_attacked.bit_select(side, 1)),
            self.king_attacked.eq(cells.king_attacked),
            self.attacks[0].eq(cells.attacks[0]),
            self.attacks[1].eq(cells.attacks[1]),
            self.board.eq(cells.board),
        ]
        for unit, names in ((arbiter, ("victim", "safe", "movable", "movable_captures", "en_passant")),
                            (attacker, ("slots", "victim", "safe", "empty", "en_passant"))):
            for name in names:
                source, sink = getattr(cells, name), getattr(unit, name)
                if isinstance(source, list):
                    m.d.comb += [s.eq(c) for s, c in zip(sink, source)]
                else:
                    m.d.comb += sink.eq(source)

        # --- stage A: the best cell this ply has not finished ---------------------------------
        req = self.request.payload
        captures = Signal()
        m.d.comb += captures.eq((req.mode == GenMode.CAPTURES) & ~self.in_check)
        m.d.comb += [ctx_read.addr.eq(req.ply), done_read.addr.eq(req.ply)]
        fresh = Signal()
        m.d.comb += fresh.eq((req.op == GenOp.FIRST) | ~ctx_read.data.started)
        ctx = Signal(Context)
        done = Signal(64)
        with m.If(fresh):
            m.d.comb += [ctx.started.eq(1), ctx.promotion_rank.eq(3)]
        with m.Else():
            m.d.comb += [ctx.eq(ctx_read.data), done.eq(done_read.data)]
        m.d.comb += [
            arbiter.done.eq(done),
            arbiter.en_passant_done.eq(ctx.en_passant_done),
            arbiter.captures.eq(captures),
        ]

        b_op = Signal(GenOp)
        b_ply = Signal(range(self._max_ply))
        b_found = Signal()
        b_square = Signal(6)
        b_ep_cell = Signal()
        b_ctx = Signal(Context)
        b_done = Signal(64)
        b_captures = Signal()
        b_query = Signal.like(req.move)
        taken = self.request.valid & self.request.ready
        is_legal = req.op == GenOp.LEGAL
        m.d.sync += busy.eq(taken)
        with m.If(taken):
            m.d.sync += [
                b_op.eq(req.op),
                b_ply.eq(req.ply),
                b_found.eq(arbiter.found),
                b_square.eq(Mux(is_legal, req.move.to_sq ^ Mux(side, 56, 0), arbiter.square)),
                b_ep_cell.eq(~is_legal & arbiter.en_passant_cell),
                b_ctx.eq(ctx),
                b_done.eq(done),
                b_captures.eq(~is_legal & captures),
                b_query.eq(req.move),
            ]

        # --- stage B: the attacker in that cell; the ply's context moves on ---------------------
        checking = b_op == GenOp.LEGAL
        m.d.comb += [
            attacker.side.eq(side),
            attacker.square.eq(b_square),
            attacker.en_passant_cell.eq(b_ep_cell),
            attacker.slot_floor.eq(Mux(checking, 0, b_ctx.slot)),
            attacker.captures.eq(b_captures),
            attacker.check.eq(checking),
            attacker.query.eq(b_query),
            attacker.promotion_rank.eq(b_ctx.promotion_rank),
        ]
        found = Signal()
        m.d.comb += found.eq(attacker.found & (checking | b_found))
        m.d.sync += self.response.valid.eq(busy)
        with m.If(busy):
            m.d.sync += [
                self.response.payload.found.eq(found),
                self.response.payload.move.eq(attacker.move),
                self.response.payload.key.eq(attacker.key),
                self.response.payload.piece.eq(attacker.piece),
                self.response.payload.victim.eq(attacker.victim_code),
            ]
        # After a move: the same slot again with the next promotion piece (capture-only mode:
        # only capture-promotions get more than the queen), else the next slot of the cell,
        # else the cell is finished.
        next_ctx = Signal(Context)
        next_done = Signal(64)
        more_promotions = Signal()
        m.d.comb += more_promotions.eq(attacker.promotion & (b_ctx.promotion_rank != 0)
                                       & (~b_captures | attacker.move.flags.capture))
        m.d.comb += [next_ctx.eq(b_ctx), next_done.eq(b_done)]
        with m.If(more_promotions):
            m.d.comb += [next_ctx.slot.eq(attacker.slot),
                         next_ctx.promotion_rank.eq(b_ctx.promotion_rank - 1)]
        with m.Elif(attacker.more):
            m.d.comb += [next_ctx.slot.eq(attacker.slot + 1), next_ctx.promotion_rank.eq(3)]
        with m.Else():
            m.d.comb += [next_ctx.slot.eq(0), next_ctx.promotion_rank.eq(3)]
            with m.If(b_ep_cell):
                m.d.comb += next_ctx.en_passant_done.eq(1)
            with m.Else():
                m.d.comb += next_done.eq(b_done | (Const(1, 1) << b_square))
        writing = Signal()
        m.d.comb += writing.eq(busy & ~checking & (found | (b_op == GenOp.FIRST)))
        m.d.comb += [
            ctx_write.addr.eq(b_ply), ctx_write.en.eq(writing),
            ctx_write.data.eq(Mux(found, next_ctx, b_ctx)),
            done_write.addr.eq(b_ply), done_write.en.eq(writing),
            done_write.data.eq(Mux(found, next_done, b_done)),
        ]
        return m
