"""Chess patterns written with the table-building API (host/tables.py), each beside its plain
Python definition over a ``chess.Board``. Loaded alone, a pattern's tables make the evaluator's
value equal its ``definition`` (tests/test_patterns.py proves it in hardware).

- :class:`MaterialPieceSquare` material and piece-square values fitted to Stockfish's choice
  between quiet moves, the middlegame's and the endgame's blended by the root's phase.
- :class:`ShelterFirstOrder`  Hitech's pawn shelter as a first-order table: 25 for a pawn on each
  of the three near squares in front of the castled king, 16 on the far ones.
- :class:`ShelterRecognizer`  the same shelter, only when the king is on that wing, with a
  non-linear penalty when two or three of the files have lost their pawns.
- :class:`PawnStructure`      doubled and isolated pawns for both colours.
- :class:`KingSafety`         king danger (position and pawn shield) scaled by the game phase,
  a global-state unit's count of non-pawn material.
- :class:`BishopPair`         30 for two bishops.
- :class:`InsufficientMaterial` a lone minor piece's worth above the other side's taken back (it cannot win).
- :class:`PawnIslands`        10 per pawn island beyond the first.
- :class:`Tempo`              12 (or a bonus given) for the side to move.

Values are from White's side (positive good for White).
"""

import chess

from hdl.eval.tables import ExtSource

from .analysis import pawns_per_file
from .piece_square import ENDGAME, MIDDLEGAME
from .tables import Context, FirstOrder, GlobalState, Recognizer, output_step

__all__ = ["MaterialPieceSquare", "ShelterFirstOrder", "ShelterRecognizer", "PawnStructure", "KingSafety",
           "BishopPair", "InsufficientMaterial", "PawnIslands", "Tempo", "NON_PAWN_MATERIAL", "PAWN_ENDING_BIT",
           "PATTERNS", "WINGS", "colour_sign"]

#: The files of each wing's shelter.
WINGS = {"king": (5, 6, 7), "queen": (0, 1, 2)}

#: The files a castled king stands on, per wing (a king on f1 has only stepped aside).
CASTLED_FILES = {"king": (6, 7), "queen": (0, 1, 2)}

COLOURS = (chess.WHITE, chess.BLACK)


def _rank(colour, relative):
    """The absolute rank of a rank counted from ``colour``'s side (0 = its back rank)."""
    return relative if colour == chess.WHITE else 7 - relative


def _pawn_on(board, colour, file, relative_rank):
    piece = board.piece_at(chess.square(file, _rank(colour, relative_rank)))
    return piece == chess.Piece(chess.PAWN, colour)


class MaterialPieceSquare:
    """Material and piece-square values as one first-order table: each piece's value on its
    square (material included) blended from the middlegame and endgame tables that
    ``data/make_piece_square.py`` fitted to Stockfish's scores of quiet moves (``host/piece_square.py``)
    by ``phase``, 1 with every piece of the opening on the board and 0 with none
    (``host.analysis.game_phase_fraction`` of the root)."""

    def __init__(self, phase=1.0):
        if not 0 <= phase <= 1:
            raise ValueError(f"a phase is between 0 and 1, not {phase}")
        self.phase = phase

    def definition(self, board):
        return sum(self.g(piece, square) for square, piece in board.piece_map().items())

    def value(self, piece_type, square):
        """A White piece's value on ``square`` (Black's mirror the board)."""
        return round(self.phase * MIDDLEGAME[piece_type][square] + (1 - self.phase) * ENDGAME[piece_type][square])

    def g(self, piece, square):
        if piece.color == chess.WHITE:
            return self.value(piece.piece_type, square)
        return -self.value(piece.piece_type, chess.square_mirror(square))

    def install(self, image):
        image.add_first_order(FirstOrder(self.g))


