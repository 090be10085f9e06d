"""The Oracle's root analysis: what the position at the root is made of, before any pattern is
chosen (Hitech's Oracle looked at the root the same way; CAPS-II's relations come from
Berliner, 1975).

:func:`analyse` gives a :class:`RootAnalysis`:

* **phase**, a continuous quantity: 1 with all the pieces of the opening on the board, 0 with
  none but kings and pawns (knight and bishop 1, rook 2, queen 4, out of 24);
* **material** per side, its balance in centipawns and the imbalances (bishop pair, the
  exchange, minor pieces against pawns, queen against rooks);
* **kings**: squares, castling rights, the wing each has castled to, its shelter pawns, and the
  attackers bearing on the squares around it (the side under attack is the one whose king
  zone more enemy pieces bear on);
* **pawn structure** per side, each class a set of squares: passed, protected passed,
  connected passed, isolated, doubled, backward, chained (defended by a pawn), blockaded
  passers; the islands and the wing majorities;
* **files**: open, and half-open for each side; **outposts**: squares in the enemy half a pawn
  of one's own defends and no enemy pawn can ever attack;
* **bearing relations** (CAPS-II): for each piece and square along its lines, DIR (it attacks
  the square), OTHRU (through one piece of its own side that attacks the square along the same
  line: a battery), DSC (through one piece of its own side that does not: moving that piece
  discovers the attack), ETHRU (through one enemy piece: an x-ray) and OBJ (it attacks an enemy
  piece with a more valuable enemy piece or the king behind it on the line: a pin);
* **square safety**: for each square, each side's attackers and what a swap-off there gains for
  the side that starts it (:func:`swap_off`, static exchange with x-rays);
* **targets**: enemy pieces a swap-off wins material against, pinned pieces, and overloaded
  defenders (the only defender of two or more attacked pieces).

Everything is computed from a ``chess.Board`` with python-chess's attack tables; ``explain``
prints it.
"""

from dataclasses import dataclass, field

import chess

__all__ = ["analyse", "RootAnalysis", "PawnStructureClasses", "Bearing", "pawn_classes", "pawns_per_file", "swap_off",
           "game_phase_fraction",
           "PIECE_VALUES", "RELATIONS"]

#: Centipawn values for swap-offs and targets (the king is worth more than anything).
PIECE_VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900,
                chess.KING: 20000}

#: The phase weight of each piece type: 24 with every piece of the opening on the board.
PHASE_WEIGHTS = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}
PHASE_TOTAL = 24

#: CAPS-II's bearing relations, in the order ``Bearing.relation`` names them.
RELATIONS = ("DIR", "OTHRU", "DSC", "ETHRU", "OBJ")

_SLIDES = {chess.BISHOP: ((1, 1), (1, -1), (-1, 1), (-1, -1)), chess.ROOK: ((1, 0), (-1, 0), (0, 1), (0, -1))}
_SLIDES[chess.QUEEN] = _SLIDES[chess.BISHOP] + _SLIDES[chess.ROOK]
_WINGS = {"queen": range(0, 4), "king": range(4, 8)}


def game_phase_fraction(board):
    """1.0 with all the opening's pieces on the board, 0.0 with only kings and pawns."""
    weight = sum(PHASE_WEIGHTS.get(p.piece_type, 0) for p in board.piece_map().values())
    return min(weight, PHASE_TOTAL) / PHASE_TOTAL


@dataclass(frozen=True)
class Bearing:
    """A CAPS-II relation: the piece on ``source`` bears on ``square`` (``relation`` one of
    ``RELATIONS``); ``through`` is the piece in between (OTHRU, DSC, ETHRU) or, for OBJ, the
    enemy piece behind the pinned one on ``square``."""
    source: int
    square: int
    relation: str
    through: int = None


@dataclass
class PawnStructureClasses:
    """One side's pawns by class (sets of squares), its islands and its wing majorities."""
    passed: set = field(default_factory=set)
    protected_passed: set = field(default_factory=set)
    connected_passed: set = field(default_factory=set)
    isolated: set = field(default_factory=set)
    doubled: set = field(default_factory=set)
    backward: set = field(default_factory=set)
    chained: set = field(default_factory=set)
    blockaded: set = field(default_factory=set)
    islands: int = 0
    majorities: tuple = ()          # the wings ("queen", "king") where it has more pawns


@dataclass
class KingState:
    square: int
    castling: tuple                 # the wings it may still castle to
    castled: str                    # "king", "queen" or "" (not on a castled square)
    shelter: int                    # own pawns on the three files around it, one or two ranks ahead
    attackers: int                  # enemy pieces bearing (DIR) on its zone (the king's square and around)


