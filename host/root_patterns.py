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

import chess

from hdl.eval.tables import ExtSource

from .analysis import PHASE_TOTAL, PHASE_WEIGHTS
from .tables import FirstOrder, Recognizer

__all__ = ["RootPattern", "RooksOnOpenFiles", "Outposts", "PassedPawns", "KingPressure", "TargetBearing",
           "Development", "CentrePawns", "BadBishop", "BareKingToTheEdge", "RookBehindPassers", "KingNearPassers",
           "KingsClose", "RuleOfTheSquare", "PawnStorm", "OpenFilesAtTheKing", "Blockade", "TrappedBishop",
           "OppositeBishops", "EarlyQueen", "MajorityAdvance", "BackwardPawns", "KingInTheCentre", "ROOT_PATTERNS"]


def _sign(colour):
    return 1 if colour == chess.WHITE else -1


def _relative_rank(colour, square):
    rank = chess.square_rank(square)
    return rank if colour == chess.WHITE else 7 - rank


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
        return _sign(piece.color) * bonus

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
        return _sign(piece.color) * self.BONUS.get(piece.piece_type, 0)

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
        return _sign(piece.color) * bonus

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
        return _sign(piece.color) * self.WEIGHT[piece.piece_type] * count * self.weight // PHASE_TOTAL

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
        return _sign(piece.color) * self.BONUS * min(2, len(attacked))

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
        return -_sign(piece.color) * self.PENALTY * self.scale // PHASE_TOTAL

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
        return _sign(piece.color) * self.BONUS.get(own, 0) * self.weight // PHASE_TOTAL

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
        return -_sign(piece.color) * self.PENALTY * extra

    @staticmethod
    def relevance(analysis):
        return 1 if any(analysis.material[c][chess.BISHOP] and analysis.material[c][chess.PAWN] > 2
                        for c in chess.COLORS) else 0


def _attacks_from(board, piece, square):
    """The squares ``piece`` would attack from ``square`` on the root's ``board`` (its lines
    blocked by the root's pieces)."""
    placed = board.copy(stack=False)
    placed.set_piece_at(square, piece)
    return chess.SquareSet(placed.attacks_mask(square))


def _light(square):
    return (chess.square_file(square) + chess.square_rank(square)) % 2


class BareKingToTheEdge(RootPattern):
    """Mating nets for a bare king against mating material (a queen, a rook, or bishop and
    knight): the bare king loses 12 per step it stands from the nearest edge (the queen or
    rook), or 10 per king step from the nearest corner of the bishop's colour (bishop and
    knight: only those corners mate) — the stronger side's gain."""

    family = "endgame"

    def __init__(self, analysis, board):
        self.bare, self.corners = None, None
        for colour in chess.COLORS:
            if analysis.material[colour] and not any(analysis.material[colour].values()):
                strong = analysis.material[not colour]
                self.bare = colour
                bishops = board.pieces(chess.BISHOP, not colour)
                if not strong[chess.QUEEN] and not strong[chess.ROOK] and bishops:
                    light = _light(next(iter(bishops)))
                    self.corners = [c for c in (chess.A1, chess.H1, chess.A8, chess.H8) if _light(c) == light]

    def g(self, piece, square):
        if piece.piece_type != chess.KING or piece.color != self.bare:
            return 0
        if self.corners:
            return _sign(self.bare) * 10 * min(chess.square_distance(square, c) for c in self.corners)
        f, r = chess.square_file(square), chess.square_rank(square)
        return _sign(self.bare) * 12 * min(f, 7 - f, r, 7 - r)

    @staticmethod
    def relevance(analysis):
        for colour in chess.COLORS:
            strong = analysis.material[not colour]
            if not any(analysis.material[colour].values()) and (
                    strong[chess.QUEEN] or strong[chess.ROOK] or (strong[chess.BISHOP] and strong[chess.KNIGHT])):
                return 10
        return 0


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
        return _sign(piece.color) * self.BONUS

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
        return _sign(piece.color) * self.STEP * near * self.scale // PHASE_TOTAL

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
        return _sign(piece.color) * self.GAIN[_relative_rank(piece.color, square)] * self.weight // PHASE_TOTAL

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
        return _sign(piece.color) * self.BONUS[piece.piece_type] * self.weight // PHASE_TOTAL

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
        return _sign(piece.color) * self.BONUS.get(piece.piece_type, 0)

    @staticmethod
    def relevance(analysis):
        return 0.7 * sum(len(analysis.pawns[c].passed) for c in chess.COLORS)


