"""Inside the winning cell: the best untried attacker, its origin, the move word and key."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import MoveWord, PieceType
from .arbiter import centrality_of
from .bitboard import at_least_one_two, lowest_onehot, msb_index, onehot_index, or_all, plane, registered
from .cells import CheckPlanes, EnPassantCell, legal_slot, may_check
from .geometry import (
    DIRECTIONS,
    PROMOTING_SLOTS,
    PROMOTION_ORDER,
    SLOT_COUNT,
    SLOT_INDEX,
    SLOTS,
    TOP_PROMOTION,
    ray_squares,
)
from .layouts import GenConfig, GenMode, MoveKey, Variant, VictimOrder, victim_priority

__all__ = ["AttackerSelect"]

E1 = 4
CASTLE = SLOT_INDEX["castle"]
DOUBLE_PUSH = SLOT_INDEX["pawn_double_push"]
DIRECTION_INDEX = {(df, dr): i for i, (_, df, dr) in enumerate(DIRECTIONS)}


def _backward_rays():
    """ROM contents: entry ``dir * 64 + sq`` is the squares back from ``sq`` against ``dir``."""
    return [sum(1 << s for s in ray_squares(sq, -df, -dr)) for _, df, dr in DIRECTIONS for sq in range(64)]


def _sign_code(value):
    """2 bits: 0 for zero, 1 for positive, 2 for negative (no arithmetic, so no DSP)."""
    return Cat(value.any() & ~value[-1], value[-1])


def _direction_table():
    """The direction index of each (file sign code, rank sign code) pair."""
    sign = {0: 0, 1: 1, 2: -1, 3: 0}
    return [DIRECTION_INDEX.get((sign[code & 3], sign[code >> 2]), 0) for code in range(16)]


class AttackerSelect(wiring.Component):
    """The move of one destination cell: its first open slot (NEXT) or a given origin (LEGAL).

    Two pipeline stages: the inputs of cycle t give the outputs of cycle t+1 (the cells'
    outputs must hold still across both). The first reads the cell's 37 slot bits; in ``pick``
    mode it takes the first open slot at or after ``slot_floor`` (a static priority encoder:
    least valuable attacker first); in ``check`` mode the slot that leads from
    ``query.from_sq`` to the cell. A slot's origin is a fixed offset back from the cell, or for
    a slider the first occupied square back along its ray (the first stage chooses the ray;
    the second looks it up in a ROM of rays and searches it with a priority encoder). The
    second stage builds the absolute move word, its key and the piece codes, and says whether
    the move may give check (:func:`~.cells.may_check` of the slot taken, at the cell).

    Interface attributes
    --------------------
    slots, evading, victim, safe, empty, en_passant, checks : In, from ``SquareCells``.
    destinations : In(plane), the cells whose board slots are moves (all but under antichess's
        capture rule: ``MoveGenerator``); the en-passant cell's slots always are.
    side : In(1).
    square : In(6), the destination (mover's frame).
    en_passant_cell : In(1), the destination is the en-passant cell (``pick`` mode).
    slot_floor : In, the first slot ``pick`` may take.
    mode : In(GenMode), the ply's: a quiet cell (not the en-passant cell) offers only its
        promoting push (CAPTURES), and its moves that may give check (CHECKS).
    check : In(1), ``check`` mode (the LEGAL query) instead of ``pick``.
    query : In(MoveWord), the move ``check`` looks for (absolute frame).
    promotion_rank : In(3), which promotion piece ``pick`` returns (4 queen .. 1 bishop, 0 the
        antichess king: ``PROMOTION_ORDER``).
    config : In(GenConfig): the key's victim field (``victim_priority``), and whether a
        promotion to a king is a move (antichess).
    found : Out(1), a move was picked, or the query is a move the generator would emit.
    move : Out(MoveWord); key : Out(MoveKey); piece, victim_code : Out(4).
    promotion : Out(1), the move is a promotion.
    slot : Out, the index of the slot taken.
    more : Out(1), ``pick`` mode: the cell has open slots after the one taken.
    may_check : Out(1), 0 when the move certainly gives no check (direct or discovered);
        castling, en passant and promotions always 1.
    """

    def __init__(self):
        super().__init__({
            "slots": In(64).array(SLOT_COUNT),
            "evading": In(64),
            "victim": In(64).array(7),
            "safe": In(64),
            "empty": In(64),
            "en_passant": In(EnPassantCell),
            "checks": In(CheckPlanes),
            "destinations": In(64),
            "side": In(1),
            "square": In(6),
            "en_passant_cell": In(1),
            "slot_floor": In(range(SLOT_COUNT + 1)),
            "mode": In(GenMode),
            "check": In(1),
            "query": In(MoveWord),
            "promotion_rank": In(3),
            "config": In(GenConfig),
            "found": Out(1),
            "move": Out(MoveWord),
            "key": Out(MoveKey),
            "piece": Out(4),
            "victim_code": Out(4),
            "promotion": Out(1),
            "slot": Out(range(SLOT_COUNT)),
            "more": Out(1),
            "may_check": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        sq = self.square
        ep = self.en_passant
        flip = Mux(self.side, 56, 0)

        # The cell's slot bits; the en-passant cell has only the two pawn captures.
        on_ep_square = Signal()
        m.d.comb += on_ep_square.eq(ep.valid & (ep.square == sq))
        use_ep = Signal()
        m.d.comb += use_ep.eq(Mux(self.check, on_ep_square, self.en_passant_cell))
        readout = Signal(SLOT_COUNT)
        evading_here = self.evading.bit_select(sq, 1)
        board_bits = Cat(*(legal_slot(i, self.slots[i].bit_select(sq, 1), evading_here) for i in range(SLOT_COUNT)))
        m.d.comb += readout.eq(Mux((self.en_passant_cell & ~self.check) | ~self.destinations.bit_select(sq, 1),
                                   0, board_bits)
                               | Mux(use_ep, ep.slots, 0))

        # What stands on the cell.
        victim_bits = Cat(*(self.victim[v].bit_select(sq, 1) for v in range(1, 7)))
        board_victim = Signal(3)
        m.d.comb += board_victim.eq(Cat(*(or_all(victim_bits[v - 1] for v in range(1, 7) if v >> k & 1)
                                          for k in range(3))))
        quiet = Signal()
        m.d.comb += quiet.eq(board_victim == 0)

        # The query's geometry (check mode): its step and, if it is a line, its direction.
        query_from = Signal(6)
        m.d.comb += query_from.eq(self.query.from_sq ^ flip)
        d_file = Signal(signed(4))
        d_rank = Signal(signed(4))
        m.d.comb += [d_file.eq(sq[0:3] - query_from[0:3]), d_rank.eq(sq[3:6] - query_from[3:6])]
        query_direction = Signal(3)
        m.d.comb += query_direction.eq(Array(Const(d, 3) for d in _direction_table())
                                       [Cat(_sign_code(d_file), _sign_code(d_rank))])

        # Whether each slot's move may give check (``cells.may_check``): the cells' seven planes
        # of it read at the cell (the discoverers once per step back to an origin).
        may_bits = Signal(SLOT_COUNT)
        m.d.comb += may_bits.eq(Cat(*(may_check(slot, self.checks, at=lambda bb: bb.bit_select(sq, 1))
                                      for slot in SLOTS)))

        # pick: the first open slot at or after the floor that the mode wants.
        allowed = Cat(*(self.slot_floor <= i for i in range(SLOT_COUNT)))
        promoting = Mux(sq[3:6] == 7, Const(1 << SLOT_INDEX["pawn_push"], SLOT_COUNT), 0)
        narrowed = Signal(SLOT_COUNT)   # a quiet cell's slots the mode wants
        m.d.comb += narrowed.eq(promoting | Mux(self.mode == GenMode.CHECKS, may_bits, 0))
        mode_mask = Mux((self.mode != GenMode.ALL) & quiet & ~self.en_passant_cell,
                        narrowed, Const((1 << SLOT_COUNT) - 1, SLOT_COUNT))
        open_slots = Signal(SLOT_COUNT)
        m.d.comb += open_slots.eq(readout & allowed & mode_mask)
        first_open = lowest_onehot(m, "first_open", open_slots)
        _, more = at_least_one_two(m, "open", list(open_slots))     # beside first_open, not after it

        # The one ray searched: the picked slot's direction, or the query's.
        picked_direction = or_all(Mux(first_open[i], DIRECTION_INDEX[s.step], 0)
                                  for i, s in enumerate(SLOTS) if s.kind == "ray")
        direction = Signal(3)
        m.d.comb += direction.eq(Mux(self.check, query_direction, picked_direction))

        # check: the slots with a fixed step that lead from the queried origin to this cell.
        fixed_matching = Signal(SLOT_COUNT)
        for i, slot in enumerate(SLOTS):
            df, dr = slot.step
            if slot.kind == "castle":
                m.d.comb += fixed_matching[i].eq(readout[i] & (query_from == E1))
            elif slot.kind != "ray":
                m.d.comb += fixed_matching[i].eq(readout[i] & (d_file == df) & (d_rank == dr))

        # --- the pipeline register: everything below is the second cycle ----------------------
        def hold(value, name):
            return registered(m, value, f"s2_{name}")

        occupied = hold(~self.empty, "occupied")
        direction = hold(direction, "direction")
        readout = hold(readout, "readout")
        may_bits = hold(may_bits, "may_bits")
        first_open = hold(first_open, "first_open")
        fixed_matching = hold(fixed_matching, "fixed_matching")
        query_direction = hold(query_direction, "query_direction")
        query_from = hold(query_from, "query_from")
        m.d.sync += self.more.eq(more)
        sq = hold(sq, "square")
        use_ep = hold(use_ep, "use_ep")
        quiet = hold(quiet, "quiet")
        board_victim = hold(board_victim, "victim")
        safe_here = hold(self.safe.bit_select(self.square, 1), "safe")
        check = hold(self.check, "check")
        query = Signal.like(self.query, name="s2_query")
        m.d.sync += query.eq(self.query)
        promotion_rank = hold(self.promotion_rank, "promotion_rank")
        side = hold(self.side, "side")
        antichess = hold(self.config.variant == Variant.ANTICHESS, "antichess")
        reversed_order = hold(self.config.victim_order == VictimOrder.LEAST_VALUABLE, "reversed_order")
        flip = Mux(side, 56, 0)

        m.submodules.rays = rays = Memory(shape=64, depth=8 * 64, init=_backward_rays())
        ray_port = rays.read_port(domain="comb")
        m.d.comb += ray_port.addr.eq(Cat(sq, direction))
        blockers = plane(m, "ray_blockers", ray_port.data & occupied)

        # Back along N, NE, E or NW the first piece has the next lower index, else the next higher.
        lowest = onehot_index(lowest_onehot(m, "ray_lowest", blockers))
        highest = msb_index(m, "ray_highest", blockers)
        going_up = Array(Const(8 * dr + df > 0, 1) for _, df, dr in DIRECTIONS)[direction]
        ray_origin = Signal(6)
        m.d.comb += ray_origin.eq(Mux(going_up, highest, lowest))

        matching = Signal(SLOT_COUNT)
        ray_matches = [readout[i] & (query_direction == DIRECTION_INDEX[slot.step]) & (ray_origin == query_from)
                       if slot.kind == "ray" else Const(0, 1) for i, slot in enumerate(SLOTS)]
        m.d.comb += matching.eq(fixed_matching | Cat(*ray_matches))

        chosen = Signal(SLOT_COUNT)
        m.d.comb += chosen.eq(Mux(check, matching, first_open))
        slot_index = Signal(range(SLOT_COUNT))
        m.d.comb += slot_index.eq(or_all(Mux(chosen[i], i, 0) for i in range(SLOT_COUNT)))
        is_ray = Signal()
        m.d.comb += is_ray.eq(or_all(chosen[i] for i, s in enumerate(SLOTS) if s.kind == "ray"))
        offset = Signal(6)      # (to - from) mod 64 of a fixed-step slot
        m.d.comb += offset.eq(or_all(Mux(chosen[i], (8 * s.step[1] + s.step[0]) % 64, 0)
                                     for i, s in enumerate(SLOTS) if s.kind not in ("ray", "castle")))
        origin = Signal(6)
        m.d.comb += origin.eq(Mux(is_ray, ray_origin, Mux(chosen[CASTLE], E1, (sq - offset)[:6])))

        # The move.
        en_passant = Signal()
        m.d.comb += en_passant.eq(use_ep & quiet & (chosen[0] | chosen[1]))
        promotion = Signal()
        m.d.comb += promotion.eq((sq[3:6] == 7) & or_all(chosen[i] for i in PROMOTING_SLOTS))
        promotion_piece = Signal(3)
        m.d.comb += promotion_piece.eq(Array(Const(PROMOTION_ORDER[TOP_PROMOTION - r], 3)
                                             for r in range(TOP_PROMOTION + 1))[promotion_rank])
        victim_type = Signal(3)
        m.d.comb += victim_type.eq(Mux(en_passant, PieceType.PAWN.value, board_victim))
        moving_type = Signal(3)
        m.d.comb += moving_type.eq(or_all(Mux(chosen[i], SLOTS[i].piece, 0) for i in range(SLOT_COUNT)))

        move = self.move
        m.d.comb += [
            move.from_sq.eq(origin ^ flip),
            move.to_sq.eq(sq ^ flip),
            move.promotion.eq(Mux(promotion, Mux(check, query.promotion.as_value(), promotion_piece), 0)),
            move.flags.capture.eq(victim_type != 0),
            move.flags.en_passant.eq(en_passant),
            move.flags.castle.eq(chosen[CASTLE]),
            move.flags.double_push.eq(chosen[DOUBLE_PUSH]),
            self.key.victim.eq(victim_priority(victim_type, reversed_order)),
            self.key.safe.eq(safe_here),
            self.key.centrality.eq(centrality_of(sq)),
            self.key.square.eq(sq),
            self.key.attacker.eq(SLOT_COUNT - 1 - slot_index),
            self.key.promotion_rank.eq(Mux(promotion, promotion_rank, TOP_PROMOTION)),
            self.piece.eq(Cat(moving_type, side)),
            self.victim_code.eq(Mux(victim_type != 0, Cat(victim_type, ~side), 0)),
            self.promotion.eq(promotion),
            self.slot.eq(slot_index),
            self.may_check.eq((may_bits & chosen).any() | promotion | en_passant),
        ]

        # A query is legal when a slot matches and its promotion and flags are the canonical ones.
        query_promotion = query.promotion.as_value()
        promotion_ok = Mux(promotion,
                           (query_promotion >= PieceType.KNIGHT.value) & (query_promotion <= PieceType.QUEEN.value)
                           | antichess & (query_promotion == PieceType.KING.value),
                           query_promotion == 0)
        flags_ok = query.flags.as_value() == move.flags.as_value()
        m.d.comb += self.found.eq(Mux(check, matching.any() & promotion_ok & flags_ok, first_open.any()))
        return m
