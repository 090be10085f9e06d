"""Root-specific patterns: knowledge the Oracle freezes at the root, mostly into the
first-order table, as Hitech's Oracle did (its "root-specific tables").

Each pattern is built from a root's analysis (:mod:`host.analysis`). Most are a function
``g(piece, square)`` summed over the pieces on the board — their ``definition`` over any
position is that sum, exactly, so the compiled table equals it by construction; one is a
recognizer (:class:`KingsClose`: the kings' distance in a mating net). The tests check the
evaluator model and the hardware against every definition. What the root decided (which
files are open, where the outposts are, where the enemy king lives, what the targets are)
stays fixed for the search below it; a search of a few plies rarely changes it, and the next
root analyses again. Every pattern also says how much it matters at a root (``relevance``: 0
when it does not apply), which the Oracle's allocation uses.

Values are from White's side (positive good for White), in centipawns.
"""

import copy

import chess

from hdl.eval.tables import ExtSource

from .analysis import PHASE_TOTAL, PHASE_WEIGHTS, PIECE_VALUES
from .chunker.chunks import ATTACKER, DEFENDER, Chunk, library
from .patterns import NON_PAWN_MATERIAL, PAWN_ENDING_BIT, KingSafety, colour_sign
from .tables import Context, FirstOrder, InstalledUnits, Recognizer

__all__ = ["RootPattern", "Weighted", "WeightedRecognizers", "recognizers_of", "unit_values",
           "RooksOnOpenFiles", "Outposts", "PassedPawns", "KingPressure", "TargetBearing",
           "Development", "CentrePawns", "BadBishop", "KingToTheEdge", "mating_net", "DECISIVE_MARGIN",
           "RookBehindPassers", "KingNearPassers",
           "KingsClose", "RuleOfTheSquare", "ChunkRace", "PawnStorm", "OpenFilesAtTheKing", "Blockade", "TrappedBishop",
           "OppositeBishops", "EarlyQueen", "MajorityAdvance", "BackwardPawns", "KingInTheCentre",
           "RookOnTheSeventh", "KingActivity", "CentreControl", "Mobility", "KingTropism", "TrappedRook",
           "TradeWhenAhead", "KeySquares", "DoubledRooks", "WrongBishop", "ConnectedPassers", "KingAttack",
           "ChainBase", "PawnEndingKings", "chain_bases", "key_squares", "ROOT_PATTERNS"]


def _relative_rank(colour, square):
    rank = chess.square_rank(square)
    return rank if colour == chess.WHITE else 7 - rank


def _pieces(analysis):
    """How many pieces (not kings, not pawns) both sides have at the root."""
    return sum(analysis.material[c][t] for c in chess.COLORS for t in (chess.KNIGHT, chess.BISHOP, chess.ROOK,
                                                                       chess.QUEEN))


def _phase_weight(board):
    return min(PHASE_TOTAL, sum(PHASE_WEIGHTS.get(p.piece_type, 0) for p in board.piece_map().values()))