@dataclass
class RootAnalysis:
    fen: str
    phase: float
    material: dict                  # colour -> {piece type: count}
    balance: int                    # White's material less Black's, centipawns (kings excluded)
    imbalances: list
    kings: dict                     # colour -> KingState
    pawns: dict                     # colour -> PawnStructureClasses
    open_files: set
    half_open: dict                 # colour -> files without its pawns but with the enemy's
    outposts: dict                  # colour -> squares
    bearings: list                  # [Bearing]
    attackers: dict                 # colour -> {square: [attacker squares]}
    swaps: dict                     # occupied square -> what the piece's enemy gains by a swap-off there
    targets: dict                   # colour -> {square: reason}: the enemy's weak pieces it can aim at
    under_attack: object            # the colour whose king zone more enemy pieces bear on, or None

    def board(self):
        """The root position (without its game's history)."""
        return chess.Board(self.fen)

    def explain(self):
        """The analysis in lines of text."""
        names = {chess.WHITE: "White", chess.BLACK: "Black"}
        lines = [f"phase {self.phase:.2f} (1 opening, 0 pawn ending); material balance {self.balance:+d} cp"
                 + (f"; {', '.join(self.imbalances)}" if self.imbalances else "")]
        for colour in (chess.WHITE, chess.BLACK):
            king, pawns = self.kings[colour], self.pawns[colour]
            lines.append(f"{names[colour]} king {chess.square_name(king.square)}"
                         + (f", castled {king.castled}side" if king.castled else "")
                         + (f", may castle {'/'.join(king.castling)}side" if king.castling else "")
                         + f", shelter {king.shelter}, {king.attackers} attacker(s) near it")
            classes = [(name, getattr(pawns, name)) for name in
                       ("passed", "protected_passed", "connected_passed", "isolated", "doubled", "backward",
                        "chained", "blockaded")]
            lines.append(f"{names[colour]} pawns: {pawns.islands} island(s)"
                         + (f", majority on the {'/'.join(pawns.majorities)} side" if pawns.majorities else "")
                         + "".join(f"; {name.replace('_', ' ')} {_squares(squares)}" for name, squares in classes
                                   if squares))
            if self.half_open[colour]:
                lines.append(f"{names[colour]} half-open files: {_files(self.half_open[colour])}")
            if self.outposts[colour]:
                lines.append(f"{names[colour]} outposts: {_squares(self.outposts[colour])}")
            if self.targets[colour]:
                lines.append(f"{names[colour]} aims at: " + ", ".join(
                    f"{chess.square_name(s)} ({why})" for s, why in sorted(self.targets[colour].items())))
        if self.open_files:
            lines.append(f"open files: {_files(self.open_files)}")
        pins = [b for b in self.bearings if b.relation == "OBJ"]
        if pins:
            lines.append("pins: " + ", ".join(f"{chess.square_name(b.source)}>{chess.square_name(b.square)}"
                                              f">{chess.square_name(b.through)}" for b in pins))
        if self.under_attack is not None:
            lines.append(f"under attack: {names[self.under_attack]}'s king")
        return lines


def _squares(squares):
    return " ".join(chess.square_name(s) for s in sorted(squares))


def _files(files):
    return " ".join(chess.FILE_NAMES[f] for f in sorted(files))


def _relative_rank(colour, square):
    rank = chess.square_rank(square)
    return rank if colour == chess.WHITE else 7 - rank


def _ahead(colour, square):
    """The squares in front of ``square`` on its file, from ``colour``'s view, nearest first."""
    step = 8 if colour == chess.WHITE else -8
    out, s = [], square + step
    while 0 <= s < 64:
        out.append(s)
        s += step
    return out


def pawns_per_file(board, colour):
    """``colour``'s pawns on each file, a to h."""
    counts = [0] * 8
    for square in board.pieces(chess.PAWN, colour):
        counts[chess.square_file(square)] += 1
    return counts