class ShelterFirstOrder:
    """Pawns on the six shelter squares of each side's castling wing: 25 near, 16 far."""

    NEAR, FAR = 25, 16

    def __init__(self, wings=("king", "king")):
        self.wings = dict(zip(COLOURS, wings))

    def definition(self, board):
        total = 0
        for colour, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
            for file in WINGS[self.wings[colour]]:
                total += sign * (self.NEAR * _pawn_on(board, colour, file, 1)
                                 + self.FAR * _pawn_on(board, colour, file, 2))
        return total

    def g(self, piece, square):
        if piece.piece_type != chess.PAWN or chess.square_file(square) not in WINGS[self.wings[piece.color]]:
            return 0
        relative = chess.square_rank(square) if piece.color == chess.WHITE else 7 - chess.square_rank(square)
        sign = 1 if piece.color == chess.WHITE else -1
        return sign * {1: self.NEAR, 2: self.FAR}.get(relative, 0)

    def install(self, image):
        image.add_first_order(FirstOrder(self.g))


class ShelterRecognizer:
    """Per side whose king stands on its back rank where castling puts it (g or h; a, b or c
    for the queen's wing): 25 per near shelter pawn, 16 per far one, less 20 when two files
    have neither and 45 when all three have neither."""

    NEAR, FAR = 25, 16
    PENALTY = {0: 0, 1: 0, 2: 20, 3: 45}
    FIELDS = [("king", 1)] + [(f"near{i}", 1) for i in range(3)] + [(f"far{i}", 1) for i in range(3)]

    def __init__(self, wing="king"):
        self.files = WINGS[wing]
        self.king_files = CASTLED_FILES[wing]

    def score(self, king_home, near, far):
        if not king_home:
            return 0
        missing = sum(1 for n, f in zip(near, far) if not n and not f)
        return self.NEAR * sum(near) + self.FAR * sum(far) - self.PENALTY[missing]

    def side_score(self, board, colour):
        king = board.king(colour)
        home = (king is not None and chess.square_rank(king) == _rank(colour, 0)
                and chess.square_file(king) in self.king_files)
        return self.score(home, [_pawn_on(board, colour, f, 1) for f in self.files],
                          [_pawn_on(board, colour, f, 2) for f in self.files])

    def definition(self, board):
        return sum(self.unit_values(board))

    def unit_values(self, board):
        """Each recognizer's value, in the order :meth:`install` installs them (White's, Black's)."""
        return [self.side_score(board, chess.WHITE), -self.side_score(board, chess.BLACK)]

    def _unit(self, colour):
        files, king_files = self.files, self.king_files

        def description(piece, square):
            if piece.color != colour:
                return {}
            file, relative = chess.square_file(square), _rank(colour, chess.square_rank(square))
            if piece.piece_type == chess.KING and relative == 0 and file in king_files:
                return {"king": 1}
            if file not in files:
                return {}
            if piece.piece_type == chess.PAWN and relative in (1, 2):
                return {f"{'near' if relative == 1 else 'far'}{files.index(file)}": 1}
            return {}

        def summary(v, ext):
            return self.score(v["king"], [v[f"near{i}"] for i in range(3)], [v[f"far{i}"] for i in range(3)])

        sign = 1 if colour == chess.WHITE else -1
        return Recognizer(fields_a=self.FIELDS, description=description, summary_a=summary,
                          combine=lambda a, b: a, final=lambda s, contexts: sign * s)

    def install(self, image):
        for colour in COLOURS:
            image.add_recognizer(self._unit(colour))