class RootPattern:
    """A first-order pattern for one root: ``g(piece, square)`` summed over the board."""

    #: The family the pattern belongs to (for the Oracle's report and the family matches).
    family = ""

    def __init__(self, analysis, board):
        """Built from the root's ``analysis`` and ``board`` (a pattern that needs neither keeps
        nothing)."""

    def g(self, piece, square):
        raise NotImplementedError

    def definition(self, board):
        return sum(self.g(piece, square) for square, piece in board.piece_map().items())

    def install(self, image):
        image.add_first_order(FirstOrder(self.g))

    @staticmethod
    def relevance(analysis):
        """How much the pattern matters at the root of ``analysis`` (0: it does not apply)."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__


class Weighted(RootPattern):
    """A first-order pattern at ``weight`` times its values: ``g`` is ``round(weight * g)`` of
    ``pattern`` (the Oracle's fitted weights, :mod:`host.pattern_weights`)."""

    def __init__(self, pattern, weight):
        self.pattern, self.weight, self.family = pattern, weight, pattern.family

    def g(self, piece, square):
        return round(self.weight * self.pattern.g(piece, square))

    def __repr__(self):
        return f"{self.pattern!r} x{self.weight:g}"


class WeightedRecognizers:
    """A recognizer pattern at ``weight`` times its values: each of its recognizers' outputs
    ``v`` becomes ``round(weight * v / step) * step``, ``step`` the output's step (``1 <<
    shift``: its final map holds 8-bit values), so that the tables still hold what they say.
    The definition is the same sum over the pattern's units, each unit's value from
    :func:`unit_values`. Its recognizers are the pattern's, their final maps scaled (made once,
    so a general pattern compiles once)."""

    def __init__(self, pattern, weight):
        self.pattern, self.weight = pattern, weight
        self.family = getattr(pattern, "family", None)
        self._units = None

    def units(self):
        """The pattern's recognizers with their final maps scaled, in the order it installs them."""
        if self._units is None:
            self._units = [self._scaled(unit) for unit in recognizers_of(self.pattern)]
        return self._units

    def scale(self, value, shift):
        """A unit's output ``value`` (a multiple of ``1 << shift``) at the weight."""
        step = 1 << shift
        return round(self.weight * value / step) * step

    def _scaled(self, unit):
        scaled = copy.copy(unit)
        scaled.final = lambda summary, contexts: (
            None if (value := unit.final(summary, contexts)) is None else self.scale(value, unit.shift))
        return scaled

    def definition(self, board):
        units = self.units()
        values = unit_values(self.pattern, board, len(units))
        return sum(self.scale(value, unit.shift) for value, unit in zip(values, units))

    def install(self, image):
        for unit in self.units():
            image.add_recognizer(unit)

    def __repr__(self):
        return f"{self.pattern!r} x{self.weight:g}"


def recognizers_of(pattern):
    """The recognizers ``pattern`` installs, in order (``TypeError`` if it installs a first-order
    term too: such a pattern is weighed as a first-order one)."""
    installed = InstalledUnits()
    pattern.install(installed)
    if installed.first_order_terms:
        raise TypeError(f"{pattern!r} installs first-order terms: it is weighed as a first-order pattern")
    return installed.recognizers


def unit_values(pattern, board, units):
    """``[value]``: what each of the ``units`` recognizers ``pattern`` installs gives ``board``,
    in the order it installs them (their sum is its definition): the pattern's own
    ``unit_values`` where it has several, else its definition from its one unit (none from
    none). ``TypeError`` when the values do not match the units one to one."""
    if hasattr(pattern, "unit_values"):
        values = pattern.unit_values(board)
    elif units == 0:
        values = []
    elif units == 1:
        values = [pattern.definition(board)]
    else:
        raise TypeError(f"{pattern!r} installs {units} recognizers and does not say what each gives (unit_values)")
    if len(values) != units:
        raise TypeError(f"{pattern!r} gives {len(values)} unit values for {units} recognizers")
    return values


class RooksOnOpenFiles(RootPattern):
    """A rook on a file open at the root: 25; on a file half-open for its side (no own pawn, an
    enemy one): 12."""

    family = "pieces"
    OPEN, HALF_OPEN = 25, 12

    def __init__(self, analysis, board):
        self.open, self.half_open = set(analysis.open_files), {c: set(f) for c, f in analysis.half_open.items()}

    def g(self, piece, square):
        if piece.piece_type != chess.ROOK:
            return 0
        file = chess.square_file(square)
        bonus = self.OPEN if file in self.open else self.HALF_OPEN if file in self.half_open[piece.color] else 0
        return colour_sign(piece.color) * bonus

    @staticmethod
    def relevance(analysis):
        has_rooks = any(analysis.material[c][chess.ROOK] for c in chess.COLORS)
        return (len(analysis.open_files) + 0.5 * sum(map(len, analysis.half_open.values()))) if has_rooks else 0


class Outposts(RootPattern):
    """A knight on one of its side's outposts at the root (a square in the enemy half its pawn
    defends and no enemy pawn can attack): 25; a bishop: 12."""

    family = "pieces"
    BONUS = {chess.KNIGHT: 25, chess.BISHOP: 12}

    def __init__(self, analysis, board):
        self.outposts = {c: set(s) for c, s in analysis.outposts.items()}

    def g(self, piece, square):
        if square not in self.outposts[piece.color]:
            return 0
        return colour_sign(piece.color) * self.BONUS.get(piece.piece_type, 0)

    @staticmethod
    def relevance(analysis):
        minors = {c: analysis.material[c][chess.KNIGHT] + analysis.material[c][chess.BISHOP] for c in chess.COLORS}
        return sum(len(analysis.outposts[c]) * (minors[c] > 0) for c in chess.COLORS)


class PassedPawns(RootPattern):
    """A pawn on a square where the root's enemy pawns could not stop it (none ahead on its file
    or the neighbouring ones): a bonus by its rank — 10, 12, 20, 35, 60, 100 from the second
    rank to the seventh — scaled from x1 with all the pieces on the board to x2 with none (the
    root's phase)."""

    family = "pawns"
    BONUS = (0, 10, 12, 20, 35, 60, 100, 0)

    def __init__(self, analysis, board):
        weight = _phase_weight(board)
        self.scale = (2 * PHASE_TOTAL - weight, PHASE_TOTAL)
        self.enemy_pawns = {c: set(board.pieces(chess.PAWN, not c)) for c in chess.COLORS}

    def passed(self, colour, square):
        f, r = chess.square_file(square), _relative_rank(colour, square)
        return not any(abs(chess.square_file(p) - f) <= 1 and _relative_rank(colour, p) > r
                       for p in self.enemy_pawns[colour])

    def g(self, piece, square):
        if piece.piece_type != chess.PAWN or not self.passed(piece.color, square):
            return 0
        bonus = self.BONUS[_relative_rank(piece.color, square)] * self.scale[0] // self.scale[1]
        return colour_sign(piece.color) * bonus

    @staticmethod
    def relevance(analysis):
        passers = sum(len(analysis.pawns[c].passed) for c in chess.COLORS)
        return passers * (2 - analysis.phase)


class KingPressure(RootPattern):
    """A piece (not a pawn or king) bearing on the enemy king's zone at the root (its square and
    the squares around it), counted with the root's pieces in the way: 5 per zone square for a
    knight or bishop, 4 for a rook, 3 for a queen, at most four squares counted, scaled by the
    root's phase (nothing in a pawn ending)."""

    family = "king"
    WEIGHT = {chess.KNIGHT: 5, chess.BISHOP: 5, chess.ROOK: 4, chess.QUEEN: 3}

    def __init__(self, analysis, board):
        self.board = board.copy(stack=False)
        self.zones = {c: chess.SquareSet(chess.BB_KING_ATTACKS[analysis.kings[c].square]
                                         | chess.BB_SQUARES[analysis.kings[c].square]) for c in chess.COLORS}
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type not in self.WEIGHT:
            return 0
        attacks = _attacks_from(self.board, piece, square)
        count = min(4, len(attacks & self.zones[not piece.color]))
        return colour_sign(piece.color) * self.WEIGHT[piece.piece_type] * count * self.weight // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        return analysis.phase * (1 + sum(k.attackers for k in analysis.kings.values())) if analysis.phase > 0.2 else 0


class TargetBearing(RootPattern):
    """A piece on a square from which it attacks (with the root's pieces in the way) a piece the
    root analysis names its side's target — won by a swap-off, pinned or defended by an
    overloaded piece: 8 per target, at most two."""

    family = "root"
    BONUS = 8

    def __init__(self, analysis, board):
        self.board = board.copy(stack=False)
        self.targets = {c: set(analysis.targets[c]) for c in chess.COLORS}

    def g(self, piece, square):
        if not self.targets[piece.color] or piece.piece_type == chess.KING:
            return 0
        attacked = _attacks_from(self.board, piece, square) & self.targets[piece.color]
        return colour_sign(piece.color) * self.BONUS * min(2, len(attacked))

    @staticmethod
    def relevance(analysis):
        return sum(len(t) for t in analysis.targets.values())


class Development(RootPattern):
    """In the opening: a knight or bishop still on its first square, 15 (times the root's
    phase, counted from the middle of the game: nothing once half the pieces are gone); it
    matters as many minor pieces as are still at home."""

    family = "pieces"
    HOME = {chess.KNIGHT: (chess.B1, chess.G1), chess.BISHOP: (chess.C1, chess.F1)}
    PENALTY = 15

    def __init__(self, analysis, board):
        self.scale = max(0, 2 * _phase_weight(board) - PHASE_TOTAL)

    def g(self, piece, square):
        home = self.HOME.get(piece.piece_type, ())
        own = square if piece.color == chess.WHITE else chess.square_mirror(square)
        if own not in home:
            return 0
        return -colour_sign(piece.color) * self.PENALTY * self.scale // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        board = analysis.board()
        return max(0.0, 2 * analysis.phase - 1) * sum(_minors_home(board, c) for c in chess.COLORS)


class CentrePawns(RootPattern):
    """Pawns in the centre: 15 on d4 or e4 (d5 or e5 for Black), 8 one rank further, 5 on c4 or
    f4 (c5, f5), scaled by the root's phase."""

    family = "pawns"
    BONUS = {chess.D4: 15, chess.E4: 15, chess.D5: 8, chess.E5: 8, chess.C4: 5, chess.F4: 5}

    def __init__(self, analysis, board):
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type != chess.PAWN:
            return 0
        own = square if piece.color == chess.WHITE else chess.square_mirror(square)
        return colour_sign(piece.color) * self.BONUS.get(own, 0) * self.weight // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        return analysis.phase * 2 if any(analysis.material[c][chess.PAWN] for c in chess.COLORS) else 0


class BadBishop(RootPattern):
    """A bishop whose own pawns (at the root) stand on its colour of square: 4 per such pawn
    beyond two."""

    family = "pieces"
    PENALTY = 4

    def __init__(self, analysis, board):
        self.on_colour = {c: [0, 0] for c in chess.COLORS}      # [dark, light] squares
        for colour in chess.COLORS:
            for square in board.pieces(chess.PAWN, colour):
                self.on_colour[colour][_light(square)] += 1

    def g(self, piece, square):
        if piece.piece_type != chess.BISHOP:
            return 0
        extra = max(0, self.on_colour[piece.color][_light(square)] - 2)
        return -colour_sign(piece.color) * self.PENALTY * extra

    @staticmethod
    def relevance(analysis):
        return 1 if any(analysis.material[c][chess.BISHOP] and analysis.material[c][chess.PAWN] > 2
                        for c in chess.COLORS) else 0


def _attacks_from(board, piece, square):
    """The squares ``piece`` would attack from ``square`` on the root's ``board`` (its lines
    blocked by the root's pieces)."""
    return chess.SquareSet(attack_mask(piece, square, board.occupied))


def attack_mask(piece, square, occupied):
    """The attack mask of ``piece`` on ``square`` with ``occupied`` in the way."""
    kind, mask = piece.piece_type, 0
    if kind == chess.PAWN:
        return chess.BB_PAWN_ATTACKS[piece.color][square]
    if kind == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[square]
    if kind == chess.KING:
        return chess.BB_KING_ATTACKS[square]
    if kind in (chess.BISHOP, chess.QUEEN):
        mask |= chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & occupied]
    if kind in (chess.ROOK, chess.QUEEN):
        mask |= (chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occupied]
                 | chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occupied])
    return mask


def _light(square):
    return (chess.square_file(square) + chess.square_rank(square)) % 2


#: How much more than the other side's pieces a side's pieces must be worth (centipawns) for a
#: mating net against a pawnless side: a queen against a rook, a rook against a bare king.
DECISIVE_MARGIN = 400


def mating_net(analysis):
    """``(weak colour, the stronger side's material)`` when one side has no pawns and the other
    mating material (a queen, a rook, two bishops, or bishop and knight) worth ``DECISIVE_MARGIN`` more than
    its pieces — a queen against a minor piece or a rook, a rook against a bare king — else
    ``None``."""
    for weak in chess.COLORS:
        own, strong = analysis.material[weak], analysis.material[not weak]
        if own[chess.PAWN]:
            continue
        mating = (strong[chess.QUEEN] or strong[chess.ROOK] or strong[chess.BISHOP] >= 2
                  or (strong[chess.BISHOP] and strong[chess.KNIGHT]))
        pieces = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
        margin = sum(PIECE_VALUES[t] * (strong[t] - own[t]) for t in pieces)
        if mating and margin >= DECISIVE_MARGIN:
            return weak, strong
    return None


class KingToTheEdge(RootPattern):
    """Mating nets against a pawnless side that the other outweighs decisively
    (:func:`mating_net`: a bare king, or a queen against a minor piece or a rook): its king loses
    12 per step it stands from the nearest edge, or — a bare king against bishop and knight
    alone — 40 per king step from the nearest corner of the bishop's colour (only those corners
    mate; at 10 a step the pieces' own squares outweighed it and the king got away): the
    stronger side's gain. The net's second half is :class:`KingsClose`."""

    family = "endgame"
    EDGE_STEP = 12
    CORNER_STEP = 40

    def __init__(self, analysis, board):
        self.weak, self.corners = None, None
        net = mating_net(analysis)
        if net:
            self.weak, strong = net
            bishops = board.pieces(chess.BISHOP, not self.weak)
            bare = not any(analysis.material[self.weak].values())
            if bare and not strong[chess.QUEEN] and not strong[chess.ROOK] and len(bishops) == 1:
                light = _light(next(iter(bishops)))
                self.corners = [c for c in (chess.A1, chess.H1, chess.A8, chess.H8) if _light(c) == light]

    def g(self, piece, square):
        if piece.piece_type != chess.KING or piece.color != self.weak:
            return 0
        if self.corners:
            return colour_sign(self.weak) * self.CORNER_STEP * min(chess.square_distance(square, c)
                                                                   for c in self.corners)
        f, r = chess.square_file(square), chess.square_rank(square)
        return colour_sign(self.weak) * self.EDGE_STEP * min(f, 7 - f, r, 7 - r)

    @staticmethod
    def relevance(analysis):
        return 10 if mating_net(analysis) else 0