def pawn_classes(board, colour):
    """``colour``'s pawn structure (:class:`PawnStructureClasses`)."""
    own, enemy = board.pieces(chess.PAWN, colour), board.pieces(chess.PAWN, not colour)
    files = pawns_per_file(board, colour)
    classes = PawnStructureClasses()
    for s in own:
        f, r = chess.square_file(s), _relative_rank(colour, s)
        neighbours = [g for g in (f - 1, f + 1) if 0 <= g < 8]
        front = [t for g in [f, *neighbours] for t in _ahead(colour, chess.square(g, chess.square_rank(s)))]
        if not any(t in enemy for t in front):
            classes.passed.add(s)
        isolated = not any(files[g] for g in neighbours)
        if isolated:
            classes.isolated.add(s)
        if files[f] > 1:
            classes.doubled.add(s)
        if board.attackers_mask(colour, s) & board.pieces_mask(chess.PAWN, colour):
            classes.chained.add(s)
        # backward: no own pawn beside or behind on the neighbouring files, and the square in
        # front is attacked by an enemy pawn (it cannot advance safely)
        support = any(_relative_rank(colour, t) <= r for g in neighbours for t in own if chess.square_file(t) == g)
        stop = _ahead(colour, s)[:1]
        enemy_pawns = board.pieces_mask(chess.PAWN, not colour)
        if not isolated and not support and stop and board.attackers_mask(not colour, stop[0]) & enemy_pawns:
            classes.backward.add(s)
    for s in classes.passed:
        if s in classes.chained:
            classes.protected_passed.add(s)
        f = chess.square_file(s)
        if any(abs(chess.square_file(t) - f) == 1 for t in classes.passed if t != s):
            classes.connected_passed.add(s)
        stop = _ahead(colour, s)[:1]
        if stop and board.piece_at(stop[0]) is not None and board.piece_at(stop[0]).color != colour:
            classes.blockaded.add(s)
    classes.islands = sum(1 for f in range(8) if files[f] and (f == 0 or not files[f - 1]))
    enemy_files = pawns_per_file(board, not colour)
    classes.majorities = tuple(w for w, span in _WINGS.items()
                               if sum(files[f] for f in span) > sum(enemy_files[f] for f in span))
    return classes


def _line_bearings(board, source):
    """The CAPS-II relations of the sliding piece on ``source`` along its lines."""
    piece = board.piece_at(source)
    out = []
    for df, dr in _SLIDES.get(piece.piece_type, ()):
        f, r = chess.square_file(source), chess.square_rank(source)
        between = None          # the one piece passed so far
        while True:
            f, r = f + df, r + dr
            if not (0 <= f < 8 and 0 <= r < 8):
                break
            square = chess.square(f, r)
            if between is None:
                out.append(Bearing(source, square, "DIR"))
                if board.piece_at(square) is not None:
                    between = square
                continue
            middle = board.piece_at(between)
            if middle.color == piece.color:
                relation = "OTHRU" if _attacks_along(board, between, square) else "DSC"
            else:
                relation = "ETHRU"
            out.append(Bearing(source, square, relation, between))
            target = board.piece_at(square)
            if target is not None:
                if (middle.color != piece.color and target.color != piece.color
                        and PIECE_VALUES[target.piece_type] > PIECE_VALUES[middle.piece_type]):
                    out.append(Bearing(source, between, "OBJ", square))
                break
    return out


def _attacks_along(board, source, square):
    return bool(board.attacks_mask(source) & chess.BB_SQUARES[square])


def bearings(board):
    """Every piece's CAPS-II relations (:class:`Bearing`): DIR for every piece, the others along
    the sliding pieces' lines."""
    out = []
    for source, piece in board.piece_map().items():
        if piece.piece_type in _SLIDES:
            out += _line_bearings(board, source)
        else:
            out += [Bearing(source, s, "DIR") for s in chess.SquareSet(board.attacks_mask(source))]
    return out


def swap_off(board, square, colour):
    """What ``colour`` gains (centipawns, at least 0: it may decline) by starting a swap-off on
    the enemy piece on ``square``, each side capturing there with its least valuable attacker
    and free to stop; x-rays count (a piece behind an attacker joins once it has gone), pins do
    not (the usual static exchange)."""
    target = board.piece_at(square)
    if target is None or target.color == colour:
        return 0
    occupied = board.occupied
    gains, side, victim = [], colour, PIECE_VALUES[target.piece_type]
    while True:
        attackers = board.attackers_mask(side, square, occupied) & occupied
        if not attackers:
            break
        attacker = min(chess.SquareSet(attackers), key=lambda s: PIECE_VALUES[board.piece_type_at(s)])
        after = occupied & ~chess.BB_SQUARES[attacker]
        if board.piece_type_at(attacker) == chess.KING and board.attackers_mask(not side, square, after) & after:
            break               # the king may not capture onto an attacked square
        gains.append(victim)
        victim = PIECE_VALUES[board.piece_type_at(attacker)]
        occupied = after
        side = not side
    value = 0
    for gain in reversed(gains):
        value = max(0, gain - value)
    return value