class PawnStructure:
    """``doubled`` per pawn beyond the first on a file and ``isolated`` per pawn with no own
    pawn on a neighbouring file; White's penalties count against White, Black's for it.

    Per colour: a recognizer counts pawns per file (3 bits each: files a-d in branch A, e-h in
    branch B) and settles every file whose neighbours it sees; a global unit counts files c-f
    and gives the isolated pawns of files d and e, which straddle the branches, as context.
    """

    FILES = "abcdefgh"

    def __init__(self, doubled=12, isolated=16):
        if doubled % 2 or isolated % 2:
            raise ValueError("the penalties must be even (the recognizer's output is shifted by 1)")
        self.doubled, self.isolated = doubled, isolated

    def penalty_counts(self, counts):
        """(doubled pawns, isolated pawns) of per-file pawn counts."""
        doubled = sum(max(0, n - 1) for n in counts)
        isolated = sum(n for f, n in enumerate(counts)
                       if (f == 0 or counts[f - 1] == 0) and (f == 7 or counts[f + 1] == 0))
        return doubled, isolated

    def side_penalty(self, board, colour):
        counts = pawns_per_file(board, colour)
        doubled, isolated = self.penalty_counts(counts)
        return self.doubled * doubled + self.isolated * isolated

    def definition(self, board):
        return sum(self.unit_values(board))

    def unit_values(self, board):
        """Each recognizer's value, in the order :meth:`install` installs them (White's, Black's)."""
        return [-self.side_penalty(board, chess.WHITE), self.side_penalty(board, chess.BLACK)]

    def _pawn_counter(self, colour, files):
        def description(piece, square):
            file = chess.square_file(square)
            if piece == chess.Piece(chess.PAWN, colour) and file in files:
                return {self.FILES[file]: 1}
            return {}
        return description

    def _units(self, colour):
        d, i = self.doubled, self.isolated
        straddle = GlobalState(
            fields=[(self.FILES[f], 3) for f in (2, 3, 4, 5)],
            description=self._pawn_counter(colour, (2, 3, 4, 5)),
            output=lambda v: v["d"] * (v["c"] == 0 and v["e"] == 0) + v["e"] * (v["d"] == 0 and v["f"] == 0),
            where=lambda v: sum(v.values()) <= 8)

        def half(names, settled):
            def summary(v, ext):
                counts = [v[n] for n in names]
                doubled = sum(max(0, n - 1) for n in counts)
                isolated = sum(counts[k] for k in settled
                               if (k == 0 or counts[k - 1] == 0) and (k == 3 or counts[k + 1] == 0))
                return d * doubled + i * isolated
            return summary

        sign = -1 if colour == chess.WHITE else 1

        def final(penalty, contexts):
            total = penalty + i * (contexts[0] + 4 * contexts[1])
            # Eight pawns give at most 7 doubled and 8 isolated: anything more is unreachable.
            return sign * total if total <= 7 * d + 8 * i else None

        return straddle, Recognizer(
            fields_a=[(n, 3) for n in "abcd"], fields_b=[(n, 3) for n in "efgh"],
            description=self._pawn_counter(colour, range(8)),
            # a (0), b (1), c (2) settle in A; f, g, h (1, 2, 3 of e..h) in B
            summary_a=half("abcd", (0, 1, 2)), summary_b=half("efgh", (1, 2, 3)),
            where_a=lambda v: sum(v.values()) <= 8, where_b=lambda v: sum(v.values()) <= 8,
            combine=lambda a, b: a + b, final=final,
            contexts=[Context(straddle, 0), Context(straddle, 2)], shift=1)

    def install(self, image):
        for colour in COLOURS:
            image.add_recognizer(self._units(colour)[1])