class RookBehindPassers(RootPattern):
    """Rooks belong behind passed pawns (Tarrasch): a rook on the file of one of the root's
    passed pawns, behind it as the pawn's owner sees the file (its own rook supporting it, or
    the enemy's chasing it), 15."""

    family = "pieces"
    BONUS = 15

    def __init__(self, analysis, board):
        self.behind = {}            # square -> the owner of the passer it stands behind
        for colour in chess.COLORS:
            for passer in analysis.pawns[colour].passed:
                file, rank = chess.square_file(passer), _relative_rank(colour, passer)
                for square in chess.SQUARES:
                    if chess.square_file(square) == file and _relative_rank(colour, square) < rank:
                        self.behind.setdefault(square, set()).add(colour)

    def g(self, piece, square):
        if piece.piece_type != chess.ROOK or square not in self.behind:
            return 0
        return colour_sign(piece.color) * self.BONUS

    @staticmethod
    def relevance(analysis):
        rooks = sum(analysis.material[c][chess.ROOK] for c in chess.COLORS)
        return 0.5 * rooks * sum(len(analysis.pawns[c].passed) for c in chess.COLORS)


class KingNearPassers(RootPattern):
    """In the ending, kings go to the passed pawns: each king gains 3 per step it stands closer
    than seven to each of the root's passers' queening squares (an enemy passer's, to stop it;
    its own, to escort it), scaled from nothing with all the pieces on the board to x1 with
    none (the root's phase)."""

    family = "endgame"
    STEP = 3

    def __init__(self, analysis, board):
        self.goals = [chess.square(chess.square_file(p), 7 if c == chess.WHITE else 0)
                      for c in chess.COLORS for p in analysis.pawns[c].passed]
        self.scale = PHASE_TOTAL - _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type != chess.KING:
            return 0
        near = sum(7 - chess.square_distance(square, goal) for goal in self.goals)
        return colour_sign(piece.color) * self.STEP * near * self.scale // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        return (1 - analysis.phase) * sum(len(analysis.pawns[c].passed) for c in chess.COLORS)


class PawnStorm(RootPattern):
    """Kings castled on opposite wings (at the root): each side's pawns on the three files
    around the enemy king's file gain as they advance — 5, 10, 20, 30 on its fourth to seventh
    rank (relative) — scaled by the root's phase."""

    family = "king"
    GAIN = (0, 0, 0, 5, 10, 20, 30, 0)

    def __init__(self, analysis, board):
        self.files = {c: _files_around(analysis.kings[not c].square) for c in chess.COLORS}
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type != chess.PAWN or chess.square_file(square) not in self.files[piece.color]:
            return 0
        return colour_sign(piece.color) * self.GAIN[_relative_rank(piece.color, square)] * self.weight // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        files = [chess.square_file(analysis.kings[c].square) for c in chess.COLORS]
        return 2.0 * analysis.phase if analysis.phase > 0.4 and abs(files[0] - files[1]) >= 3 else 0


class OpenFilesAtTheKing(RootPattern):
    """Rooks and queens on the files around the enemy king (its file and the two beside it)
    that are open, or half-open for their side, at the root: 20 (rook) or 12 (queen), scaled by
    the root's phase."""

    family = "king"
    BONUS = {chess.ROOK: 20, chess.QUEEN: 12}

    def __init__(self, analysis, board):
        self.files = {c: {f for f in _files_around(analysis.kings[not c].square)
                          if f in analysis.open_files or f in analysis.half_open[c]} for c in chess.COLORS}
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type not in self.BONUS or chess.square_file(square) not in self.files[piece.color]:
            return 0
        return colour_sign(piece.color) * self.BONUS[piece.piece_type] * self.weight // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        if analysis.phase <= 0.3:
            return 0
        return analysis.phase * sum(
            1 for c in chess.COLORS for f in _files_around(analysis.kings[not c].square)
            if f in analysis.open_files or f in analysis.half_open[c])


class Blockade(RootPattern):
    """A piece on the square in front of an enemy passed pawn (the root's): a knight 25, a
    bishop 15, the king 10 — the best blockaders first (Nimzowitsch)."""

    family = "pawns"
    BONUS = {chess.KNIGHT: 25, chess.BISHOP: 15, chess.KING: 10}

    def __init__(self, analysis, board):
        self.stops = {c: set() for c in chess.COLORS}     # squares where ``c`` blockades
        for colour in chess.COLORS:
            step = 8 if colour == chess.WHITE else -8
            for passer in analysis.pawns[colour].passed:
                if 0 <= passer + step < 64:
                    self.stops[not colour].add(passer + step)

    def g(self, piece, square):
        if square not in self.stops[piece.color]:
            return 0
        return colour_sign(piece.color) * self.BONUS.get(piece.piece_type, 0)

    @staticmethod
    def relevance(analysis):
        return 0.7 * sum(len(analysis.pawns[c].passed) for c in chess.COLORS)


class TrappedPiece(RootPattern):
    """A piece of ``KIND`` on one of the squares the root makes a trap for its side (``traps``:
    colour -> squares as White sees them) loses ``PENALTY``."""

    KIND, PENALTY = None, 0

    def g(self, piece, square):
        if piece.piece_type != self.KIND or _mirror_for(piece.color, square) not in self.traps[piece.color]:
            return 0
        return -colour_sign(piece.color) * self.PENALTY


class TrappedBishop(TrappedPiece):
    """A bishop on a7 or h7 (a2 or h2 for Black) with an enemy pawn on b6 or g6 (b3, g3) at the
    root — the pawn cuts its way out: 80."""

    family = "pieces"
    KIND, PENALTY = chess.BISHOP, 80
    TRAPS = ((chess.A7, chess.B6), (chess.H7, chess.G6), (chess.B8, chess.C7), (chess.G8, chess.F7))

    def __init__(self, analysis, board):
        self.traps = {c: {trap for trap, pawn in self.TRAPS
                          if board.piece_at(_mirror_for(c, pawn)) == chess.Piece(chess.PAWN, not c)}
                      for c in chess.COLORS}

    @staticmethod
    def relevance(analysis):
        board = analysis.board()
        return 1.0 if any(board.pieces(chess.BISHOP, c) and board.piece_at(_mirror_for(c, pawn))
                          == chess.Piece(chess.PAWN, not c) for c in chess.COLORS
                          for _, pawn in TrappedBishop.TRAPS) else 0


class OppositeBishops(RootPattern):
    """Bishops of opposite colours and no other pieces (at the root): the endings are drawish,
    so every pawn counts 30 less for its side — a pawn up is worth 70, not 100."""

    family = "endgame"
    DISCOUNT = 30

    def g(self, piece, square):
        return -colour_sign(piece.color) * self.DISCOUNT if piece.piece_type == chess.PAWN else 0

    @staticmethod
    def relevance(analysis):
        board = analysis.board()
        bishops = [list(board.pieces(chess.BISHOP, c)) for c in chess.COLORS]
        others = any(analysis.material[c][t] for c in chess.COLORS for t in (chess.KNIGHT, chess.ROOK, chess.QUEEN))
        if others or [len(b) for b in bishops] != [1, 1] or _light(bishops[0][0]) == _light(bishops[1][0]):
            return 0
        return 5.0


class EarlyQueen(RootPattern):
    """In the opening, with two or more of its side's minor pieces still at home (at the
    root): a queen beyond its side's second rank, 15 — it gets chased while the others sleep."""

    family = "pieces"
    PENALTY = 15

    def __init__(self, analysis, board):
        self.sleepy = {c: _minors_home(board, c) >= 2 for c in chess.COLORS}

    def g(self, piece, square):
        if piece.piece_type != chess.QUEEN or not self.sleepy[piece.color] or _relative_rank(piece.color, square) < 2:
            return 0
        return -colour_sign(piece.color) * self.PENALTY

    @staticmethod
    def relevance(analysis):
        board = analysis.board()
        return 1.5 if analysis.phase > 0.7 and any(_minors_home(board, c) >= 2 for c in chess.COLORS) else 0


