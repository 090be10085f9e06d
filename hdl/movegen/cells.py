"""The 64 square cells: board state, ray network, candidate moves and square safety."""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..encoding import MARKER, HalfmoveOp, HalfmovePair, PieceType
from .bitboard import (
    RANKS,
    at_least_one_two,
    flip_ranks,
    onehot_index,
    or_all,
    plane,
    ray_reach,
    shift,
    square_mask,
)
from .geometry import DIRECTIONS, SLOT_COUNT, SLOT_INDEX, SLOTS
from .layouts import GenConfig, Variant, safe_field

__all__ = ["SquareCells", "BoardPlanes", "Planes", "EnPassantCell", "PLANE_NAMES", "CheckPlanes", "may_check",
           "EVADING_SLOTS", "legal_slot"]

#: The board as it is stored: bit ``s`` of plane ``k`` is bit ``k`` of the piece code on square
#: ``s`` (``type0..type2``, ``colour``), and ``markers`` holds the marker of each square.
Planes = data.StructLayout({
    "type0": 64, "type1": 64, "type2": 64, "colour": 64, "markers": 64,
})
PLANE_NAMES = ("type0", "type1", "type2", "colour", "markers")

#: The virtual 65th cell: en-passant captures land on an empty square, so they are kept apart
#: from the quiet moves to that square (their keys differ: the victim is a pawn).
EnPassantCell = data.StructLayout({
    "valid": 1,            # the side to move has an en-passant target on its sixth rank
    "square": 6,           # the target, mover's frame
    "slots": 2,            # pawn_x_from_sw, pawn_x_from_se
    "safe": 1,
})

#: What decides whether a move may give check (mover's frame): the squares from which a piece of
#: each kind would attack the enemy king (a queen: ``diagonal`` or ``straight``; a king never),
#: the own pieces that may unmask a line to it (``discoverers``: alone between the king and an
#: own slider of the line), and per slider type whether some discoverer is of that type.
CheckPlanes = data.StructLayout({
    "pawn": 64, "knight": 64, "diagonal": 64, "straight": 64, "discoverers": 64,
    "unmasking": data.StructLayout({"bishop": 1, "rook": 1, "queen": 1}),
})

_UNMASKING = {PieceType.BISHOP.value: "bishop", PieceType.ROOK.value: "rook", PieceType.QUEEN.value: "queen"}


def may_check(slot, checks, at=None):
    """Where the move of ``slot`` (a ``geometry.Slot``) may give check, from ``checks`` (a
    :data:`CheckPlanes`): its piece on the destination would attack the king, or its origin holds
    a discoverer (a slider's: some discoverer is of its type); castling always may. A plane of
    destinations; or, with ``at`` (a plane -> its bit at one square), that square's bit."""
    bit_of = at or (lambda bb: bb)
    everywhere = (lambda bit: bit) if at else (lambda bit: Mux(bit, Const(-1, 64), 0))
    if slot.kind == "castle":
        return everywhere(Const(1, 1))
    direct = {PieceType.PAWN.value: [checks.pawn], PieceType.KNIGHT.value: [checks.knight],
              PieceType.BISHOP.value: [checks.diagonal], PieceType.ROOK.value: [checks.straight],
              PieceType.QUEEN.value: [checks.diagonal, checks.straight], PieceType.KING.value: []}[slot.piece]
    parts = [bit_of(bb) for bb in direct]
    if slot.kind == "ray":
        parts.append(everywhere(checks.unmasking[_UNMASKING[slot.piece]]))
    else:
        parts.append(bit_of(shift(checks.discoverers, *slot.step)))
    return or_all(parts)


#: The slots whose moves ``SquareCells.slots`` holds before the check evasion: those of the
#: pieces other than the king (the king's squares, and castling, are decided in the cells).
EVADING_SLOTS = frozenset(i for i, slot in enumerate(SLOTS) if slot.piece != PieceType.KING.value)


def legal_slot(index, slots, evading):
    """The legal moves of slot ``index`` from the cells' ``slots`` (its plane, or a cell's bit
    of it) and ``evading`` (the plane, or that cell's bit): a piece other than the king lands
    only on an evading square."""
    return slots & evading if index in EVADING_SLOTS else slots


E1, F1, G1, C1, D1, B1, A1, H1 = 4, 5, 6, 2, 3, 1, 0, 7