class KingSafety:
    """Each king's danger: on its back rank where castling puts it (g, h; a, b, c), 12 per
    missing pawn of the three shield pawns of that wing; elsewhere 20 + 5 per rank advanced,
    + 8 on the four centre files. The value is
    (Black's danger - White's) x (phase + 1) // 2, with the phase 0..3 from the non-pawn
    material on the board (knight and bishop 3, rook 5, queen 9): <= 12, <= 30, <= 50, more."""

    MATERIAL = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    SHIELD = {"king": (5, 6, 7), "queen": (0, 1, 2)}

    @staticmethod
    def phase(material):
        return 0 if material <= 12 else 1 if material <= 30 else 2 if material <= 50 else 3

    def danger(self, king_relative, kingside, queenside):
        rank, file = king_relative >> 3, king_relative & 7
        if rank == 0 and file >= 6:
            return 12 * (3 - sum(kingside))
        if rank == 0 and file <= 2:
            return 12 * (3 - sum(queenside))
        return 20 + 5 * rank + (8 if 2 <= file <= 5 else 0)

    def side_danger(self, board, colour):
        king = board.king(colour)
        relative = king if colour == chess.WHITE else chess.square_mirror(king)
        return self.danger(relative, [_pawn_on(board, colour, f, 1) for f in self.SHIELD["king"]],
                           [_pawn_on(board, colour, f, 1) for f in self.SHIELD["queen"]])

    def definition(self, board):
        material = sum(self.MATERIAL.get(p.piece_type, 0) for p in board.piece_map().values())
        diff = self.side_danger(board, chess.BLACK) - self.side_danger(board, chess.WHITE)
        return diff * (self.phase(material) + 1) // 2

    def _side(self, colour, prefix):
        def description(piece, square):
            if piece.color != colour:
                return {}
            relative = square if colour == chess.WHITE else chess.square_mirror(square)
            if piece.piece_type == chess.KING:
                return {f"{prefix}king": relative}
            if piece.piece_type == chess.PAWN and relative >> 3 == 1:
                for wing, letter in (("king", "s"), ("queen", "q")):
                    if relative & 7 in self.SHIELD[wing]:
                        return {f"{prefix}{letter}{self.SHIELD[wing].index(relative & 7)}": 1}
            return {}

        fields = [(f"{prefix}king", 6)] + [(f"{prefix}{w}{i}", 1) for w in "sq" for i in range(3)]

        def summary(v, ext):
            return self.danger(v[f"{prefix}king"], [v[f"{prefix}s{i}"] for i in range(3)],
                               [v[f"{prefix}q{i}"] for i in range(3)])
        return fields, description, summary

    def install(self, image):
        fields_w, describe_w, summary_w = self._side(chess.WHITE, "w")
        fields_b, describe_b, summary_b = self._side(chess.BLACK, "b")
        image.add_recognizer(Recognizer(
            fields_a=fields_w, fields_b=fields_b,
            description=lambda piece, square: describe_w(piece, square) or describe_b(piece, square),
            summary_a=summary_w, summary_b=summary_b,
            combine=lambda white, black: black - white,
            final=lambda diff, contexts: diff * (contexts[0] + 1) // 2,
            contexts=[Context(NON_PAWN_MATERIAL)]))


#: The non-pawn material on the board, as a global-state unit shared by the patterns that scale
#: with it: bits 0-1 the game's phase 0..3 (:meth:`KingSafety.phase`), bit 2 set when no piece
#: but the kings and pawns is left (a pawn ending: :data:`PAWN_ENDING_BIT`).
NON_PAWN_MATERIAL = GlobalState(
    fields=[("material", 8)],
    description=lambda piece, square: {"material": KingSafety.MATERIAL.get(piece.piece_type, 0)},
    output=lambda v: KingSafety.phase(v["material"]) | (v["material"] == 0) << 2)

#: Where :data:`NON_PAWN_MATERIAL`'s output says "a pawn ending".
PAWN_ENDING_BIT = 2


class BishopPair:
    """The bishop pair: 30 for a side with two bishops or more (a recognizer counting each
    side's bishops, White's in branch A, Black's in B)."""

    BONUS = 30

    def definition(self, board):
        return sum(colour_sign(c) * self.BONUS * (len(board.pieces(chess.BISHOP, c)) >= 2) for c in COLOURS)

    def install(self, image):
        def description(piece, square):
            if piece.piece_type != chess.BISHOP:
                return {}
            return {"white" if piece.color == chess.WHITE else "black": 1}
        image.add_recognizer(Recognizer(
            fields_a=[("white", 4)], fields_b=[("black", 4)], description=description,
            summary_a=lambda v, ext: v["white"] >= 2, summary_b=lambda v, ext: v["black"] >= 2,
            where_a=lambda v: v["white"] <= 10, where_b=lambda v: v["black"] <= 10,
            combine=lambda a, b: self.BONUS * (a - b), final=lambda value, contexts: value))