class MajorityAdvance(RootPattern):
    """A pawn majority on a wing (at the root) makes a passer: the majority's pawns on that
    wing gain 4 per rank advanced beyond their second, scaled from nothing with all the pieces
    on the board to x1 with none (the root's phase)."""

    family = "pawns"
    STEP = 4
    WINGS = {"queen": range(0, 4), "king": range(4, 8)}

    def __init__(self, analysis, board):
        self.files = {c: {f for wing in analysis.pawns[c].majorities for f in self.WINGS[wing]} for c in chess.COLORS}
        self.scale = PHASE_TOTAL - _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type != chess.PAWN or chess.square_file(square) not in self.files[piece.color]:
            return 0
        gain = self.STEP * max(0, _relative_rank(piece.color, square) - 1)
        return colour_sign(piece.color) * gain * self.scale // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        return (1 - analysis.phase) * sum(len(analysis.pawns[c].majorities) for c in chess.COLORS)


class BackwardPawns(RootPattern):
    """The root's backward pawns: each still on its square loses 12 (it stays weak while it
    stays there), and an enemy knight or rook on the hole in front of it gains 10."""

    family = "pawns"
    PENALTY, HOLE = 12, 10

    def __init__(self, analysis, board):
        self.backward = {c: set(analysis.pawns[c].backward) for c in chess.COLORS}
        self.holes = {c: set() for c in chess.COLORS}     # where ``c``'s pieces sit in front of them
        for owner in chess.COLORS:
            step = 8 if owner == chess.WHITE else -8
            self.holes[not owner] |= {s + step for s in analysis.pawns[owner].backward}

    def g(self, piece, square):
        if piece.piece_type == chess.PAWN and square in self.backward[piece.color]:
            return -colour_sign(piece.color) * self.PENALTY
        if piece.piece_type in (chess.KNIGHT, chess.ROOK) and square in self.holes[piece.color]:
            return colour_sign(piece.color) * self.HOLE
        return 0

    @staticmethod
    def relevance(analysis):
        return 0.8 * sum(len(analysis.pawns[c].backward) for c in chess.COLORS)


class KingInTheCentre(RootPattern):
    """A king that has lost its castling rights at the root and stands on the centre files (c
    to f) of its first two ranks loses 30, scaled by the root's phase: it is cut off from
    castling while the pieces are on."""

    family = "king"
    PENALTY = 30

    def __init__(self, analysis, board):
        self.stuck = {c: not analysis.kings[c].castling and not analysis.kings[c].castled for c in chess.COLORS}
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type != chess.KING or not self.stuck[piece.color]:
            return 0
        if 2 <= chess.square_file(square) <= 5 and _relative_rank(piece.color, square) <= 1:
            return -colour_sign(piece.color) * self.PENALTY * self.weight // PHASE_TOTAL
        return 0

    @staticmethod
    def relevance(analysis):
        if analysis.phase <= 0.4:
            return 0
        return 2.0 * sum(not k.castling and not k.castled for k in analysis.kings.values())


def _files_around(square):
    file = chess.square_file(square)
    return {f for f in (file - 1, file, file + 1) if 0 <= f < 8}


def _mirror_for(colour, square):
    """``square`` as ``colour`` sees it (White's squares unchanged, Black's mirrored)."""
    return square if colour == chess.WHITE else chess.square_mirror(square)


def _minors_home(board, colour):
    return sum(board.piece_at(_mirror_for(colour, square)) == chess.Piece(kind, colour)
               for kind, squares in Development.HOME.items() for square in squares)


def _king_squares(piece, square):
    """The kings' squares as a recognizer's fields ``white`` and ``black``."""
    if piece.piece_type != chess.KING:
        return {}
    return {"white" if piece.color == chess.WHITE else "black": square}


class KingsClose:
    """The mating nets' second half (a recognizer): in a mating net (:func:`mating_net`) the
    stronger side's king comes close — 6 per step nearer than seven (the kings' distance). White's
    king square in branch A, Black's in B."""

    family = "endgame"
    STEP = 6

    def __init__(self, analysis, board):
        net = mating_net(analysis)
        self.strong = None if net is None else not net[0]

    def value(self, white_king, black_king):
        if self.strong is None:
            return 0
        return colour_sign(self.strong) * self.STEP * (7 - chess.square_distance(white_king, black_king))

    def definition(self, board):
        return self.value(board.king(chess.WHITE), board.king(chess.BLACK))

    def install(self, image):
        image.add_recognizer(Recognizer(
            fields_a=[("white", 6)], fields_b=[("black", 6)], description=_king_squares,
            summary_a=lambda v, ext: v["white"], summary_b=lambda v, ext: v["black"],
            combine=lambda w, b: self.value(w, b), final=lambda value, contexts: value))

    relevance = staticmethod(KingToTheEdge.relevance)

    def __repr__(self):
        return type(self).__name__


def _pawn_ending(board):
    """Whether ``board`` is a pawn ending: no piece but the kings and pawns (where the races of
    :class:`RuleOfTheSquare` and :class:`ChunkRace` and the kings of :class:`PawnEndingKings`
    count; a promotion in the search ends a race)."""
    return all(piece.piece_type in (chess.PAWN, chess.KING) for piece in board.piece_map().values())


def _in_pawn_endings(value, contexts):
    """A pawn ending's recognizer's final map (:func:`_pawn_ending` in hardware): ``value`` where
    its context, the pawn-ending bit of :data:`~host.patterns.NON_PAWN_MATERIAL`, is set, else 0."""
    return value if contexts[0] & 1 else 0


class RuleOfTheSquare:
    """Pawn endings: a passed pawn the enemy king cannot catch. For each side's most advanced
    passer at the root (its file), while exactly one pawn of that side stands on the file: if
    the enemy king is farther from the queening square (in king steps) than the pawn is from
    queening (a pawn on its second rank as if on its third), with one step more when the king's
    side is to move, the pawn's side gains 400 — while no piece but the kings and pawns is on the
    board (a queen promoted in the search ends the race: :func:`_pawn_ending`). A recognizer: per
    side, in one branch, its pawns on that file (count and rank) and the enemy king's square; the
    side to move is the branch's external bit; the context "a pawn ending" from the global unit
    :data:`~host.patterns.NON_PAWN_MATERIAL`."""

    family = "endgame"
    GAIN = 400

    def __init__(self, analysis, board):
        self.files = {}
        for colour in chess.COLORS:
            passers = analysis.pawns[colour].passed
            if passers:
                lead = max(passers, key=lambda s: (_relative_rank(colour, s), -s))
                self.files[colour] = chess.square_file(lead)

    def unstoppable(self, colour, pawn_rank, king, mover):
        """Whether ``colour``'s lone pawn on its file at relative rank ``pawn_rank`` outruns the
        enemy king on ``king`` (``mover``: the side to move)."""
        moves = 7 - max(pawn_rank, 2)
        goal = chess.square(self.files[colour], 7 if colour == chess.WHITE else 0)
        return chess.square_distance(king, goal) > moves + (mover != colour)

    def side_value(self, board, colour):
        if colour not in self.files:
            return 0
        pawns = [s for s in board.pieces(chess.PAWN, colour) if chess.square_file(s) == self.files[colour]]
        king = board.king(not colour)
        if len(pawns) != 1 or king is None:
            return 0
        return colour_sign(colour) * self.GAIN * self.unstoppable(colour, _relative_rank(colour, pawns[0]), king,
                                                            board.turn)

    def definition(self, board):
        return sum(self.side_value(board, colour) for colour in chess.COLORS) if _pawn_ending(board) else 0

    def _branch(self, colour):
        tag = "w" if colour == chess.WHITE else "b"
        # (the rank field wraps when two pawns or more share the file: the count says so)
        fields = [(f"{tag}n", 3), (f"{tag}rank", 3), (f"{tag}king", 6)]

        def summary(v, ext):
            if colour not in self.files or v[f"{tag}n"] != 1:
                return 0
            mover = chess.BLACK if ext else chess.WHITE
            return self.unstoppable(colour, v[f"{tag}rank"], v[f"{tag}king"], mover)
        return fields, summary, (lambda v: v[f"{tag}n"] <= 6)

    def install(self, image):
        def description(piece, square):
            if piece.piece_type == chess.KING:
                return {("b" if piece.color == chess.WHITE else "w") + "king": square}
            if (piece.piece_type == chess.PAWN and piece.color in self.files
                    and chess.square_file(square) == self.files[piece.color]):
                tag = "w" if piece.color == chess.WHITE else "b"
                return {f"{tag}n": 1, f"{tag}rank": _relative_rank(piece.color, square)}
            return {}

        fields_w, summary_w, where_w = self._branch(chess.WHITE)
        fields_b, summary_b, where_b = self._branch(chess.BLACK)
        image.add_recognizer(Recognizer(
            fields_a=fields_w, fields_b=fields_b, description=description,
            summary_a=summary_w, summary_b=summary_b, where_a=where_w, where_b=where_b,
            ext_a=ExtSource.SIDE, ext_b=ExtSource.SIDE,
            combine=lambda white, black: self.GAIN * (white - black), final=_in_pawn_endings,
            contexts=[Context(NON_PAWN_MATERIAL, PAWN_ENDING_BIT)], shift=4))

    @staticmethod
    def relevance(analysis):
        pieces = _pieces(analysis)
        passers = sum(len(analysis.pawns[c].passed) for c in chess.COLORS)
        return 8.0 if not pieces and passers else 0

    def __repr__(self):
        return type(self).__name__