def analyse(board):
    """The :class:`RootAnalysis` of ``board``."""
    material = {c: {t: len(board.pieces(t, c)) for t in chess.PIECE_TYPES if t != chess.KING}
                for c in chess.COLORS}
    balance = sum(PIECE_VALUES[t] * (material[chess.WHITE][t] - material[chess.BLACK][t])
                  for t in material[chess.WHITE])
    pawns = {c: pawn_classes(board, c) for c in chess.COLORS}
    files = {c: {chess.square_file(s) for s in board.pieces(chess.PAWN, c)} for c in chess.COLORS}
    open_files = set(range(8)) - files[chess.WHITE] - files[chess.BLACK]
    half_open = {c: files[not c] - files[c] for c in chess.COLORS}
    all_bearings = bearings(board)
    attackers = {c: {} for c in chess.COLORS}
    for b in all_bearings:
        if b.relation == "DIR":
            attackers[board.color_at(b.source)].setdefault(b.square, []).append(b.source)
    kings = {c: _king_state(board, c, attackers[not c]) for c in chess.COLORS}
    swaps = {s: swap_off(board, s, not board.color_at(s)) for s in chess.SquareSet(board.occupied)}
    return RootAnalysis(
        fen=board.fen(), phase=game_phase_fraction(board), material=material, balance=balance,
        imbalances=_imbalances(material), kings=kings, pawns=pawns, open_files=open_files, half_open=half_open,
        outposts={c: _outposts(board, c) for c in chess.COLORS}, bearings=all_bearings, attackers=attackers,
        swaps=swaps, targets={c: _targets(board, c, swaps, all_bearings, attackers) for c in chess.COLORS},
        under_attack=_under_attack(kings))


def _imbalances(material):
    out = []
    for colour, name in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
        own, other = material[colour], material[not colour]
        if own[chess.BISHOP] >= 2 and other[chess.BISHOP] < 2:
            out.append(f"{name} has the bishop pair")
        minors = own[chess.KNIGHT] + own[chess.BISHOP] - other[chess.KNIGHT] - other[chess.BISHOP]
        rooks = own[chess.ROOK] - other[chess.ROOK]
        if rooks == 1 and minors == -1:
            out.append(f"{name} is up the exchange")
        if minors >= 1 and own[chess.PAWN] < other[chess.PAWN] and rooks == 0:
            out.append(f"{name} has a minor piece for pawns")
        if own[chess.QUEEN] > other[chess.QUEEN] and rooks < 0:
            out.append(f"{name} has the queen for rooks")
    return out


def _king_state(board, colour, enemy_attackers):
    square = board.king(colour)
    rights = tuple(w for w, has in (("king", board.has_kingside_castling_rights(colour)),
                                    ("queen", board.has_queenside_castling_rights(colour))) if has)
    file, rank = chess.square_file(square), _relative_rank(colour, square)
    castled = "king" if rank == 0 and file >= 6 else "queen" if rank == 0 and file <= 2 else ""
    forward = 1 if colour == chess.WHITE else -1
    shelter = sum(1 for f in (file - 1, file, file + 1) if 0 <= f < 8 and any(
        0 <= chess.square_rank(square) + forward * step < 8
        and board.piece_at(chess.square(f, chess.square_rank(square) + forward * step)) == chess.Piece(chess.PAWN,
                                                                                                       colour)
        for step in (1, 2)))
    zone = chess.SquareSet(chess.BB_KING_ATTACKS[square] | chess.BB_SQUARES[square])
    attackers = len({a for s in zone for a in enemy_attackers.get(s, [])})
    return KingState(square, rights, castled, shelter, attackers)


def _outposts(board, colour):
    enemy = board.pieces(chess.PAWN, not colour)
    out = set()
    for square in chess.SQUARES:
        if not 4 <= _relative_rank(colour, square) <= 6:
            continue
        if not board.attackers_mask(colour, square) & board.pieces_mask(chess.PAWN, colour):
            continue
        f = chess.square_file(square)
        # no enemy pawn on a neighbouring file ahead of it (from the enemy's side: able to come attack it)
        if not any(chess.square_file(p) in (f - 1, f + 1) and _relative_rank(colour, p) > _relative_rank(colour, square)
                   for p in enemy):
            out.add(square)
    return out


def _targets(board, colour, swaps, all_bearings, attackers):
    """The enemy's pieces ``colour`` can aim at: won by a swap-off, pinned, or defended only by
    an overloaded piece."""
    out = {}
    for square in chess.SquareSet(board.occupied_co[not colour]):
        if board.piece_type_at(square) != chess.KING and swaps[square] > 0:
            out[square] = f"a swap-off wins {swaps[square]}"
    for b in all_bearings:
        if b.relation == "OBJ" and board.color_at(b.source) == colour:
            out.setdefault(b.square, f"pinned to {chess.square_name(b.through)}")
    # overloaded: an enemy piece that is the only defender of two or more of its pieces we attack
    defended_by = {}
    for square in chess.SquareSet(board.occupied_co[not colour]):
        if square in attackers[colour] and board.piece_type_at(square) != chess.KING:
            defenders = attackers[not colour].get(square, [])
            if len(defenders) == 1:
                defended_by.setdefault(defenders[0], []).append(square)
    for defender, guarded in defended_by.items():
        if len(guarded) >= 2:
            out.setdefault(defender, "overloaded: sole defender of " + " ".join(chess.square_name(s) for s in guarded))
    return out


def _under_attack(kings):
    white, black = kings[chess.WHITE].attackers, kings[chess.BLACK].attackers
    if white == black:
        return None
    return chess.WHITE if white > black else chess.BLACK
