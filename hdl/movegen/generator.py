"""The move generator: square cells, priority arbiter, attacker select and per-ply context."""

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import HalfmovePair, MoveWord
from ..handshake import Pulse
from .arbiter import DestinationArbiter
from .attacker import AttackerSelect
from .bitboard import flip_ranks
from .cells import Planes, SquareCells
from .counter import MoveCounter
from .geometry import CHESS_PROMOTIONS, SLOT_COUNT, TOP_PROMOTION
from .layouts import Context, GenConfig, GenMode, GenOp, GenRequest, GenResponse, NextCell, Variant

__all__ = ["MoveGenerator", "GeneratorInterface"]


#: What the search asks of the generator, from the asking side (docs/architecture.md §4.2):
#: the rules and capture order (``config``, set per search), requests at a ply, their answers
#: (one cycle each, no back-pressure), the check flags (chess), the antichess flags and whether
#: a capture (or promotion) is open, and whether a capture, promotion or move that may give check is.
GeneratorInterface = wiring.Signature({
    "config": Out(GenConfig),
    "request": Out(stream.Signature(GenRequest)),
    "response": In(Pulse(GenResponse)),
    "captures_open": In(1),
    "checks_open": In(1),
    "in_check": In(1),
    "king_attacked": In(2),
    "forced": In(1),
    "moveless": In(1),
    "pinned": In(64),
})