class ChunkRace:
    """Pawn endings: a side's passed pawns together outrun the enemy king — CHUNKER's chunk
    library (``host/chunker/chunks.py``; Campbell and Berliner's Kv3CPP chunk: a king against a
    side's passed pawns, played alone), in its KCP variant (the king's side may pass: it has
    moves elsewhere). For each side with two or three passed pawns on files of their own at the
    root (the three most advanced files), while each of those files holds at most one pawn of
    that side (none: taken): if the library says the pawns promote against the lone king, with
    the position's side to move, the pawns' side gains 400. The rule of the square
    (:class:`RuleOfTheSquare`) for two or three pawns at once: they defend each other, and the
    king can stop only so many. Only while no piece but the kings and pawns is on the board, as
    the rule of the square (until 2026-11-30 a queen promoted in the search left the race won:
    BENCHMARKS.md).

    A recognizer per side, a wide one (the maps see 12 state bits a branch): branch A holds the
    enemy king's square and the first two pawns' codes (0 gone, else the rank 2..7 as 1..6;
    the side to move is its external bit) and gives the library's answers over the third
    pawn's code; branch B holds the pawns' counts on the three files and the third pawn's code.
    A file with two pawns or more makes the value 0; the fields are ordered so that the codes'
    sums overflowing then (carries into the next field) never hide it: every carry lands in a
    field above the overflowing one, and B's counts never overflow. Whether the answers fit the
    combining map is what the recognizer's compilation checks (21 to 41 kinds of answers on the
    files tried, of 64 codes); CHUNKER's issue asked it."""

    family = "endgame"
    GAIN = 400
    MOST_FILES = 3

    def __init__(self, analysis, board):
        self.files = {}
        for colour in chess.COLORS:
            leads = {}
            for passer in analysis.pawns[colour].passed:
                file = chess.square_file(passer)
                leads[file] = max(leads.get(file, 0), _relative_rank(colour, passer))
            if len(leads) >= 2:
                chosen = sorted(leads, key=lambda f: (-leads[f], f))[:self.MOST_FILES]
                self.files[colour] = tuple(sorted(chosen))
        self._chunks = {colour: Chunk(colour, files) for colour, files in self.files.items()}

    def wins(self, colour, codes, king, mover):
        """Whether ``colour``'s pawns with ``codes`` (on its chunk's files) promote against the
        enemy king on ``king`` with ``mover`` to move, in the library."""
        turn = ATTACKER if mover == colour else DEFENDER
        return library(colour, self.files[colour], "KCP")[self._chunks[colour].index(codes, king, turn)] is not None

    def side_value(self, board, colour):
        if colour not in self.files:
            return 0
        codes = []
        for file in self.files[colour]:
            pawns = [s for s in board.pieces(chess.PAWN, colour) if chess.square_file(s) == file]
            if len(pawns) > 1:
                return 0
            codes.append(_relative_rank(colour, pawns[0]) if pawns else 0)
        return colour_sign(colour) * self.GAIN * self.wins(colour, codes, board.king(not colour), board.turn)

    def definition(self, board):
        return sum(self.unit_values(board))

    def unit_values(self, board):
        """Each recognizer's value, in the order :meth:`install` installs them (a side each)."""
        ending = _pawn_ending(board)
        return [self.side_value(board, colour) if ending else 0 for colour in chess.COLORS if colour in self.files]

    def _recognizer(self, colour):
        files = self.files[colour]
        first, third = files[:2], files[2:]
        fields_a = [("king", 6)] + [(f"p{k}", 3) for k in range(len(first))]
        fields_b = [(f"n{k}", 3) for k in range(len(files))] + [("p2", 3)] * bool(third)

        def description(piece, square):
            if piece.piece_type == chess.KING and piece.color != colour:
                return {"king": square}
            if piece.piece_type == chess.PAWN and piece.color == colour and chess.square_file(square) in files:
                k = files.index(chess.square_file(square))
                return {f"n{k}": 1, f"p{k}": _relative_rank(colour, square)}
            return {}

        def summary_a(v, ext):
            codes = [v[f"p{k}"] for k in range(len(first))]
            if max(codes) > 6:
                return None                             # a doubled file: B says so
            mover = chess.BLACK if ext else chess.WHITE
            return tuple(self.wins(colour, codes + [last][:len(third)], v["king"], mover)
                         for last in range(7 if third else 1))

        def summary_b(v, ext):
            if any(v[f"n{k}"] > 1 for k in range(len(files))) or (third and v["p2"] > 6):
                return None
            return v["p2"] if third else 0

        return Recognizer(
            fields_a=fields_a, fields_b=fields_b, description=description,
            summary_a=summary_a, summary_b=summary_b, ext_a=ExtSource.SIDE,
            combine=lambda a, b: a is not None and b is not None and a[b],
            final=lambda won, contexts: _in_pawn_endings(colour_sign(colour) * self.GAIN * won, contexts),
            contexts=[Context(NON_PAWN_MATERIAL, PAWN_ENDING_BIT)], shift=4)

    def install(self, image):
        for colour in chess.COLORS:
            if colour in self.files:
                image.add_recognizer(self._recognizer(colour))

    @staticmethod
    def relevance(analysis):
        pieces = _pieces(analysis)
        files = [len({chess.square_file(s) for s in analysis.pawns[c].passed}) for c in chess.COLORS]
        return 8.0 if not pieces and max(files) >= 2 else 0

    def __repr__(self):
        return type(self).__name__


class RookOnTheSeventh(RootPattern):
    """A rook on its seventh rank (relative) where, at the root, the enemy king stands on its
    back rank or enemy pawns on their second: 20; a queen there, 10."""

    family = "pieces"
    BONUS = {chess.ROOK: 20, chess.QUEEN: 10}

    def __init__(self, analysis, board):
        self.active = {c: _seventh_matters(board, c) for c in chess.COLORS}

    def g(self, piece, square):
        if piece.piece_type not in self.BONUS or not self.active[piece.color]:
            return 0
        return colour_sign(piece.color) * self.BONUS[piece.piece_type] * (_relative_rank(piece.color, square) == 6)

    @staticmethod
    def relevance(analysis):
        board = analysis.board()
        return (1.2 - analysis.phase) * sum(
            1 for c in chess.COLORS if _seventh_matters(board, c)
            and (analysis.material[c][chess.ROOK] or analysis.material[c][chess.QUEEN]))


def _seventh_matters(board, colour):
    """Whether ``colour``'s seventh rank holds a target: the enemy king on its back rank or
    enemy pawns on their second."""
    back = 7 if colour == chess.WHITE else 0
    second = 6 if colour == chess.WHITE else 1
    king = board.king(not colour)
    return (king is not None and chess.square_rank(king) == back) or any(
        chess.square_rank(s) == second for s in board.pieces(chess.PAWN, not colour))


class KingActivity(RootPattern):
    """In the ending the king is a fighting piece: each king gains 8 per step its mean
    distance to the root's pawns (of both sides) is below seven, scaled from nothing with all
    the pieces on the board to x1 with none (the root's phase)."""

    family = "endgame"
    STEP = 8

    def __init__(self, analysis, board):
        self.pawns = list(board.pieces(chess.PAWN, chess.WHITE)) + list(board.pieces(chess.PAWN, chess.BLACK))
        self.scale = PHASE_TOTAL - _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type != chess.KING or not self.pawns:
            return 0
        near = sum(7 - chess.square_distance(square, p) for p in self.pawns)
        return colour_sign(piece.color) * self.STEP * near * self.scale // (len(self.pawns) * PHASE_TOTAL)

    @staticmethod
    def relevance(analysis):
        pawns = any(analysis.material[c][chess.PAWN] for c in chess.COLORS)
        return 3.0 * (1 - analysis.phase) if pawns and analysis.phase < 0.5 else 0