class BoardPlanes(wiring.Component):
    """The board as bit planes (:data:`Planes`), changed by one or two halfmoves per cycle (a
    :data:`HalfmovePair`, applied in order): a transfer presented in cycle t is in ``board``
    from t+1; so is ``clear`` (every plane empty).

    Interface attributes
    --------------------
    halfmove : In(stream of HalfmovePair), always ready.
    clear : In(1), empties the board (a transfer in the same cycle is lost).
    board : Out(Planes).
    upcoming : Out(Planes), what ``board`` holds in the next cycle (this cycle's transfer or
        ``clear`` applied), for registers that follow the board.
    """

    halfmove: In(stream.Signature(HalfmovePair, always_ready=True))
    clear: In(1)
    board: Out(Planes)
    upcoming: Out(Planes)

    def elaborate(self, platform):
        m = Module()
        transfer = self.halfmove.payload
        # One register per plane (not one wide register), so that simulation updates whole words.
        for name in PLANE_NAMES:
            stored = Signal(64, name=f"plane_{name}")
            after_first = self.apply(m, f"{name}_first", stored, name, transfer.first)
            after_both = self.apply(m, f"{name}_second", after_first, name, transfer.second)
            upcoming = getattr(self.upcoming, name)
            with m.If(self.clear):
                m.d.comb += upcoming.eq(0)
            with m.Elif(self.halfmove.valid):
                m.d.comb += upcoming.eq(Mux(transfer.both, after_both, after_first))
            with m.Else():
                m.d.comb += upcoming.eq(stored)
            m.d.sync += stored.eq(upcoming)
            m.d.comb += getattr(self.board, name).eq(stored)
        return m

    @staticmethod
    def apply(m, name, stored, plane_name, halfmove):
        """Plane ``plane_name`` (one of :data:`PLANE_NAMES`: a bit of the piece code, or the
        markers), as ``stored``, after ``halfmove``."""
        k = PLANE_NAMES.index(plane_name)
        square_bit = Signal(64, name=f"square_bit_{name}")
        m.d.comb += square_bit.eq(Const(1, 1) << halfmove.square)
        is_marker = halfmove.piece.as_value() == MARKER
        placing = halfmove.op == HalfmoveOp.PLACE
        if plane_name == "markers":
            setting, touched = placing, is_marker
        else:
            setting, touched = placing & halfmove.piece.as_value()[k], ~is_marker
        after = Signal(64, name=f"after_{name}")
        m.d.comb += after.eq(Mux(touched, Mux(setting, stored | square_bit, stored & ~square_bit), stored))
        return after


def _line_sliders(pieces_of, df, dr):
    """The pieces of ``pieces_of`` (type -> plane) that slide along direction (df, dr): bishops
    and queens on a diagonal, rooks and queens on a file or rank."""
    return pieces_of[3 if df != 0 and dr != 0 else 4] | pieces_of[5]


def _king_lines(m, prefix, king, own, slider_rays, empty):
    """Per direction from the ``king`` plane: ``(df, dr, ray, shield)``, the ray up to and
    including its first piece, and that piece if it is one of ``own`` with a slider of the
    line's kind next behind it (0 otherwise): a discoverer from the enemy king, a pinned piece
    from the own king. ``slider_rays`` (direction -> plane) are the squares the sliders behind
    reach travelling that way, first piece included: the slider behind the shield is the one
    whose ray coming back towards the king stops on it (no second fill through the shield)."""
    for name, df, dr in DIRECTIONS:
        ray = ray_reach(m, f"{prefix}_ray_{name}", king, empty, df, dr)
        yield df, dr, ray, plane(m, f"{prefix}_shield_{name}", ray & own & slider_rays[-df, -dr])