class InsufficientMaterial:
    """A side left with one minor piece and nothing else but its king cannot win, so what the
    piece is worth above the other side's material is taken back: ``WORTH`` for the minor, less
    ``PAWN`` for each of the other side's pawns and ``WORTH`` for each of its minor pieces, never
    below 0, and nothing against a rook or queen. Against a bare king a lone minor is a draw (its
    whole worth back); against one pawn or two it stops them and the side with the pawns is not
    lost either (the minor's worth above the pawns back); against three pawns or more, or a rook,
    the minor's worth stands (it defends, and the pawns may win). The value is in multiples of 8
    (the recognizer's output steps by 8). Until 2026-11-30 the minor's whole worth was taken back
    against pawns too, and king, bishop and pawns against a king and bishop looked five pawns up
    where Stockfish gives about a third of one; for one commit it was taken back against minor
    pieces alone, and the lone minor then played as if a piece up (BENCHMARKS.md). Per side in
    one branch: its minor pieces, its pawns, and its rooks and queens; each branch's summary
    says whether the side is a lone minor, else its pawns (up to ``PAWNS_SEEN``), its minor
    pieces (up to 2) and whether it has a rook or queen."""

    WORTH, PAWN = 328, 104
    PAWNS_SEEN = 4
    MINORS = (chess.KNIGHT, chess.BISHOP)
    HEAVY = (chess.ROOK, chess.QUEEN)
    #: A side as its branch's summary gives it when it is a lone minor.
    LONE = "lone"

    def side_kind(self, minors, pawns, heavy):
        """A side's summary: LONE, else ``(pawns, minors, has a rook or queen)`` as far as they
        matter."""
        if minors == 1 and not pawns and not heavy:
            return self.LONE
        return min(pawns, self.PAWNS_SEEN), min(minors, 2), heavy > 0

    def side_correction(self, kind, other):
        """What a side of summary ``kind`` loses against a side of summary ``other``."""
        if kind != self.LONE:
            return 0
        pawns, minors, heavy = (0, 1, False) if other == self.LONE else other
        return 0 if heavy else max(0, self.WORTH - self.PAWN * pawns - self.WORTH * minors)

    def _kind(self, board, colour):
        def count(kinds):
            return sum(len(board.pieces(kind, colour)) for kind in kinds)
        return self.side_kind(count(self.MINORS), count((chess.PAWN,)), count(self.HEAVY))

    def definition(self, board):
        kinds = {c: self._kind(board, c) for c in COLOURS}
        return sum(-colour_sign(c) * self.side_correction(kinds[c], kinds[not c]) for c in COLOURS)

    def install(self, image):
        def description(piece, square):
            prefix = "w" if piece.color == chess.WHITE else "b"
            kind = ("m" if piece.piece_type in self.MINORS else "p" if piece.piece_type == chess.PAWN
                    else "h" if piece.piece_type in self.HEAVY else None)
            return {f"{prefix}{kind}": 1} if kind else {}

        def fields(prefix):
            return [(f"{prefix}m", 4), (f"{prefix}p", 4), (f"{prefix}h", 4)]

        def summary(prefix):
            return lambda v, ext: self.side_kind(v[f"{prefix}m"], v[f"{prefix}p"], v[f"{prefix}h"])

        def where(prefix):     # each promotion takes a pawn: 8 pawns, 2 + 2 + 8 minors, 2 + 1 + 8 heavy
            return lambda v: v[f"{prefix}p"] <= 8 and v[f"{prefix}m"] <= 12 and v[f"{prefix}h"] <= 11

        image.add_recognizer(Recognizer(
            fields_a=fields("w"), fields_b=fields("b"), description=description,
            summary_a=summary("w"), summary_b=summary("b"), where_a=where("w"), where_b=where("b"),
            combine=lambda white, black: self.side_correction(black, white) - self.side_correction(white, black),
            final=lambda value, contexts: value, shift=3))