class CentreControl(RootPattern):
    """In the opening and middlegame, pieces that bear on the four centre squares (with the
    root's pieces in the way): 4 per square for a pawn or a knight, 3 for a bishop, 1 for a
    rook or queen, scaled by the root's phase."""

    family = "pieces"
    CENTRE = chess.SquareSet([chess.D4, chess.E4, chess.D5, chess.E5])
    WEIGHT = {chess.PAWN: 4, chess.KNIGHT: 4, chess.BISHOP: 3, chess.ROOK: 1, chess.QUEEN: 1}

    def __init__(self, analysis, board):
        self.occupied = board.occupied
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type not in self.WEIGHT:
            return 0
        count = len(chess.SquareSet(attack_mask(piece, square, self.occupied)) & self.CENTRE)
        return colour_sign(piece.color) * self.WEIGHT[piece.piece_type] * count * self.weight // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        return 2.0 * analysis.phase if analysis.phase > 0.6 else 0


class Mobility(RootPattern):
    """A piece's room to move, frozen at the root: for each square a knight, bishop, rook or
    queen could stand on, the squares it would attack there not held by its own side's root
    pawns (the root's pieces in the way), against a typical count — knight 4 and bishop 3 per
    square above or below 4 and 6, rook 2 above or below 7, queen 1 above or below 13."""

    family = "pieces"
    WEIGHT = {chess.KNIGHT: (4, 4), chess.BISHOP: (3, 6), chess.ROOK: (2, 7), chess.QUEEN: (1, 13)}

    def __init__(self, analysis, board):
        self.occupied = board.occupied
        self.own_pawns = {c: board.pieces_mask(chess.PAWN, c) for c in chess.COLORS}

    def g(self, piece, square):
        if piece.piece_type not in self.WEIGHT:
            return 0
        weight, typical = self.WEIGHT[piece.piece_type]
        moves = chess.popcount(attack_mask(piece, square, self.occupied) & ~self.own_pawns[piece.color])
        return colour_sign(piece.color) * weight * (moves - typical)

    @staticmethod
    def relevance(analysis):
        pieces = _pieces(analysis)
        return 1.0 + analysis.phase if pieces else 0


class KingTropism(RootPattern):
    """Pieces near the enemy king (its square at the root): per king step nearer than seven, a
    queen 3, a rook or knight 2, a bishop 1, scaled by the root's phase."""

    family = "king"
    WEIGHT = {chess.QUEEN: 3, chess.ROOK: 2, chess.KNIGHT: 2, chess.BISHOP: 1}

    def __init__(self, analysis, board):
        self.kings = {c: analysis.kings[c].square for c in chess.COLORS}
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type not in self.WEIGHT:
            return 0
        near = 7 - chess.square_distance(square, self.kings[not piece.color])
        return colour_sign(piece.color) * self.WEIGHT[piece.piece_type] * near * self.weight // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        return 1.5 * analysis.phase if analysis.phase > 0.4 else 0


class TrappedRook(TrappedPiece):
    """A king that has lost its castling rights and stepped towards a corner (f1 or g1; b1, c1
    or d1 for the queen's wing) at the root shuts its rook in: a rook on that corner's two
    files of the first two ranks loses 40."""

    family = "pieces"
    KIND, PENALTY = chess.ROOK, 40
    BOXES = {"king": ((chess.F1, chess.G1), (chess.G1, chess.H1, chess.G2, chess.H2)),
             "queen": ((chess.B1, chess.C1, chess.D1), (chess.A1, chess.B1, chess.A2, chess.B2))}

    def __init__(self, analysis, board):
        self.traps = {c: set(_rook_box(c, analysis.kings[c])) for c in chess.COLORS}

    @staticmethod
    def relevance(analysis):
        board = analysis.board()
        return sum(2.0 for c in chess.COLORS for s in _rook_box(c, analysis.kings[c])
                   if board.piece_at(_mirror_for(c, s)) == chess.Piece(chess.ROOK, c))


def _rook_box(colour, king):
    """The squares (as White sees them) where ``colour``'s rook is shut in by its king (a
    KingState)."""
    if king.castling:
        return ()
    own = _mirror_for(colour, king.square)
    return next((box for kings, box in TrappedRook.BOXES.values() if own in kings), ())


class TradeWhenAhead(RootPattern):
    """The side ahead in material at the root (by 150 or more) trades pieces, not pawns: every
    knight, bishop, rook or queen on the board, of either side, counts 8 against it, and each of
    its own pawns 4 for it."""

    family = "material"
    PIECE, PAWN = 8, 4
    MARGIN = 150

    def __init__(self, analysis, board):
        balance = analysis.balance
        self.ahead = None if abs(balance) < self.MARGIN else chess.WHITE if balance > 0 else chess.BLACK

    def g(self, piece, square):
        if self.ahead is None or piece.piece_type == chess.KING:
            return 0
        if piece.piece_type == chess.PAWN:
            return colour_sign(self.ahead) * self.PAWN if piece.color == self.ahead else 0
        return -colour_sign(self.ahead) * self.PIECE

    @staticmethod
    def relevance(analysis):
        return min(3.0, abs(analysis.balance) / 100) if abs(analysis.balance) >= TradeWhenAhead.MARGIN else 0


class KeySquares(RootPattern):
    """Pawn endings are won by the king on the passer's key squares: for each of the root's
    passed pawns, its side's king gains 30 on the three squares two ranks ahead of the pawn (a
    pawn on its fifth or sixth rank: one and two ranks ahead); a rook pawn's are the square
    beside its queening square and the one below that. Scaled from nothing with all the
    pieces on the board to x1 with none."""

    family = "endgame"
    BONUS = 30

    def __init__(self, analysis, board):
        self.keys = {c: set() for c in chess.COLORS}
        for colour in chess.COLORS:
            for passer in analysis.pawns[colour].passed:
                self.keys[colour] |= key_squares(colour, passer)
        self.scale = PHASE_TOTAL - _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type != chess.KING or square not in self.keys[piece.color]:
            return 0
        return colour_sign(piece.color) * self.BONUS * self.scale // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        passers = sum(len(analysis.pawns[c].passed) for c in chess.COLORS)
        return 4.0 * (1 - analysis.phase) ** 2 * passers if analysis.phase < 0.3 else 0


def key_squares(colour, pawn):
    """The key squares of ``colour``'s pawn on ``pawn``: where its king wins the ending."""
    file, rank = chess.square_file(pawn), _relative_rank(colour, pawn)
    if file in (0, 7):
        aside = 1 if file == 0 else 6
        ranks = {(aside, 7), (aside, 6)}
    else:
        ahead = (rank + 2,) if rank < 4 else (rank + 1, rank + 2)
        ranks = {(f, r) for f in (file - 1, file, file + 1) for r in ahead if r <= 7}
    return {chess.square(f, r if colour == chess.WHITE else 7 - r) for f, r in ranks}


class DoubledRooks:
    """Rooks (or a rook and the queen) doubled on a file open or half-open for their side at
    the root: 16 per such file with two heavy pieces or more of one side. A recognizer: per
    side, in one branch, its rooks and queens counted on each of up to four of those files
    (2 bits each: four heavy pieces of one side on one file, which takes two promotions,
    read as none); White's in branch A, Black's in B."""

    family = "pieces"
    BONUS = 16

    def __init__(self, analysis, board):
        self.files = {c: _doubling_files(analysis, c) for c in chess.COLORS}

    def side_files(self, board, colour):
        heavy = board.pieces_mask(chess.ROOK, colour) | board.pieces_mask(chess.QUEEN, colour)
        return sum(chess.popcount(heavy & chess.BB_FILES[f]) % 4 >= 2 for f in self.files[colour])

    def definition(self, board):
        return self.BONUS * (self.side_files(board, chess.WHITE) - self.side_files(board, chess.BLACK))

    def install(self, image):
        def description(piece, square):
            if piece.piece_type not in (chess.ROOK, chess.QUEEN):
                return {}
            file = chess.square_file(square)
            files = self.files[piece.color]
            return {f"{_tag(piece.color)}{files.index(file)}": 1} if file in files else {}

        def branch(colour):
            names = [f"{_tag(colour)}{k}" for k in range(len(self.files[colour]))]
            return [(n, 2) for n in names], (lambda v, ext: sum(v[n] >= 2 for n in names))

        fields_w, summary_w = branch(chess.WHITE)
        fields_b, summary_b = branch(chess.BLACK)
        image.add_recognizer(Recognizer(
            fields_a=fields_w, fields_b=fields_b, description=description, summary_a=summary_w,
            summary_b=summary_b, combine=lambda white, black: self.BONUS * (white - black),
            final=lambda value, contexts: value))

    @staticmethod
    def relevance(analysis):
        return sum(1.5 for c in chess.COLORS if _doubling_files(analysis, c)
                   and analysis.material[c][chess.ROOK] + analysis.material[c][chess.QUEEN] >= 2)

    def __repr__(self):
        return type(self).__name__