class SquareCells(wiring.Component):
    """Board state and the combinational network of the 64 square cells.

    Each cell holds its square's 4-bit piece code and marker, changed only by halfmoves. Seen
    from the side to move (the mover's frame, see ``geometry``), each cell computes:

    * its **slots**: which of the 37 ways a move can arrive at it are open (origin holds the
      right own piece, the cell is empty or enemy, a slider's path is empty) — sliders through
      ray chains in the 8 directions, knights, kings and pawns through fixed neighbour wiring —
      and legal: the move leaves the own king unattacked (pins, check evasions, the king's
      destinations; ``_legal``), en passant excepted (its cell is apart). The check evasion
      is applied after the registers: a piece other than the king (:data:`EVADING_SLOTS`) moves
      only onto an ``evading`` cell (:func:`legal_slot`), a plane that depends on the whole
      board's checks, so that it is the last step before a register (the movable planes) or
      after one (the attacker, the counter) rather than before the OR of every slot plane.
      With ``legal=False`` (the smaller build) pins are not decided: a pinned piece's moves
      off its line are emitted too, for the search to make and test as it does en passant (the
      pins are half of the legality logic and rare in a search; check evasions and the king's
      squares are common);
    * its **victim** (the enemy piece type on it) and **safety** (no enemy piece attacks it; in
      antichess, for an empty square but the en-passant one, the other way round: an offer);
    * the **attacks** on it by each colour, and so whether each king is attacked;
    * whether a move may give check (``checks``, :data:`CheckPlanes`; :func:`may_check` says it
      per slot): the piece on the cell would attack the enemy king (the board as it stands), or
      its origin may unmask a line to it (an own piece alone between the enemy king and an own
      slider; for a slider slot, some such piece is of its type); castling always may. Seven
      planes, where a plane per slot would be 37 for the attacker to gather from the board.

    In antichess (``config.variant``) the king is an ordinary piece: the slots are the
    pseudo-legal moves (``_legal`` has no own king to keep safe), castling is closed, no move
    may give check, and when the side to move has a capture (``forced``: a capture slot open,
    or an en passant) only its captures are moves: the slot planes and ``movable`` still hold
    every open slot, and the generator keeps only the cells that hold an enemy piece (its
    ``destinations``), one step after these registers rather than on all the slot planes
    before them.

    Latency: a transfer (one or two halfmoves) or a change of ``side`` presented in cycle t is
    in the cells' state at t+1 — the board, and the board as the mover sees it (its own and
    the enemy pieces, flipped for Black: registers, so that the side's fan-out and the flip are
    not on the network's paths) — and every output, registered, reflects that state from t+2.

    Interface attributes
    --------------------
    halfmove : In(stream) of ``HalfmovePair``; always ready (the owner gates ``valid``).
    clear : In(1), empties the board (as a halfmove, in the board the next cycle).
    side : In(1), the colour to move (1 = black); the mover's frame follows it (a cycle later,
        as the board follows a halfmove).
    config : In(GenConfig), the rules (only ``variant`` matters here).
    slots : Out(SLOT_COUNT planes), mover's frame: legal once masked with ``evading``
        (:func:`legal_slot`).
    evading : Out(plane), mover's frame: where a piece other than the king may land (all cells
        but in check: the checker and its line's squares; none in double check).
    victim : Out(7 planes): [0] empty cells, [v] cells holding an enemy of type v.
    safe : Out(plane), mover's frame.
    empty : Out(plane), mover's frame.
    movable : Out(plane), cells with at least one open slot (antichess's capture rule aside).
    movable_captures : Out(plane), cells with a capture or a promoting push (capture-only mode).
    en_passant : Out(EnPassantCell).
    attacks : Out(2 planes), absolute frame: squares attacked by white, by black.
    king_attacked : Out(2): the white king, the black king stands attacked.
    checks : Out(CheckPlanes), mover's frame: what decides whether a move may give check
        (:func:`may_check`; a promotion's or en passant's is not decided here: those always may).
    movable_checks : Out(plane), cells with a move that may give check (``GenMode.CHECKS``).
    pinned : Out(plane), mover's frame: the pieces of the side to move pinned to its king
        (chess; with ``legal=False`` the slots hold their moves off their lines too).
    forced : Out(1), antichess: the side to move has a capture (its captures are its moves).
    moveless : Out(1), antichess: the side to move has no move (it wins).
    board : Out(Planes), the stored state (absolute frame), for tests and debugging.
    """

    def __init__(self, *, legal=True):
        self._legal_moves = legal
        super().__init__({
            "halfmove": In(stream.Signature(HalfmovePair, always_ready=True)),
            "clear": In(1),
            "side": In(1),
            "config": In(GenConfig),
            "slots": Out(64).array(SLOT_COUNT),
            "evading": Out(64),
            "victim": Out(64).array(7),
            "safe": Out(64),
            "empty": Out(64),
            "movable": Out(64),
            "movable_captures": Out(64),
            "en_passant": Out(EnPassantCell),
            "attacks": Out(64).array(2),
            "king_attacked": Out(2),
            "checks": Out(CheckPlanes),
            "movable_checks": Out(64),
            "pinned": Out(64),
            "forced": Out(1),
            "moveless": Out(1),
            "board": Out(Planes),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.planes = planes = BoardPlanes()
        m.d.comb += [planes.halfmove.valid.eq(self.halfmove.valid), planes.halfmove.payload.eq(self.halfmove.payload),
                     planes.clear.eq(self.clear), self.board.eq(planes.board)]
        b = self.board
        side = Signal()                 # the side of the cells' state (``side`` a cycle later)
        m.d.sync += side.eq(self.side)
        antichess = Signal()
        m.d.comb += antichess.eq(self.config.variant == Variant.ANTICHESS)
        chess_only = Signal(64)         # all ones in chess, zero in antichess
        m.d.comb += chess_only.eq(Mux(antichess, 0, Const(-1, 64)))

        # --- the mover's frame: registers that follow the board and the side ------------------
        occupied_abs = plane(m, "occupied_abs", b.type0 | b.type1 | b.type2)
        black_abs = plane(m, "black_abs", occupied_abs & b.colour)
        white_abs = plane(m, "white_abs", occupied_abs & ~b.colour)
        upcoming = planes.upcoming
        occupied_next = upcoming.type0 | upcoming.type1 | upcoming.type2

        def mover(name, absolute):
            held = Signal(64, name=name)
            m.d.sync += held.eq(Mux(self.side, flip_ranks(absolute), absolute))
            return held

        own = mover("own", occupied_next & Mux(self.side, upcoming.colour, ~upcoming.colour))
        enemy = mover("enemy", occupied_next & Mux(self.side, ~upcoming.colour, upcoming.colour))
        t0, t1, t2 = (mover(f"type{k}", getattr(upcoming, f"type{k}")) for k in range(3))
        markers = mover("markers", upcoming.markers)
        empty = plane(m, "empty_rel", ~(own | enemy))
        type_planes = {
            PieceType.PAWN: ~t2 & ~t1 & t0, PieceType.KNIGHT: ~t2 & t1 & ~t0,
            PieceType.BISHOP: ~t2 & t1 & t0, PieceType.ROOK: t2 & ~t1 & ~t0,
            PieceType.QUEEN: t2 & ~t1 & t0, PieceType.KING: t2 & t1 & ~t0,
        }
        of_type = {p.value: plane(m, f"type_{p.name.lower()}", e) for p, e in type_planes.items()}
        own_of = {v: plane(m, f"own_{v}", own & bb) for v, bb in of_type.items()}
        enemy_of = {v: plane(m, f"enemy_{v}", enemy & bb) for v, bb in of_type.items()}

        # --- what the enemy attacks (square safety) -----------------------------------------
        # A destination is "safe" (ordered first) when no enemy piece attacks it. In antichess a
        # move to an empty square other than the en-passant square counts the other way round:
        # an attacked square first (a move that offers a piece forces the reply). Captures, en
        # passant among them, keep the chess sense, which the losing-capture test reads.
        enemy_attacks, enemy_rays = self._attack_map(m, "enemy", enemy_of, empty, pawn_rank_step=-1)
        ep_plane = plane(m, "ep_plane", markers & Const(RANKS[5], 64) & empty)
        offered = plane(m, "offered", empty & ~ep_plane & ~chess_only)
        safe = plane(m, "safe_rel", safe_field(enemy_attacks, offered))

        # --- the slots ----------------------------------------------------------------------
        not_own = plane(m, "not_own", ~own)
        raw = {}            # per slot, the squares it attacks (whatever stands there)
        slot_planes = {}
        for index, slot in enumerate(SLOTS):
            df, dr = slot.step
            name = f"slot_{slot.name}"
            if slot.kind == "pawn_capture":
                raw[index] = plane(m, f"{name}_attack", shift(own_of[1], df, dr))
                bb = raw[index] & enemy
            elif slot.kind == "push":
                bb = shift(own_of[1], df, dr) & empty
            elif slot.kind == "double_push":
                # the single push must have landed on the third rank
                bb = shift(slot_planes[SLOT_INDEX["pawn_push"]] & Const(RANKS[2], 64), 0, 1) & empty
            elif slot.kind == "leap":
                raw[index] = plane(m, f"{name}_attack", shift(own_of[slot.piece], df, dr))
                bb = raw[index] & not_own
            elif slot.kind == "ray":
                raw[index] = ray_reach(m, name + "_attack", own_of[slot.piece], empty, df, dr)
                bb = raw[index] & not_own
            else:
                bb = self._castling(m, own_of, markers, empty, enemy_attacks) & chess_only
            slot_planes[index] = plane(m, name, bb)
        own_king = plane(m, "own_king", own_of[6] & chess_only)     # antichess: no king to keep safe
        slot_planes, pinned, evading = self._legal(m, slot_planes, own_king, own, enemy, enemy_of, empty,
                                                   enemy_attacks & chess_only, enemy_rays, pins=self._legal_moves)

        def legal_or(planes):
            """The OR of ``planes`` (slot index -> plane, as ``slot_planes``) made legal: the
            evading slots' OR masked once."""
            evaders = [bb for index, bb in planes.items() if index in EVADING_SLOTS]
            kings = [bb for index, bb in planes.items() if index not in EVADING_SLOTS]
            return (or_all(evaders) & evading) | or_all(kings)

        own_rays = {}       # per direction, the squares the own sliders of its line reach going that way
        for index, slot in enumerate(SLOTS):
            if slot.kind == "ray":
                own_rays[slot.step] = own_rays.get(slot.step, 0) | raw[index]

        own_attacks = plane(m, "own_attacks", or_all(raw.values()))

        # --- the en-passant cell ------------------------------------------------------------
        ep = Signal(EnPassantCell)
        m.d.comb += [
            ep.valid.eq(ep_plane.any()),
            ep.square.eq(onehot_index(ep_plane)),
            ep.slots.eq(Cat((raw[0] & ep_plane).any(), (raw[1] & ep_plane).any())),
            ep.safe.eq((ep_plane & safe).any()),
        ]

        # --- antichess: a capture, where there is one, is compulsory -------------------------
        ep_open = Signal()
        m.d.comb += ep_open.eq(ep.valid & ep.slots.any())
        # The capture rule is not applied here: masking every slot plane with ``forced`` put
        # the OR of all of them, then the mask, in front of each plane's register — the board
        # build's critical path (BENCHMARKS.md, 2026-11-27 fifth session). The generator masks
        # the cells instead (``MoveGenerator``: ``destinations``).
        movable = plane(m, "movable", legal_or(slot_planes))
        # Antichess has no king to keep safe, so every cell evades: its flags take the slots
        # before the evasion, off the checks' path.
        reachable = plane(m, "reachable", or_all(slot_planes.values()))
        forced = Signal()
        m.d.comb += forced.eq(antichess & ((reachable & enemy).any() | ep_open))

        # --- absolute attack maps and checks ------------------------------------------------
        own_abs_attacks = plane(m, "own_abs_attacks", Mux(side, flip_ranks(own_attacks), own_attacks))
        enemy_abs_attacks = plane(m, "enemy_abs_attacks",
                                  Mux(side, flip_ranks(enemy_attacks), enemy_attacks))
        attacked_by_white = plane(m, "attacked_by_white", Mux(side, enemy_abs_attacks, own_abs_attacks))
        attacked_by_black = plane(m, "attacked_by_black", Mux(side, own_abs_attacks, enemy_abs_attacks))
        kings_abs = plane(m, "kings_abs", b.type2 & b.type1 & ~b.type0)

        # --- checks: where a piece would attack the enemy king, who unmasks a line to it ------
        # (antichess: no enemy king to check, so no move may check: castling is closed)
        checks = self._checks(m, enemy_of[6] & chess_only, own, own_of, own_rays, empty)
        checking = {index: plane(m, f"checking_{slot.name}", slot_planes[index] & may_check(slot, checks))
                    for index, slot in enumerate(SLOTS)}

        # --- registered outputs -------------------------------------------------------------
        for index in range(SLOT_COUNT):
            m.d.sync += self.slots[index].eq(slot_planes[index])
        m.d.sync += self.victim[0].eq(empty)
        for v in range(1, 7):
            m.d.sync += self.victim[v].eq(enemy_of[v])
        promoting_pushes = slot_planes[SLOT_INDEX["pawn_push"]] & evading & Const(RANKS[7], 64)
        m.d.sync += [
            self.movable.eq(movable),
            self.evading.eq(evading),
            self.movable_captures.eq((movable & enemy) | promoting_pushes),
            self.safe.eq(safe),
            self.empty.eq(empty),
            self.en_passant.eq(ep),
            self.attacks[0].eq(attacked_by_white),
            self.attacks[1].eq(attacked_by_black),
            self.king_attacked[0].eq((kings_abs & white_abs & attacked_by_black).any()),
            self.king_attacked[1].eq((kings_abs & black_abs & attacked_by_white).any()),
            self.checks.eq(checks),
            self.movable_checks.eq(legal_or(checking)),
            self.pinned.eq(pinned),
            self.forced.eq(forced),
            self.moveless.eq(antichess & ~reachable.any() & ~ep_open),
        ]
        return m

    def _checks(self, m, king, own, own_of, own_rays, empty):
        """The :data:`CheckPlanes` of the enemy king's plane ``king``: where a piece would attack
        it (a king never: it may not stand next to the other), and the discoverers (an own
        piece first on a line from the king with an own slider of the line next on it)."""
        checks = Signal(CheckPlanes)
        lines = {True: [], False: []}       # diagonal?: the king's rays, first piece included
        discovering = []
        for df, dr, ray, shield in _king_lines(m, "king", king, own, own_rays, empty):
            lines[df != 0 and dr != 0].append(ray)
            discovering.append(shield)
        m.d.comb += [
            checks.pawn.eq(shift(king, -1, -1) | shift(king, 1, -1)),
            checks.knight.eq(or_all(shift(king, *s.step) for s in SLOTS if s.piece == PieceType.KNIGHT.value)),
            checks.diagonal.eq(or_all(lines[True])),
            checks.straight.eq(or_all(lines[False])),
            checks.discoverers.eq(or_all(discovering)),
        ]
        for piece, name in _UNMASKING.items():
            m.d.comb += checks.unmasking[name].eq((checks.discoverers & own_of[piece]).any())
        return checks

    def _legal(self, m, slot_planes, king, own, enemy, enemy_of, empty, enemy_attacks, enemy_rays, pins=True):
        """The slots' legal moves: those that do not leave the own king (plane ``king``)
        attacked. The king does not step onto a square the enemy attacks, nor onto one behind
        it on a line a slider checks along; another piece, when the king is in check once, only
        captures the checker or blocks its line (in double check, none moves); and a piece
        pinned to the king (the first piece on one of the king's lines, an enemy slider of that
        line next) moves only along its line. Castling's own test is exact already. En passant
        is not decided here (its cell is apart, and the search makes it and tests the king);
        nor, with ``pins`` false (the smaller build), are pins: a pinned piece's moves off its
        line are emitted too (the search makes and tests them). Returns the slot planes legal but
        for the check evasion of the pieces other than the king, the plane of the pinned pieces,
        and the evasion's plane (``evading``: where those pieces may land; see
        :func:`legal_slot`)."""
        def orientation(df, dr):        # a direction and its opposite: one line through a square
            return (df, dr) if dr > 0 or (dr == 0 and df > 0) else (-df, -dr)

        check_lines = []                # per direction, the king's ray when a slider checks along it
        checks = []                     # per possible checker (a line, a knight's, a pawn's square): it checks
        pinned_along = {}               # per line orientation, the own pieces pinned along it
        for df, dr, ray, shield in _king_lines(m, "own_king", king, own, enemy_rays, empty):
            along = Signal(name=f"check_along_{df}{dr}".replace("-", "m"))
            m.d.comb += along.eq((ray & _line_sliders(enemy_of, df, dr)).any())
            checks.append(along)
            check_lines.append(Mux(along, ray, 0))
            line = orientation(df, dr)
            pinned_along[line] = pinned_along.get(line, 0) | shield
        pinned = plane(m, "pinned", or_all(pinned_along.values()))
        if pins:
            # Pinned pieces that would leave their line going (df, dr).
            straying = {line: plane(m, f"straying_{line[0]}{line[1]}".replace("-", "m"), pinned & ~along)
                        for line, along in pinned_along.items()}
            stray_rays = {(df, dr): ray_reach(m, f"stray_ray_{name}", straying[orientation(df, dr)], empty, df, dr)
                          for name, df, dr in DIRECTIONS}

        # The knights and pawns that check, square by square (the king is one square): with the
        # lines' checks, each possible checker is a bit, and double check is two of them (a
        # small tree, not a 64-bit carry chain).
        knight, pawn = PieceType.KNIGHT.value, PieceType.PAWN.value
        knight_squares = [shift(king, *s.step) for s in SLOTS if s.piece == knight]
        pawn_squares = [shift(king, df, 1) for df in (-1, 1)]
        squares = [(sq, knight) for sq in knight_squares] + [(sq, pawn) for sq in pawn_squares]
        for index, (square, piece) in enumerate(squares):
            checker = Signal(name=f"check_from_{index}")
            m.d.comb += checker.eq((square & enemy_of[piece]).any())
            checks.append(checker)
        checkers = plane(m, "checkers", (or_all(check_lines) & enemy)
                         | (or_all(knight_squares) & enemy_of[knight]) | (or_all(pawn_squares) & enemy_of[pawn]))
        in_check, double_check = at_least_one_two(m, "checks", checks)
        # Where a piece other than the king may land: anywhere; in check, on the checker or its line.
        evading = plane(m, "evading", Mux(double_check, 0,
                                          Mux(in_check, or_all(check_lines) | checkers, Const(-1, 64))))
        # The squares the king may not step onto: attacked, or behind it on a checking slider's line.
        xray = or_all(shift(king & enemy_rays[step], *step) for step in enemy_rays)
        king_barred = plane(m, "king_barred", enemy_attacks | xray)

        legal = {}
        for index, slot in enumerate(SLOTS):
            bb = slot_planes[index]
            if slot.kind == "castle":
                legal_bb = bb
            elif slot.piece == PieceType.KING.value:
                legal_bb = bb & ~king_barred
            elif not pins:
                legal_bb = bb
            elif slot.kind == "ray":
                legal_bb = bb & ~stray_rays[slot.step]
            elif slot.piece == PieceType.KNIGHT.value:
                legal_bb = bb & ~shift(pinned, *slot.step)
            else:                       # pawns: a push along the file, a capture along a diagonal
                step = slot.step if slot.kind == "pawn_capture" else (0, 1)
                legal_bb = bb & ~shift(straying[orientation(*step)], *slot.step)
            legal[index] = plane(m, f"legal_{slot.name}", legal_bb)
        return legal, pinned, evading

    def _attack_map(self, m, prefix, pieces_of, empty, pawn_rank_step):
        """All squares attacked by ``pieces_of`` (a dict type -> plane), mover's frame, and per
        direction (a (file, rank) step) the squares its sliders reach going that way."""
        parts = [shift(pieces_of[1], df, pawn_rank_step) for df in (-1, 1)]
        for _index, slot in enumerate(SLOTS):
            if slot.kind == "leap":
                parts.append(shift(pieces_of[slot.piece], *slot.step))
        rays = {}
        for name, df, dr in DIRECTIONS:
            rays[df, dr] = ray_reach(m, f"{prefix}_ray_{name}", _line_sliders(pieces_of, df, dr), empty, df, dr)
        return plane(m, f"{prefix}_attacks", or_all(parts + list(rays.values()))), rays

    def _castling(self, m, own_of, markers, empty, enemy_attacks):
        """The castle slot: the king's destination g1 or c1 when castling that way is open."""
        def bits(bb, *squares):
            return [bb[s] for s in squares]

        def all_of(items):
            out = Const(1, 1)
            for item in items:
                out = out & item
            return out

        king_home = own_of[6][E1]
        kingside = Signal(name="castle_kingside")
        queenside = Signal(name="castle_queenside")
        m.d.comb += [
            kingside.eq(all_of([king_home, own_of[4][H1], markers[H1]]
                               + bits(empty, F1, G1) + [~a for a in bits(enemy_attacks, E1, F1, G1)])),
            queenside.eq(all_of([king_home, own_of[4][A1], markers[A1]]
                                + bits(empty, B1, C1, D1) + [~a for a in bits(enemy_attacks, E1, D1, C1)])),
        ]
        return Mux(kingside, Const(square_mask(G1), 64), 0) | Mux(queenside, Const(square_mask(C1), 64), 0)