class MoveGenerator(wiring.Component):
    """The move generator of docs/architecture.md §5.1.

    Keeps the board through ``halfmove`` and answers requests:

    * ``FIRST``/``NEXT`` at a ply: the best move (legal, but for en passant: ``SquareCells``)
      not yet returned at that ply (``FIRST`` starts the ply afresh), in ``ALL``, ``CAPTURES``
      or ``CHECKS`` mode. Moves come
      in strictly decreasing key order, each exactly once; ``found`` = 0 when the ply is
      exhausted. A ``NEXT`` that changes the ply's mode (a search node that starts pruning its
      late moves asks for CHECKS in the middle of an ALL ply) takes the rest of the current
      cell in the old mode, then arbitrates afresh, as ``FIRST`` does, among the cells the ply
      has not taken: the cells it has taken are not gone through again. Arbitrating reads
      the board for two more cycles: a request made as the board starts to change (the
      search's PREFETCH, with its MAKE) must not change the mode (``KEEP``). A ply's
      context (the cells it has taken, the cell it is emitting with its next slot and promotion
      piece, and the best cell after it) lives in small memories indexed by ply, so it survives
      any generation, make and unmake at other plies, as long as the position at the ply is
      the same when it resumes.
    * ``LEGAL``: whether ``move`` is a move the generator would emit here, flags included.
    * ``COUNT``: how many moves a fresh ply would emit in ALL mode, en passant aside (popcounts
      of the slot planes; ``MoveCounter``), and ``found`` when that is not the number of legal
      moves: there is an en-passant capture besides, or (``legal=False``) a piece is pinned, whose
      moves off its line are counted too. Then go through the moves. No context changes.

    ``legal=False`` builds the lean generator, for a board that cannot hold the legal one
    (docs/architecture.md §5.1): it leaves pins to the search (a pinned piece's moves off its
    line are emitted too, and the search makes and tests them as it does en passant); it counts
    a position without a pinned piece as the legal generator does. Its legal moves are the legal
    generator's in the same order, so a search takes the same nodes on either.

    How: the arbiter (two pipeline stages) finds a ply's best cell; the attacker select (two
    stages) takes the move inside a cell. ``FIRST`` runs both; after that the arbiter works one
    step ahead — in the cycle a ply enters a cell it starts looking for the cell after it — so
    ``NEXT`` runs only the attacker.

    ``side`` is the colour to move and ``search.config`` the rules (chess or antichess) and the
    capture order; neither may change while a request is in flight, and a change of either is
    waited for as a halfmove is. Check, attacked squares, the king-attacked flags and the
    antichess flags are continuous outputs.

    Timing (cycles from the request being taken to its one-cycle response): ``NEXT`` and
    ``LEGAL`` 2, ``FIRST`` (and a ``NEXT`` that changes the mode to leave its cell) 4, ``COUNT``
    ``COUNT_LATENCY`` + 1 (7); a new request is taken the cycle its predecessor's response
    comes out, so a ply yields one move every two cycles. ``halfmove`` is always taken, even while a
    request is in flight (a halfmove reaches the cells' outputs two cycles after it is taken,
    and every job reads them only in its stages' first cycles, the latest two cycles after the
    request); a request is taken from the second cycle after the last halfmove or change of
    ``side``, which is also when ``attacks``, ``king_attacked`` and ``in_check`` show the new
    position, and only if the request port showed its ply in the cycle before (a ply's context
    is read a cycle ahead: a request at a ply the port did not show waits a cycle). A NEXT in
    ``KEEP`` mode (the search's PREFETCH, offered with the MAKE that may follow an UNMAKE at
    once) is taken even while the board changes, and answers for the board and side as they
    stand at the end of its cycle: it is held until they reach the cells' outputs — two
    cycles after a halfmove or change of side in its own cycle, one after one in the cycle
    before — so its answer comes 2 + 2 or 2 + 1 cycles after it is taken, and the halfmoves
    taken meanwhile (the MAKE's) reach the outputs only after its job has read them. It must
    be at a ply that has started (a FIRST answered there), so that it never arbitrates afresh.

    Interface attributes
    --------------------
    halfmove : In(stream of HalfmovePair), one or two halfmoves a transfer.
    clear : In(1), empties the board (like a halfmove: not while a request is in flight).
    side : In(1).
    search : In(GeneratorInterface), the search's port: ``config`` (GenConfig), ``request``
        (stream of GenRequest), ``response`` (a Pulse of GenResponse), ``in_check`` (the side to
        move is in check), ``king_attacked`` (the white, the black king stands attacked; both
        always 0 in antichess, which has no check), ``forced`` and ``moveless`` (antichess: the
        side to move has a capture, has no move; always 0 in chess), ``captures_open`` (a FIRST
        in CAPTURES mode would find a move: a cell with a capture or promoting push, or an en
        passant; so a search need not ask), ``checks_open`` (the same for a FIRST in CHECKS mode: a
        cell with a capture, a promoting push or a move that may give check), ``pinned`` (the
        squares, absolute, of the pieces pinned to the king of the side to move as the last
        COUNT found them: the lean generator's moves from there may leave the king attacked, and
        were counted; always 0 for the legal generator).
    attacks : Out(array of 2 planes), squares attacked by white, by black.
    board : Out(Planes), the stored state, for tests.
    """

    def __init__(self, *, max_ply=64, legal=True):
        if not isinstance(max_ply, int) or max_ply < 1:
            raise TypeError(f"max_ply must be a positive integer, not {max_ply!r}")
        self._max_ply, self._legal = max_ply, bool(legal)
        super().__init__({
            "halfmove": In(stream.Signature(HalfmovePair)),
            "clear": In(1),
            "side": In(1),
            "search": In(GeneratorInterface),
            "attacks": Out(data.ArrayLayout(64, 2)),
            "board": Out(Planes),
        })

    @property
    def max_ply(self):
        return self._max_ply

    @property
    def legal(self):
        """Whether the moves are legal (en passant aside); else pins are left to the search."""
        return self._legal

    def elaborate(self, platform):
        m = Module()
        m.submodules.cells = cells = SquareCells(legal=self._legal)
        m.submodules.arbiter = arbiter = DestinationArbiter()
        m.submodules.attacker = attacker = AttackerSelect()
        m.submodules.counter = counter = MoveCounter()
        # Distributed RAM: each is read a cycle ahead into a register (below), which Yosys would
        # otherwise merge into a block RAM's read port, whose clock-to-out is the longer.
        distributed = {"ram_style": "distributed"}
        m.submodules.context = context = Memory(shape=Context, depth=self._max_ply, init=[], attrs=distributed)
        m.submodules.taken_cells = taken_cells = Memory(shape=64, depth=self._max_ply, init=[], attrs=distributed)
        m.submodules.next_cells = next_cells = Memory(shape=NextCell, depth=self._max_ply, init=[], attrs=distributed)
        ctx_read, ctx_write = context.read_port(domain="comb"), context.write_port()
        taken_read, taken_write = taken_cells.read_port(domain="comb"), taken_cells.write_port()
        next_read, next_write = next_cells.read_port(domain="comb"), next_cells.write_port()

        # The cells take the side to move into registers, as they take a halfmove (the board as
        # the mover sees it), so that all their logic hangs off registers (in simulation it is
        # then evaluated once per clock, not on every input change). A change of board or side
        # takes two cycles to reach the cells' outputs; ``side`` here is the cells' state's.
        side = Signal()
        config = Signal(GenConfig)
        changing = Signal()
        changed = Signal()
        m.d.comb += changing.eq(self.halfmove.valid | self.clear | (self.side != side)
                                | (self.search.config.as_value() != config.as_value()))
        m.d.sync += [side.eq(self.side), config.eq(self.search.config), changed.eq(changing)]
        # The cells' outputs in a cycle reflect the side of the cycle before: a job reads them
        # with that side (the current one, but for a held request's job: see ``keep_next``).
        cells_side = Signal()
        m.d.sync += cells_side.eq(side)
        antichess = Signal()
        m.d.comb += antichess.eq(config.variant == Variant.ANTICHESS)
        flip = Mux(cells_side, 56, 0)
        # A NEXT in KEEP mode (the search's PREFETCH) answers for the board as it stands at the
        # end of the cycle it is taken in, and may be taken while that board is still arriving:
        # it is held until the board reaches the cells' outputs (one cycle after a transfer the
        # cycle before, two after one in its own cycle), and halfmoves taken meanwhile (its
        # MAKE's) reach them only after its job has read them.
        keep_next = Signal()
        m.d.comb += keep_next.eq((self.search.request.payload.op == GenOp.NEXT)
                                 & (self.search.request.payload.mode == GenMode.KEEP))

        # Pipeline occupancy. The cells are read by the arbiter's and the attacker's first
        # stages: in the job's first cycle, and a FIRST's attacker stage two cycles later. A
        # halfmove taken in cycle t reaches the cells' outputs in t+2, and none is taken in a
        # request's cycle (the request waits; a held request's job starts two cycles after the
        # last halfmove of its board at the latest), so a halfmove never changes what a job reads.
        attacker_busy = Signal()        # a job in the attacker's second stage
        fresh_at_x2 = Signal()          # a fresh ply's arbitration in the arbiter's second stage
        fresh_at_s1 = Signal()          # ... and, its cell known, entering the attacker
        lookahead_at_x2 = Signal()
        held_wait = Signal(2)           # a held request's job starts in this many cycles (below)
        busy = Signal()
        ply_held = Signal()             # the request's ply was on the port a cycle before
        m.d.comb += busy.eq(attacker_busy | counter.busy | fresh_at_x2 | fresh_at_s1 | lookahead_at_x2
                            | (held_wait != 0))

        m.d.comb += [
            self.halfmove.ready.eq(1),
            cells.halfmove.valid.eq(self.halfmove.valid),
            cells.halfmove.payload.eq(self.halfmove.payload),
            cells.clear.eq(self.clear),
            cells.side.eq(self.side),
            cells.config.eq(config),
            arbiter.victim_order.eq(config.victim_order),
            attacker.config.eq(config),
            self.search.request.ready.eq(~busy & ply_held & (~changing & ~changed | keep_next)),
            self.search.in_check.eq(cells.king_attacked.bit_select(side, 1) & ~antichess),
            self.search.king_attacked.eq(Mux(antichess, 0, cells.king_attacked)),
            self.search.forced.eq(cells.forced),
            self.search.moveless.eq(cells.moveless),
            self.attacks[0].eq(cells.attacks[0]),
            self.attacks[1].eq(cells.attacks[1]),
            self.board.eq(cells.board),
        ]
        # Antichess's capture rule: with a capture open (``forced``) the side's moves are its
        # captures, so only the cells holding an enemy piece are destinations — the occupied
        # cells, as no slot opens onto an own piece (en passant, in its cell apart, stays).
        # Applied to the cells' registered planes here, one step after the cells' logic, rather
        # than to every slot plane inside it.
        destinations = Signal(64)
        movable_captures = Signal(64)
        captures_open = Signal()
        m.d.comb += captures_open.eq(movable_captures.any() | (cells.en_passant.valid & cells.en_passant.slots.any()))
        m.d.comb += [destinations.eq(Mux(cells.forced, ~cells.empty, Const(-1, 64))),
                     movable_captures.eq(cells.movable_captures & destinations)]
        m.d.comb += [
            arbiter.movable.eq(cells.movable & destinations),
            arbiter.movable_captures.eq(movable_captures),
            attacker.destinations.eq(destinations),
            # what the arbiter would find for a fresh CAPTURES ply (nothing done yet)
            self.search.captures_open.eq(captures_open),
            self.search.checks_open.eq(captures_open | cells.movable_checks.any()),
        ]
        for unit, names in ((arbiter, ("victim", "safe", "movable_checks", "en_passant")),
                            (attacker, ("slots", "evading", "victim", "safe", "empty", "en_passant", "checks"))):
            for name in names:
                source, sink = getattr(cells, name), getattr(unit, name)
                if isinstance(source, list):
                    m.d.comb += [s.eq(c) for s, c in zip(sink, source)]
                else:
                    m.d.comb += sink.eq(source)

        # --- the request cycle ------------------------------------------------------------------
        port = self.search.request.payload
        taken = Signal()
        m.d.comb += taken.eq(self.search.request.valid & self.search.request.ready)
        # A KEEP-mode NEXT taken before the board has settled is held (``keep_next`` above):
        # its job starts when the board of its cycle has reached the cells' outputs.
        holding = Signal()
        m.d.comb += holding.eq(taken & keep_next & (changing | changed))
        held_ply = Signal(range(self._max_ply))     # a held request is a KEEP-mode NEXT: its ply
        held_due = Signal()             # the held request's job starts now
        m.d.comb += held_due.eq(held_wait == 1)
        with m.If(holding):
            m.d.sync += [held_ply.eq(port.ply), held_wait.eq(Mux(changing, 2, 1))]
        with m.Elif(held_wait != 0):
            m.d.sync += held_wait.eq(held_wait - 1)
        # The request whose job starts now (``starting``): the port's, or the held one (whose
        # move is never read: the LEGAL query's path into the attacker has no multiplexer).
        req = Signal(GenRequest)
        starting = Signal()
        m.d.comb += [req.eq(port), starting.eq(taken & ~holding | held_due)]
        with m.If(held_due):
            m.d.comb += [req.op.eq(GenOp.NEXT), req.mode.eq(GenMode.KEEP), req.ply.eq(held_ply)]
        # The ply's context, taken cells and next cell as read at the request's ply in the
        # cycle before, the writes of that cycle forwarded: the memories' reads stay off the
        # request's path into the job and the attacker. A request is taken only when its ply
        # was on the port a cycle before (``ply_held``) -- as the search's always are: its ply
        # changes with the side to move, which the generator waits two cycles for anyway. A
        # request held for two cycles has its ply read in the second.
        read_addr = Signal(range(self._max_ply))
        m.d.comb += read_addr.eq(Mux(held_wait == 2, held_ply, port.ply))
        m.d.comb += [ctx_read.addr.eq(read_addr), taken_read.addr.eq(read_addr), next_read.addr.eq(read_addr)]
        def read_ahead(read, write, shape, name):
            ahead = Signal(shape, name=name)
            m.d.sync += ahead.eq(Mux(write.en & (write.addr == read_addr), write.data, read.data))
            return ahead

        read_ply = Signal(range(self._max_ply))
        m.d.sync += read_ply.eq(read_addr)
        m.d.comb += ply_held.eq(read_ply == port.ply)
        ctx = read_ahead(ctx_read, ctx_write, Context, "ctx")
        nxt = read_ahead(next_read, next_write, NextCell, "nxt")
        taken_cells_read = read_ahead(taken_read, taken_write, 64, "taken_cells_read")
        mode = Signal(GenMode)          # the request's mode (KEEP: the ply's); ALL while in check
        m.d.comb += mode.eq(Mux(req.mode == GenMode.KEEP, ctx.mode,
                                Mux(self.search.in_check, GenMode.ALL, req.mode)))
        is_legal = req.op == GenOp.LEGAL
        is_count = req.op == GenOp.COUNT
        # A started ply goes on in its current cell (in the mode it entered it in), else in the
        # cell found one step ahead -- unless the mode changes: then the cell after is arbitrated
        # afresh among the cells the ply has not taken (``switching``).
        stay = Signal()
        m.d.comb += stay.eq(ctx.more)
        switching = Signal()
        m.d.comb += switching.eq((req.op == GenOp.NEXT) & ctx.started & ~ctx.more & (mode != ctx.mode))
        fresh = Signal()        # the ply starts, or switches: its next cell must be arbitrated
        m.d.comb += fresh.eq(~is_legal & ~is_count & ((req.op == GenOp.FIRST) | ~ctx.started | switching))

        # A job for the attacker: from the request cycle, or from a fresh ply's arbitration.
        Job = data.StructLayout({
            "op": GenOp, "ply": range(self._max_ply), "valid_cell": 1, "square": 6,
            "en_passant_cell": 1, "slot": range(SLOT_COUNT + 1), "promotion_rank": 3, "mode": GenMode,
            "taken": 64, "en_passant_done": 1, "query": MoveWord,
        })
        job = Signal(Job)             # entering the attacker this cycle
        job_valid = Signal()
        fresh_job = Signal(Job)       # a fresh ply waiting for its arbitration
        next_cell_taken = Signal(64)
        m.d.comb += next_cell_taken.eq(taken_cells_read | Mux(nxt.en_passant_cell, 0, Const(1, 1) << nxt.square))
        # Only the valid bit waits for the handshake: the job's fields follow the request port
        # whether or not it is taken, which keeps the handshake off the data path.
        m.d.comb += job_valid.eq(fresh_at_s1 | (starting & ~fresh & ~is_count))
        with m.If(fresh_at_s1):
            m.d.comb += job.eq(fresh_job)
        with m.Else():
            m.d.comb += [
                job.op.eq(req.op), job.ply.eq(req.ply),
                job.mode.eq(Mux(is_legal, GenMode.ALL, Mux(stay, ctx.mode, mode))),
                job.query.eq(req.move),
                job.promotion_rank.eq(Mux(stay, ctx.promotion_rank, TOP_PROMOTION)),
                job.slot.eq(Mux(stay & ~is_legal, ctx.slot, 0)),
            ]
            with m.If(is_legal):
                m.d.comb += [job.valid_cell.eq(1), job.square.eq(req.move.to_sq ^ flip)]
            with m.Elif(stay):
                m.d.comb += [job.valid_cell.eq(1), job.square.eq(ctx.current),
                             job.en_passant_cell.eq(ctx.current_en_passant),
                             job.taken.eq(taken_cells_read), job.en_passant_done.eq(ctx.en_passant_done)]
            with m.Else():
                m.d.comb += [job.valid_cell.eq(nxt.found), job.square.eq(nxt.square),
                             job.en_passant_cell.eq(nxt.en_passant_cell), job.taken.eq(next_cell_taken),
                             job.en_passant_done.eq(ctx.en_passant_done | nxt.en_passant_cell)]
        m.d.comb += [
            attacker.side.eq(cells_side),
            attacker.square.eq(job.square),
            attacker.en_passant_cell.eq(job.en_passant_cell & (job.op != GenOp.LEGAL)),
            attacker.slot_floor.eq(job.slot),
            attacker.mode.eq(job.mode),
            attacker.check.eq(job.op == GenOp.LEGAL),
            attacker.query.eq(job.query),
            attacker.promotion_rank.eq(job.promotion_rank),
        ]

        # --- the arbiter: a fresh ply's first cell, or a ply's next cell one step ahead ---------
        # A job that enters a new cell starts, in the same cycle, the search for the cell after
        # it, so the answer is in the ply's context by the time the ply can ask again.
        entering_new_cell = Signal()
        m.d.comb += entering_new_cell.eq(job_valid & (job.op != GenOp.LEGAL) & job.valid_cell
                                         & (fresh_at_s1 | ~stay))
        launch_fresh = Signal()
        m.d.comb += launch_fresh.eq(starting & fresh)
        # A switching ply keeps the cells it has taken.
        kept_taken = Signal(64)
        kept_en_passant_done = Signal()
        m.d.comb += [kept_taken.eq(Mux(switching, taken_cells_read, 0)),
                     kept_en_passant_done.eq(switching & ctx.en_passant_done)]
        with m.If(fresh & ~fresh_at_s1):       # (not gated by the handshake: see the job above)
            m.d.comb += [arbiter.done.eq(kept_taken), arbiter.en_passant_done.eq(kept_en_passant_done),
                         arbiter.mode.eq(mode)]
        with m.Else():
            m.d.comb += [arbiter.done.eq(job.taken), arbiter.en_passant_done.eq(job.en_passant_done),
                         arbiter.mode.eq(job.mode)]
        x2_ply = Signal(range(self._max_ply))     # the ply the arbiter's second stage answers
        m.d.sync += [fresh_at_x2.eq(launch_fresh), lookahead_at_x2.eq(entering_new_cell)]
        with m.If(launch_fresh):
            m.d.sync += [x2_ply.eq(req.ply),
                         fresh_job.op.eq(req.op), fresh_job.ply.eq(req.ply), fresh_job.mode.eq(mode),
                         fresh_job.slot.eq(0), fresh_job.promotion_rank.eq(TOP_PROMOTION), fresh_job.query.eq(req.move),
                         fresh_job.taken.eq(kept_taken), fresh_job.en_passant_done.eq(kept_en_passant_done)]
        with m.Elif(entering_new_cell):
            m.d.sync += x2_ply.eq(job.ply)

        # A fresh ply's cell is known: it enters the attacker next cycle.
        m.d.sync += fresh_at_s1.eq(fresh_at_x2)
        with m.If(fresh_at_x2):
            m.d.sync += [fresh_job.valid_cell.eq(arbiter.found), fresh_job.square.eq(arbiter.square),
                         fresh_job.en_passant_cell.eq(arbiter.en_passant_cell),
                         fresh_job.taken.eq(fresh_job.taken
                                            | Mux(arbiter.en_passant_cell, 0, Const(1, 1) << arbiter.square)),
                         fresh_job.en_passant_done.eq(fresh_job.en_passant_done | arbiter.en_passant_cell)]
        # A fresh ply with nothing to emit, and every look-ahead, leave their answer for the ply.
        m.d.comb += [
            next_write.addr.eq(x2_ply),
            next_write.en.eq(lookahead_at_x2 | (fresh_at_x2 & ~arbiter.found)),
            next_write.data.found.eq(arbiter.found & lookahead_at_x2),
            next_write.data.square.eq(arbiter.square),
            next_write.data.en_passant_cell.eq(arbiter.en_passant_cell),
        ]

        # --- the attacker's second stage: the answer, and the ply's context moves on ----------
        b_job = Signal(Job)
        m.d.sync += [attacker_busy.eq(job_valid), b_job.eq(job)]
        checking = b_job.op == GenOp.LEGAL
        found = Signal()
        m.d.comb += found.eq(attacker.found & b_job.valid_cell)
        m.d.sync += self.search.response.valid.eq(attacker_busy | counter.done)
        with m.If(attacker_busy):
            m.d.sync += [
                self.search.response.payload.found.eq(found),
                self.search.response.payload.move.eq(attacker.move),
                self.search.response.payload.key.eq(attacker.key),
                self.search.response.payload.piece.eq(attacker.piece),
                self.search.response.payload.victim.eq(attacker.victim_code),
                self.search.response.payload.may_check.eq(attacker.may_check),
                self.search.response.payload.count.eq(0),
            ]
        # COUNT: the moves of a fresh ply (MoveCounter, a rank a cycle); busy until it is done.
        # The lean cells' slots are the legal moves when no piece is pinned; the pinned pieces
        # are kept, for the search to test their moves only.
        pinned = Signal(64)
        m.d.comb += pinned.eq(0 if self._legal else Mux(side, flip_ranks(cells.pinned), cells.pinned))
        with m.If(taken & is_count):
            m.d.sync += self.search.pinned.eq(pinned)
        m.d.comb += [counter.load.eq(taken & is_count), counter.en_passant.eq(cells.en_passant),
                     counter.pinned.eq(pinned.any()),
                     counter.antichess.eq(antichess), counter.destinations.eq(destinations),
                     counter.evading.eq(cells.evading),
                     *(counter.slots[i].eq(cells.slots[i]) for i in range(SLOT_COUNT))]
        with m.If(counter.done):
            m.d.sync += [
                self.search.response.payload.eq(0),
                self.search.response.payload.found.eq(counter.inexact),
                self.search.response.payload.count.eq(counter.count),
            ]

        # After a move: the same slot again with the next promotion piece (capture-only mode:
        # only capture-promotions get more than the queen; the king only in antichess), else
        # the next slot of the cell.
        last_promotion = Mux(antichess, 0, TOP_PROMOTION + 1 - CHESS_PROMOTIONS)
        more_promotions = Signal()
        m.d.comb += more_promotions.eq(attacker.promotion & (b_job.promotion_rank != last_promotion)
                                       & ((b_job.mode != GenMode.CAPTURES) | attacker.move.flags.capture))
        next_ctx = Signal(Context)
        m.d.comb += [
            next_ctx.started.eq(1),
            next_ctx.mode.eq(b_job.mode),
            next_ctx.en_passant_done.eq(b_job.en_passant_done),
            next_ctx.current.eq(b_job.square),
            next_ctx.current_en_passant.eq(b_job.en_passant_cell),
            next_ctx.more.eq(found & (more_promotions | attacker.more)),
            next_ctx.slot.eq(Mux(more_promotions, attacker.slot, attacker.slot + 1)),
            next_ctx.promotion_rank.eq(Mux(more_promotions, b_job.promotion_rank - 1, TOP_PROMOTION)),
        ]
        writing = Signal()      # a move was found, or a fresh ply turned out empty
        m.d.comb += writing.eq(attacker_busy & ~checking & (found | ~b_job.valid_cell & (b_job.op == GenOp.FIRST)))
        m.d.comb += [
            ctx_write.addr.eq(b_job.ply), ctx_write.en.eq(writing), ctx_write.data.eq(next_ctx),
            taken_write.addr.eq(b_job.ply), taken_write.en.eq(writing), taken_write.data.eq(b_job.taken),
        ]
        return m
