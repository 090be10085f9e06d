"""Making and unmaking moves: the halfmoves of a generated move, played onto the halfmove bus.

MAKE takes the generator's answer (move word, moving piece, victim) and the marker plane of the
position (castling rights and the en-passant square, hdl/movegen cells' ``board``) and emits
the move's halfmoves in the canonical order of ``models/position.move_halfmoves``: markers
lost (a1, h1, the en-passant square, a8, h8 — ascending), the victim, the mover (and a castling
rook) taken away, the arriving piece (and the rook) placed, a new en-passant marker. It keeps an
undo record per ply, so UNMAKE needs only the ply: it emits the same halfmoves inverted, in
reverse order. A MAKE without a piece (``piece`` empty: the search's null move) passes: only an
en-passant marker is lost (``models/position.move_halfmoves`` of ``chess.Move.null()``).

Timing: a command is taken when the maker is idle or in the cycle the last transfer of the
command before leaves (a MAKE then reads the marker plane with that transfer applied: the
board has it a cycle later); the halfmoves go out two at a time
(:data:`~hdl.encoding.HalfmovePair`, the last alone when their number is odd), from an output
register: the first transfer is offered in the cycle after the command, and one follows every
cycle the bus takes one (1 to 5 transfers per move: a quiet move is one, a capture two). The
undo records are in distributed RAM, read in the cycle an UNMAKE is taken.
``irreversible`` (for the repetition detector) says whether the last MAKE captured, moved a
pawn, lost a castling right or passed (no repetition reaches across a null move); ``zeroing``
whether it captured or moved a pawn (the fifty-move rule's clock starts again).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import MARKER, Colour, Halfmove, HalfmoveOp, HalfmovePair, MoveWord, Piece, PieceType
from ..movegen.cells import BoardPlanes

__all__ = ["MakerOp", "MakerCommand", "MakerInterface", "MoveMaker"]


class MakerOp(enum.Enum, shape=1):
    MAKE = 0
    UNMAKE = 1


MakerCommand = data.StructLayout({
    "op": MakerOp,
    "ply": 6,
    "move": MoveWord,       # MAKE only, as are piece and victim
    "piece": Piece,
    "victim": Piece,        # empty if none
})

#: What UNMAKE needs of a ply: the move and the markers its MAKE took away.
UndoRecord = data.StructLayout({
    "move": MoveWord, "piece": Piece, "victim": Piece,
    "lost_castling": 4,     # a1, h1, a8, h8
    "lost_en_passant": 1,
    "en_passant_square": 6,
})

_CASTLING_HOMES = (0, 7, 56, 63)
_SLOTS = 11     # lost a1, h1, e.p., a8, h8; victim; mover; rook away; arrival; rook placed; new e.p.


#: What the search asks of the maker, from the asking side: MAKE and UNMAKE commands; the
#: maker is ``idle`` when it has played the last one, and says whether the last MAKE was
#: ``irreversible`` (a capture, a pawn move, a castling right lost, a null move) and
#: ``zeroing`` (a capture or a pawn move).
MakerInterface = wiring.Signature({
    "command": Out(stream.Signature(MakerCommand)),
    "idle": In(1),
    "irreversible": In(1),
    "zeroing": In(1),
})


class MoveMaker(wiring.Component):
    """Interface attributes
    --------------------
    search : In(MakerInterface)     commands; idle; irreversible; zeroing
    markers : In(64)                the marker plane before the MAKE (ignored by UNMAKE)
    halfmove : Out(stream of HalfmovePair)
    upcoming : Out(HalfmovePair)    the transfer ``halfmove`` carries in the next cycle (if it is
                                    valid then): the register's next value, for a unit that
                                    addresses memories with it a cycle ahead
    """

    def __init__(self, *, max_ply=64):
        self._max_ply = max_ply
        super().__init__({
            "search": In(MakerInterface),
            "markers": In(64),
            "halfmove": Out(stream.Signature(HalfmovePair)),
            "upcoming": Out(HalfmovePair),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.undo = undo = Memory(shape=UndoRecord, depth=self._max_ply, init=[])
        save, load = undo.write_port(), undo.read_port(domain="comb")
        command = self.search.command.payload

        # --- MAKE: the undo record, from the command and the marker plane ----------------------
        # A MAKE may be taken as the last transfer of the command before leaves: the markers
        # are the board's with the transfer on the bus applied (the board has it a cycle later).
        out = self.halfmove
        markers = Signal(64)
        after_first = BoardPlanes.apply(m, "forward_first", self.markers, "markers", out.payload.first)
        after_both = BoardPlanes.apply(m, "forward_second", after_first, "markers", out.payload.second)
        m.d.comb += markers.eq(Mux(out.valid, Mux(out.payload.both, after_both, after_first), self.markers))
        move = command.move
        passing = command.piece.type == PieceType.EMPTY         # the null move
        king_move = (command.piece.type == PieceType.KING) & ((move.from_sq == 4) | (move.from_sq == 60))
        record = Signal(UndoRecord)
        lost_castling = []
        for home in _CASTLING_HOMES:
            rank_of_home = home >> 3
            touched = (move.from_sq == home) | (move.to_sq == home) | (king_move & (move.from_sq[3:] == rank_of_home))
            lost_castling.append(markers[home] & touched & ~passing)
        en_passant_plane = markers & 0x0000FF0000FF0000
        m.d.comb += [
            record.move.eq(move), record.piece.eq(command.piece), record.victim.eq(command.victim),
            record.lost_castling.eq(Cat(*lost_castling)),
            record.lost_en_passant.eq(en_passant_plane != 0),
        ]
        for square in list(range(16, 24)) + list(range(40, 48)):
            with m.If(markers[square]):
                m.d.comb += record.en_passant_square.eq(square)

        taken = self.search.command.valid & self.search.command.ready
        is_make = command.op == MakerOp.MAKE
        m.d.comb += [save.addr.eq(command.ply), save.data.eq(record), save.en.eq(taken & is_make),
                     load.addr.eq(command.ply)]

        # --- the record in play: in a cycle the maker can take a command, the command's (a
        # MAKE's from the command, an UNMAKE's from its undo record), else the register's.
        # The choice is the maker's readiness, not the command's ``valid``: the search decides
        # ``valid`` late in the cycle (a returned value may call for a re-search instead), and
        # the halfmoves computed here address the evaluator's block RAMs (``upcoming``). Only
        # the output register's ``valid`` and the remaining slots wait for it. ----------------
        held = Signal(UndoRecord)
        undoing = Signal()
        with m.If(taken):
            m.d.sync += [held.eq(Mux(is_make, record, load.data)), undoing.eq(~is_make)]
        with m.If(taken & is_make):
            zeroing = (record.victim.type != PieceType.EMPTY) | (command.piece.type == PieceType.PAWN)
            m.d.sync += [self.search.irreversible.eq(zeroing | (record.lost_castling != 0) | passing),
                         self.search.zeroing.eq(zeroing)]
        # A command is taken as the last transfer of the one before leaves, so returns from
        # several plies unmake one a cycle, and a MAKE follows an UNMAKE without a gap (its
        # markers forwarded, above).
        remaining = Signal(_SLOTS)
        leaving = out.valid & out.ready & (remaining == 0)
        taking = Signal()       # a command offered now is taken (``ready``)
        m.d.comb += [self.search.idle.eq(~out.valid & (remaining == 0)),
                     taking.eq(self.search.idle | leaving),
                     self.search.command.ready.eq(taking)]
        current = Signal(UndoRecord)
        backward = Signal()
        m.d.comb += [current.eq(Mux(taking, Mux(is_make, record, load.data), held)),
                     backward.eq(Mux(taking, ~is_make, undoing))]

        slots = self._slots(m, current)             # list of (enable, Halfmove bits)
        enabled = Signal(_SLOTS)
        m.d.comb += enabled.eq(Cat(*(e for e, _ in slots)))

        # --- playing: the remaining slots two at a time, forward for MAKE, backward (inverted)
        # for UNMAKE, into the output register (empty when the maker could take a command and
        # none came: ``remaining`` is then 0) --------------------------------------------------
        mask = Signal(_SLOTS)
        m.d.comb += mask.eq(Mux(taking, enabled, remaining))
        playing = Signal()
        m.d.comb += playing.eq(~taking | self.search.command.valid)

        def pick(name, candidates):
            """The next slot of ``candidates`` in playing order: (whether any, its index)."""
            index = Signal(range(_SLOTS), name=f"{name}_slot")
            with m.If(backward):
                for i in range(_SLOTS):             # the highest
                    with m.If(candidates[i]):
                        m.d.comb += index.eq(i)
            with m.Else():
                for i in reversed(range(_SLOTS)):   # the lowest
                    with m.If(candidates[i]):
                        m.d.comb += index.eq(i)
            return candidates != 0, index

        def halfmove_of(name, index):
            chosen = Signal(Halfmove, name=f"{name}_halfmove")
            with m.Switch(index):
                for i, (_, bits) in enumerate(slots):
                    with m.Case(i):
                        m.d.comb += chosen.eq(bits)
            played = Signal(Halfmove, name=f"{name}_played")
            m.d.comb += played.eq(chosen)
            with m.If(backward):
                m.d.comb += played.op.eq(Mux(chosen.op == HalfmoveOp.PLACE, HalfmoveOp.REMOVE, HalfmoveOp.PLACE))
            return played

        any_first, first_index = pick("first", mask)
        after_first = Signal(_SLOTS)
        m.d.comb += after_first.eq(mask & ~(Const(1, _SLOTS) << first_index))
        any_second, second_index = pick("second", after_first)
        left = Signal(_SLOTS)
        m.d.comb += left.eq(after_first & ~(Const(1, _SLOTS) << second_index))
        first, second = halfmove_of("first", first_index), halfmove_of("second", second_index)
        loading = ~out.valid | out.ready
        m.d.comb += self.upcoming.eq(out.payload)
        with m.If(loading):
            m.d.comb += [self.upcoming.first.eq(first), self.upcoming.second.eq(second),
                         self.upcoming.both.eq(any_second)]
            m.d.sync += [
                out.valid.eq(any_first & playing),
                out.payload.eq(self.upcoming),
                remaining.eq(Mux(any_second & playing, left, 0)),
            ]
        return m

    @staticmethod
    def _slots(m, record):
        """The eleven possible halfmoves of a move, in MAKE order: ``(enable, Halfmove)``."""
        move, flags = record.move, record.move.flags
        colour = record.piece.colour
        slots = []

        def slot(name, enable, op, square, piece):
            bits = Signal(Halfmove, name=f"slot_{name}")
            on = Signal(name=f"slot_{name}_on")
            m.d.comb += [on.eq(enable), bits.op.eq(op), bits.square.eq(square), bits.piece.as_value().eq(piece)]
            slots.append((on, bits))

        remove, place = HalfmoveOp.REMOVE, HalfmoveOp.PLACE
        lost = record.lost_castling
        slot("lost_a1", lost[0], remove, 0, MARKER)
        slot("lost_h1", lost[1], remove, 7, MARKER)
        slot("lost_ep", record.lost_en_passant, remove, record.en_passant_square, MARKER)
        slot("lost_a8", lost[2], remove, 56, MARKER)
        slot("lost_h8", lost[3], remove, 63, MARKER)
        victim_square = Mux(flags.en_passant, Mux(colour == Colour.BLACK, move.to_sq + 8, move.to_sq - 8), move.to_sq)
        slot("victim", record.victim.type != PieceType.EMPTY, remove, victim_square, record.victim)
        moving = record.piece.type != PieceType.EMPTY       # not the null move
        slot("mover", moving, remove, move.from_sq, record.piece)
        kingside = move.to_sq[:3] == 6
        rank = move.to_sq & 0b111000
        rook = Signal(Piece)
        promoted = Signal(Piece)
        m.d.comb += [rook.type.eq(PieceType.ROOK), rook.colour.eq(colour),
                     promoted.type.eq(move.promotion), promoted.colour.eq(colour)]
        slot("rook_away", flags.castle, remove, rank | Mux(kingside, 7, 0), rook)
        promotion = move.promotion.as_value()
        arriving = Mux(promotion != 0, promoted, record.piece)
        slot("arrival", moving, place, move.to_sq, arriving)
        slot("rook_placed", flags.castle, place, rank | Mux(kingside, 5, 3), rook)
        slot("new_ep", flags.double_push, place, (move.from_sq + move.to_sq) >> 1, MARKER)
        return slots