def _doubling_files(analysis, colour):
    """Up to four files ``colour`` may double on: the root's open ones, then its half-open
    ones, centre files first."""
    def order(files):
        return sorted(files, key=lambda f: (abs(2 * f - 7), f))
    return (order(analysis.open_files) + order(analysis.half_open[colour] - analysis.open_files))[:4]


def _tag(colour):
    return "w" if colour == chess.WHITE else "b"


class WrongBishop:
    """The wrong rook pawn: a side with only a bishop and pawns, all of them on one rook file,
    whose bishop does not cover the queening square, against a bare king within a step of that
    square, cannot win — its bishop's and pawns' material is taken back (to a multiple of 16).
    The root decides the side and the file (the pattern applies when the root has that
    material). A recognizer: the stronger side's material in branch A (bishops on the wrong
    colour, any other piece, pawns on the file, pawns off it), the bare side's king and other
    men in B."""

    family = "endgame"

    def __init__(self, analysis, board):
        self.strong, self.file = _wrong_bishop(analysis, board)
        if self.strong is not None:
            self.corner = chess.square(self.file, 7 if self.strong == chess.WHITE else 0)

    def drawn_pawns(self, wrong, others, on_file, off_file):
        """The stronger side's pawns on the file if its material is the drawn one, else 0
        (its men counted as the recognizer's fields hold them: bishops of the wrong colour
        modulo 4, other pieces and pawns modulo 8)."""
        return on_file if (wrong, others, off_file) == (1, 0, 0) else 0

    def corner_held(self, king, men):
        """Whether the bare side (``men`` besides its king, modulo 32) holds the corner."""
        return not men and chess.square_distance(king, self.corner) <= 1

    def taken(self, pawns, held):
        return 16 * ((330 + 100 * pawns) // 16) if pawns and held else 0

    def definition(self, board):
        if self.strong is None:
            return 0
        s, weak = self.strong, not self.strong
        bishops = board.pieces(chess.BISHOP, s)
        wrong = sum(_light(b) != _light(self.corner) for b in bishops)
        others = len(bishops) - wrong + sum(len(board.pieces(t, s)) for t in (chess.KNIGHT, chess.ROOK, chess.QUEEN))
        pawns = board.pieces(chess.PAWN, s)
        on_file = sum(chess.square_file(p) == self.file for p in pawns)
        drawn = self.drawn_pawns(wrong % 4, others % 8, on_file % 8, (len(pawns) - on_file) % 8)
        held = self.corner_held(board.king(weak), (chess.popcount(board.occupied_co[weak]) - 1) % 32)
        return -colour_sign(s) * self.taken(drawn, held)

    def install(self, image):
        if self.strong is None:
            return

        def description(piece, square):
            if piece.color != self.strong:
                return {"king": square} if piece.piece_type == chess.KING else {"men": 1}
            if piece.piece_type == chess.BISHOP:
                return {"wrong": 1} if _light(square) != _light(self.corner) else {"others": 1}
            if piece.piece_type in (chess.KNIGHT, chess.ROOK, chess.QUEEN):
                return {"others": 1}
            if piece.piece_type == chess.PAWN:
                return {"on": 1} if chess.square_file(square) == self.file else {"off": 1}
            return {}

        image.add_recognizer(Recognizer(
            fields_a=[("wrong", 2), ("others", 3), ("on", 3), ("off", 3)], fields_b=[("king", 6), ("men", 5)],
            description=description,
            summary_a=lambda v, ext: self.drawn_pawns(v["wrong"], v["others"], v["on"], v["off"]),
            summary_b=lambda v, ext: self.corner_held(v["king"], v["men"]),
            combine=lambda pawns, held: -colour_sign(self.strong) * self.taken(pawns, held),
            final=lambda value, contexts: value, shift=4))

    @staticmethod
    def relevance(analysis):
        return 6.0 if _wrong_bishop(analysis, analysis.board())[0] is not None else 0

    def __repr__(self):
        return type(self).__name__


def _wrong_bishop(analysis, board):
    """(the side, the rook file) of a wrong-bishop ending at the root, or (None, None)."""
    for colour in chess.COLORS:
        own, other = analysis.material[colour], analysis.material[not colour]
        pawns = board.pieces(chess.PAWN, colour)
        files = {chess.square_file(p) for p in pawns}
        if (own[chess.BISHOP] != 1 or any(own[t] for t in (chess.KNIGHT, chess.ROOK, chess.QUEEN))
                or len(files) != 1 or not files <= {0, 7} or any(other.values())):
            continue
        file = files.pop()
        corner = chess.square(file, 7 if colour == chess.WHITE else 0)
        if _light(next(iter(board.pieces(chess.BISHOP, colour)))) != _light(corner):
            return colour, file
    return None, None


class ConnectedPassers:
    """Two passed pawns side by side (at the root, on neighbouring files) that stay within a
    rank of each other defend each other and walk on together: 10 plus 8 per rank the rear one
    has advanced beyond its second. A recognizer: per side, its most advanced such pair's two
    files — the pawns on each, their count (modulo 4) and the sum of their ranks (modulo 8:
    the rank when the pawn is alone) — White's in branch A, Black's in B."""

    family = "pawns"
    BASE, STEP = 10, 8

    def __init__(self, analysis, board):
        self.pairs = {}
        for colour in chess.COLORS:
            pair = _passer_pair(analysis, colour)
            if pair:
                self.pairs[colour] = pair

    def side_value(self, colour, counts, ranks):
        """``counts``/``ranks``: the side's pawns on the pair's two files and their relative
        ranks (the sum, exact when one)."""
        if colour not in self.pairs or counts != (1, 1) or abs(ranks[0] - ranks[1]) > 1:
            return 0
        return self.BASE + self.STEP * (min(ranks) - 1)

    def definition(self, board):
        total = 0
        for colour, files in self.pairs.items():
            pawns = [[_relative_rank(colour, p) for p in board.pieces(chess.PAWN, colour)
                      if chess.square_file(p) == f] for f in files]
            counts = tuple(len(p) % 4 for p in pawns)
            total += colour_sign(colour) * self.side_value(colour, counts, tuple(sum(p) % 8 for p in pawns))
        return total

    def install(self, image):
        def description(piece, square):
            files = self.pairs.get(piece.color, ())
            if piece.piece_type != chess.PAWN or chess.square_file(square) not in files:
                return {}
            k = files.index(chess.square_file(square))
            return {f"{_tag(piece.color)}n{k}": 1, f"{_tag(piece.color)}r{k}": _relative_rank(piece.color, square)}

        def branch(colour):
            t = _tag(colour)
            fields = [(f"{t}n0", 2), (f"{t}r0", 3), (f"{t}n1", 2), (f"{t}r1", 3)]
            return fields, lambda v, ext: self.side_value(colour, (v[f"{t}n0"], v[f"{t}n1"]),
                                                          (v[f"{t}r0"], v[f"{t}r1"]))

        fields_w, summary_w = branch(chess.WHITE)
        fields_b, summary_b = branch(chess.BLACK)
        image.add_recognizer(Recognizer(
            fields_a=fields_w, fields_b=fields_b, description=description, summary_a=summary_w,
            summary_b=summary_b, combine=lambda white, black: white - black,
            final=lambda value, contexts: value))

    @staticmethod
    def relevance(analysis):
        return sum(3.0 * (1.5 - analysis.phase) for c in chess.COLORS if _passer_pair(analysis, c))

    def __repr__(self):
        return type(self).__name__


def _passer_pair(analysis, colour):
    """The files of ``colour``'s most advanced pair of passed pawns on neighbouring files at
    the root, or None."""
    passers = analysis.pawns[colour].passed
    pairs = [(a, b) for a in passers for b in passers if chess.square_file(b) == chess.square_file(a) + 1]
    if not pairs:
        return None
    a, b = max(pairs, key=lambda p: (min(_relative_rank(colour, s) for s in p), -p[0]))
    return chess.square_file(a), chess.square_file(b)


class KingAttack:
    """Attackers gather at the enemy king: per side, its knights, bishops, rooks and queens
    that bear (with the root's pieces in the way) on the enemy king's zone at the root — its
    square and those around it — weigh 2, 2, 3 and 5; with two attackers or more the side gains
    16 x UNITS[weight] (the square of the weight over eight, at most 30), scaled by the non-pawn
    material on the board (the global unit :data:`~host.patterns.NON_PAWN_MATERIAL`: x1/4 to
    x4/4). A recognizer: each side's attackers (count modulo 8, weight modulo 32) in one branch,
    White's in A."""

    family = "king"
    WEIGHT = {chess.KNIGHT: 2, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 5}
    UNITS = tuple(min(30, w * w // 8) for w in range(32))

    def __init__(self, analysis, board):
        zones = {c: chess.BB_KING_ATTACKS[analysis.kings[c].square] | chess.BB_SQUARES[analysis.kings[c].square]
                 for c in chess.COLORS}
        self.bears = {c: {(t, s) for t in self.WEIGHT for s in chess.SQUARES
                          if attack_mask(chess.Piece(t, c), s, board.occupied) & zones[not c]}
                      for c in chess.COLORS}

    def units(self, count, weight):
        return self.UNITS[weight] if count >= 2 else 0

    def definition(self, board):
        phase = KingSafety.phase(sum(KingSafety.MATERIAL.get(p.piece_type, 0) for p in board.piece_map().values()))
        total = 0
        for colour in chess.COLORS:
            attackers = [p.piece_type for s, p in board.piece_map().items()
                         if p.color == colour and (p.piece_type, s) in self.bears[colour]]
            total += colour_sign(colour) * self.units(len(attackers) % 8, sum(self.WEIGHT[t] for t in attackers) % 32)
        return 4 * (phase + 1) * total

    def install(self, image):
        def description(piece, square):
            if (piece.piece_type, square) not in self.bears[piece.color]:
                return {}
            t = _tag(piece.color)
            return {f"{t}n": 1, f"{t}w": self.WEIGHT[piece.piece_type]}

        image.add_recognizer(Recognizer(
            fields_a=[("wn", 3), ("ww", 5)], fields_b=[("bn", 3), ("bw", 5)], description=description,
            summary_a=lambda v, ext: self.units(v["wn"], v["ww"]),
            summary_b=lambda v, ext: self.units(v["bn"], v["bw"]),
            combine=lambda white, black: white - black,
            final=lambda units, contexts: 4 * (contexts[0] + 1) * units,
            contexts=[Context(NON_PAWN_MATERIAL)], shift=2))

    @staticmethod
    def relevance(analysis):
        attackers = sum(k.attackers for k in analysis.kings.values())
        return analysis.phase * (1.5 + 0.5 * min(4, attackers)) if analysis.phase > 0.3 else 0

    def __repr__(self):
        return type(self).__name__


class PawnEndingKings:
    """Pawn endings reached from the root: once no piece but the kings and pawns is left, each
    king's mean distance to the root's pawns counts ``STEP`` a step against it — the measure of
    :class:`KingActivity`, about ten times larger: in a pawn ending a king is worth about that
    much (``data/fit_pawn_endings.py``, least squares on Stockfish's scores of seeded pawn
    endings: 82 to 94 centipawns a step over two seeds, 98 to 105 in a first run; BENCHMARKS.md,
    2026-11-28), where with pieces on the board it is worth little. So the search below a rook or minor-piece
    ending sees which exchange into a pawn ending wins. The pawns are those no swap-off wins at
    the root (the analysis's targets are likely gone by then; all of them if every pawn is a
    target). Each king's term is rounded to ``QUANTUM``, their difference kept within ``LIMIT``
    quanta. A recognizer: White's king square in branch A, Black's in B, the context "a pawn
    ending" from the global unit :data:`~host.patterns.NON_PAWN_MATERIAL`."""

    family = "endgame"
    STEP = 96
    QUANTUM, LIMIT = 32, 15

    def __init__(self, analysis, board):
        pawns = list(board.pieces(chess.PAWN, chess.WHITE)) + list(board.pieces(chess.PAWN, chess.BLACK))
        targets = set(analysis.targets[chess.WHITE]) | set(analysis.targets[chess.BLACK])
        self.pawns = [p for p in pawns if p not in targets] or pawns

    def distance(self, king):
        """``king``'s term: its mean distance to the pawns, ``STEP`` a step, in quanta."""
        return round(self.STEP * sum(chess.square_distance(king, p) for p in self.pawns)
                     / (len(self.pawns) * self.QUANTUM)) if self.pawns else 0

    def value(self, white_king, black_king):
        """The pawn ending's value of the two kings' squares (White's view)."""
        quanta = self.distance(black_king) - self.distance(white_king)
        return self.QUANTUM * max(-self.LIMIT, min(self.LIMIT, quanta))

    def definition(self, board):
        return self.value(board.king(chess.WHITE), board.king(chess.BLACK)) if _pawn_ending(board) else 0

    def install(self, image):
        image.add_recognizer(Recognizer(
            fields_a=[("white", 6)], fields_b=[("black", 6)], description=_king_squares,
            summary_a=lambda v, ext: self.distance(v["white"]), summary_b=lambda v, ext: self.distance(v["black"]),
            combine=lambda white, black: max(-self.LIMIT, min(self.LIMIT, black - white)),
            final=lambda quanta, contexts: _in_pawn_endings(self.QUANTUM * quanta, contexts),
            contexts=[Context(NON_PAWN_MATERIAL, PAWN_ENDING_BIT)], shift=5))

    @staticmethod
    def relevance(analysis):
        """A pawn ending, or one a few exchanges away (four pieces at most), with pawns."""
        pieces = _pieces(analysis)
        if not any(analysis.material[c][chess.PAWN] for c in chess.COLORS) or pieces > 4:
            return 0
        return 4.0 if pieces == 0 else 3.0 if pieces <= 2 else 1.5

    def __repr__(self):
        return type(self).__name__


class ChainBase(RootPattern):
    """Attack a pawn chain at its base (Nimzowitsch): the enemy's chain bases at the root —
    pawns that defend another pawn and have no pawn defending them — are the points to hit. A
    pawn on a square from which it attacks a base (a lever) gains 12; a knight or bishop
    bearing on one (the root's pieces in the way) 8, a rook or queen 5; at most two bases
    counted; scaled by the root's phase."""

    family = "pawns"
    WEIGHT = {chess.PAWN: 12, chess.KNIGHT: 8, chess.BISHOP: 8, chess.ROOK: 5, chess.QUEEN: 5}

    def __init__(self, analysis, board):
        self.bases = {c: chain_bases(board, not c) for c in chess.COLORS}    # what ``c`` aims at
        self.occupied = board.occupied
        self.weight = _phase_weight(board)

    def g(self, piece, square):
        if piece.piece_type not in self.WEIGHT or not self.bases[piece.color]:
            return 0
        hits = chess.popcount(attack_mask(piece, square, self.occupied) & self.bases[piece.color])
        return colour_sign(piece.color) * self.WEIGHT[piece.piece_type] * min(2, hits) * self.weight // PHASE_TOTAL

    @staticmethod
    def relevance(analysis):
        board = analysis.board()
        return analysis.phase * sum(chess.popcount(chain_bases(board, c)) for c in chess.COLORS)


def chain_bases(board, colour):
    """The mask of ``colour``'s chain bases: pawns defending another of its pawns that no pawn
    of its own defends."""
    pawns = board.pieces_mask(chess.PAWN, colour)
    bases = 0
    for square in chess.scan_forward(pawns):
        defends = chess.BB_PAWN_ATTACKS[colour][square] & pawns
        defended = chess.BB_PAWN_ATTACKS[not colour][square] & pawns
        if defends and not defended:
            bases |= chess.BB_SQUARES[square]
    return bases


#: The library's root-specific patterns, by name.
ROOT_PATTERNS = {
    "rooks-on-open-files": RooksOnOpenFiles,
    "outposts": Outposts,
    "passed-pawns": PassedPawns,
    "king-pressure": KingPressure,
    "target-bearing": TargetBearing,
    "development": Development,
    "centre-pawns": CentrePawns,
    "bad-bishop": BadBishop,
    "king-to-the-edge": KingToTheEdge,
    "rook-behind-passers": RookBehindPassers,
    "king-near-passers": KingNearPassers,
    "kings-close": KingsClose,
    "rule-of-the-square": RuleOfTheSquare,
    "chunk-race": ChunkRace,
    "pawn-storm": PawnStorm,
    "open-files-at-the-king": OpenFilesAtTheKing,
    "blockade": Blockade,
    "trapped-bishop": TrappedBishop,
    "opposite-bishops": OppositeBishops,
    "early-queen": EarlyQueen,
    "majority-advance": MajorityAdvance,
    "backward-pawns": BackwardPawns,
    "king-in-the-centre": KingInTheCentre,
    "rook-on-the-seventh": RookOnTheSeventh,
    "king-activity": KingActivity,
    "centre-control": CentreControl,
    "mobility": Mobility,
    "king-tropism": KingTropism,
    "trapped-rook": TrappedRook,
    "trade-when-ahead": TradeWhenAhead,
    "key-squares": KeySquares,
    "doubled-rooks": DoubledRooks,
    "wrong-bishop": WrongBishop,
    "connected-passers": ConnectedPassers,
    "king-attack": KingAttack,
    "chain-base": ChainBase,
    "pawn-ending-kings": PawnEndingKings,
}