class TrappedBishop(RootPattern):
    """A bishop on a7 or h7 (a2 or h2 for Black) with an enemy pawn on b6 or g6 (b3, g3) at the
    root — the pawn cuts its way out: 80."""

    family = "pieces"
    PENALTY = 80
    TRAPS = ((chess.A7, chess.B6), (chess.H7, chess.G6), (chess.B8, chess.C7), (chess.G8, chess.F7))

    def __init__(self, analysis, board):
        self.traps = {c: {trap for trap, pawn in self.TRAPS
                          if board.piece_at(_mirror_for(c, pawn)) == chess.Piece(chess.PAWN, not c)}
                      for c in chess.COLORS}

    def g(self, piece, square):
        if piece.piece_type != chess.BISHOP or _mirror_for(piece.color, square) not in self.traps[piece.color]:
            return 0
        return -_sign(piece.color) * self.PENALTY

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
        return -_sign(piece.color) * self.DISCOUNT if piece.piece_type == chess.PAWN else 0

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
        return -_sign(piece.color) * self.PENALTY

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
        return _sign(piece.color) * gain * self.scale // PHASE_TOTAL

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
            return -_sign(piece.color) * self.PENALTY
        if piece.piece_type in (chess.KNIGHT, chess.ROOK) and square in self.holes[piece.color]:
            return _sign(piece.color) * self.HOLE
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
            return -_sign(piece.color) * self.PENALTY * self.weight // PHASE_TOTAL
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


class KingsClose:
    """The mating nets' second half (a recognizer): against a bare king, the stronger side's
    king comes close — 6 per step nearer than seven (the kings' distance), for the side with
    the mating material. White's king square in branch A, Black's in B."""

    family = "endgame"
    STEP = 6

    def __init__(self, analysis, board):
        self.strong = next((not c for c in chess.COLORS if not any(analysis.material[c].values())), None)

    def value(self, white_king, black_king):
        if self.strong is None:
            return 0
        return _sign(self.strong) * self.STEP * (7 - chess.square_distance(white_king, black_king))

    def definition(self, board):
        return self.value(board.king(chess.WHITE), board.king(chess.BLACK))

    def install(self, image):
        def description(piece, square):
            if piece.piece_type != chess.KING:
                return {}
            return {"white" if piece.color == chess.WHITE else "black": square}
        image.add_recognizer(Recognizer(
            fields_a=[("white", 6)], fields_b=[("black", 6)], description=description,
            summary_a=lambda v, ext: v["white"], summary_b=lambda v, ext: v["black"],
            combine=lambda w, b: self.value(w, b), final=lambda value, contexts: value))

    relevance = staticmethod(BareKingToTheEdge.relevance)

    def __repr__(self):
        return type(self).__name__


class RuleOfTheSquare:
    """Pawn endings: a passed pawn the enemy king cannot catch. For each side's most advanced
    passer at the root (its file), while exactly one pawn of that side stands on the file: if
    the enemy king is farther from the queening square (in king steps) than the pawn is from
    queening (a pawn on its second rank as if on its third), with one step more when the king's
    side is to move, the pawn's side gains 400. A recognizer: per side, in one branch, its pawns
    on that file (count and rank) and the enemy king's square; the side to move is the branch's
    external bit."""

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
        return _sign(colour) * self.GAIN * self.unstoppable(colour, _relative_rank(colour, pawns[0]), king,
                                                            board.turn)

    def definition(self, board):
        return sum(self.side_value(board, colour) for colour in chess.COLORS)

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
            combine=lambda white, black: self.GAIN * (white - black), final=lambda value, contexts: value, shift=4))

    @staticmethod
    def relevance(analysis):
        pieces = sum(analysis.material[c][t] for c in chess.COLORS for t in (chess.KNIGHT, chess.BISHOP, chess.ROOK,
                                                                             chess.QUEEN))
        passers = sum(len(analysis.pawns[c].passed) for c in chess.COLORS)
        return 8.0 if not pieces and passers else 0

    def __repr__(self):
        return type(self).__name__


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
    "bare-king-to-the-edge": BareKingToTheEdge,
    "rook-behind-passers": RookBehindPassers,
    "king-near-passers": KingNearPassers,
    "kings-close": KingsClose,
    "rule-of-the-square": RuleOfTheSquare,
    "pawn-storm": PawnStorm,
    "open-files-at-the-king": OpenFilesAtTheKing,
    "blockade": Blockade,
    "trapped-bishop": TrappedBishop,
    "opposite-bishops": OppositeBishops,
    "early-queen": EarlyQueen,
    "majority-advance": MajorityAdvance,
    "backward-pawns": BackwardPawns,
    "king-in-the-centre": KingInTheCentre,
}