class PawnIslands:
    """Pawn islands (groups of pawns on neighbouring files): 10 for each island beyond the
    first, per side. Two recognizers, one per side: its pawns counted per file (2 bits each,
    modulo 4: four pawns of one side on a file read as none), files a-d in branch A, e-h in B;
    each branch's islands and whether its inner file (d, e) has pawns, combined across the
    middle."""

    family = "pawns"
    PENALTY = 10
    FILES = "abcdefgh"

    @staticmethod
    def islands(occupied):
        """The islands of a run of files (``occupied``: one flag per file, in order)."""
        return sum(1 for f, here in enumerate(occupied) if here and (f == 0 or not occupied[f - 1]))

    def penalty(self, total):
        return self.PENALTY * max(0, total - 1)

    def side_penalty(self, board, colour):
        counts = pawns_per_file(board, colour)
        return self.penalty(self.islands([n % 4 != 0 for n in counts]))

    def definition(self, board):
        return sum(self.unit_values(board))

    def unit_values(self, board):
        """Each recognizer's value, in the order :meth:`install` installs them (White's, Black's)."""
        return [-self.side_penalty(board, chess.WHITE), self.side_penalty(board, chess.BLACK)]

    def _unit(self, colour):
        def description(piece, square):
            if piece != chess.Piece(chess.PAWN, colour):
                return {}
            return {self.FILES[chess.square_file(square)]: 1}

        def half(names, inner):
            def summary(v, ext):
                occupied = [v[n] != 0 for n in names]
                return self.islands(occupied), occupied[inner]
            return summary

        sign = -1 if colour == chess.WHITE else 1
        return Recognizer(
            fields_a=[(f, 2) for f in "abcd"], fields_b=[(f, 2) for f in "efgh"], description=description,
            summary_a=half("abcd", 3), summary_b=half("efgh", 0),
            combine=lambda a, b: self.penalty(a[0] + b[0] - (a[1] and b[1])),
            final=lambda value, contexts: sign * value)

    def install(self, image):
        for colour in COLOURS:
            image.add_recognizer(self._unit(colour))


class Tempo:
    """The side to move gains ``bonus`` (12 by default: it moves first, a static value is worth
    more to it). A recognizer with no fields: its branch's external bit is the side to move.
    Its 8-bit output steps by ``1 << shift``, the least that holds the bonus; a bonus is rounded
    to it."""

    def __init__(self, bonus=12):
        self.shift, (_, self.bonus) = output_step([0, bonus])

    def definition(self, board):
        return self.bonus if board.turn == chess.WHITE else -self.bonus

    def install(self, image):
        image.add_recognizer(Recognizer(
            description=lambda piece, square: {}, summary_a=lambda v, ext: ext, ext_a=ExtSource.SIDE,
            combine=lambda black_to_move, b: -self.bonus if black_to_move else self.bonus,
            final=lambda value, contexts: value, shift=self.shift))


def colour_sign(colour):
    """+1 for White, -1 for Black: a value from ``colour``'s side made White's."""
    return 1 if colour == chess.WHITE else -1


PATTERNS = {
    "material-piece-square": MaterialPieceSquare,
    "shelter-first-order": ShelterFirstOrder,
    "shelter-recognizer": ShelterRecognizer,
    "pawn-structure": PawnStructure,
    "king-safety": KingSafety,
    "bishop-pair": BishopPair,
    "insufficient-material": InsufficientMaterial,
    "tempo": Tempo,
    "pawn-islands": PawnIslands,
}
