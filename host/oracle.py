"""The Oracle (docs/architecture.md §7): it looks at the root, chooses the knowledge that fits
it, and compiles that into the evaluator's tables. Three kinds of knowledge (``KNOWLEDGE``):

* ``root`` (the default) — Hitech's way: the root analysis (:mod:`host.analysis`) scores
  every pattern of the library for this root (its ``relevance``: 0 leaves it out) and for the region the search
  will reach (:func:`region_boards`: the rest of the last principal variation, near
  promotions made; counted x ``REGION_WEIGHT``), and the patterns are chosen
  most relevant first while they fit (the recognizers, global units, field widths and
  first-order range of the configuration STATUS reported), then installed in the library's
  order, so that a unit keeps its place from root to root while its pattern stays; the
  root-specific first-order patterns (:mod:`host.root_patterns`) cost no unit. The general
  patterns are made and compiled once per Oracle. Each pattern is weighed against the fitted
  piece-square tables (:mod:`host.pattern_weights`, ``data/make_pattern_weights.py``): a
  pattern is installed at its weight (a first-order table's entries or a recognizer's outputs
  scaled; 0 leaves it out, and a recognizer is left out below ``RECOGNIZER_WEIGHT``); the
  patterns the fit cannot weigh keep their hand values. The default since the weights:
  against ``material`` at equal nodes it scored 57.8 % in 200 games of self-play (+54 Elo)
  and solved more of the tactical suites (BENCHMARKS.md, 2026-11-26 and 27).
* ``phase`` — the first stage, two fixed lists chosen by the game's phase. Middlegame (more
  than 13 pawns' worth of pieces besides pawns and kings, counting N=B=3, R=5, Q=9): material
  and piece-square, the king's-wing pawn shelter recognizer, pawn structure and phase-scaled
  king safety. Endgame: material and piece-square, and pawn structure. The default until
  self-play (BENCHMARKS.md) showed ``root`` stronger.
* ``material`` — material and piece-square only, one first-order table: the piece values by
  square that ``data/make_piece_square.py`` fitted to Stockfish's choice between quiet moves,
  blended by the root's phase. The baseline the others are measured against; the default from
  those tables until the patterns were weighed against them (at their hand values the patterns
  counted again what the fitted table knows, and chose worse moves).

An antichess root (:mod:`host.antichess`) gets the antichess library instead: ``root``
knowledge chooses from it by relevance the same way (families left out alike), the other kinds
give it the fitted antichess table alone.

Every choice is an :class:`Allocation`: the patterns chosen with their relevance, where each
went, what was left out and why, and the compiled tables. The compiled tables of ``phase`` and
``material`` are kept per phase and phase fraction; the board's checksums show unchanged
tables, so nothing is sent again while they stay.
"""

from dataclasses import dataclass, field

import chess

from .analysis import analyse, game_phase_fraction, pawn_classes
from .antichess import ANTICHESS_LIBRARY, AntichessMaterial, is_antichess
from .library import LIBRARY, not_leavable
from .pattern_weights import WEIGHTS
from .patterns import KingSafety, MaterialPieceSquare, PawnStructure, ShelterRecognizer
from .root_patterns import RootPattern, Weighted, WeightedRecognizers
from .tables import EvaluatorImage, InstalledUnits, TableError

__all__ = ["Oracle", "Allocation", "game_phase", "region_boards", "ENDGAME_MATERIAL", "KNOWLEDGE", "RECOGNIZER_WEIGHT",
           "REGION_WEIGHT", "weighed"]

#: Piece material (in pawns, both sides) at or below which the game is an endgame.
ENDGAME_MATERIAL = 13

#: The kinds of knowledge the Oracle can give the board, the default first.
KNOWLEDGE = ("root", "material", "phase")

_PIECE_PAWNS = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def game_phase(board):
    """``"middlegame"`` or ``"endgame"``, from the pieces (not pawns, not kings) on the board."""
    material = sum(_PIECE_PAWNS.get(p.piece_type, 0) for p in board.piece_map().values())
    return "endgame" if material <= ENDGAME_MATERIAL else "middlegame"


@dataclass
class Allocation:
    """The Oracle's choice for one root: ``label`` names it (the game's phase), ``chosen`` is
    ``[(name, relevance)]`` in the order installed (``patterns`` the patterns themselves),
    ``recognizers`` the pattern each recognizer serves (in unit order, None if free), ``left_out``
    ``[(name, why)]``, and ``store`` the compiled tables."""
    knowledge: str
    label: str
    chosen: list
    recognizers: list
    left_out: list
    patterns: list = field(repr=False)
    store: object = field(repr=False)
    from_region: set = field(default_factory=set)   # chosen for the region the search will reach
    without: tuple = ()                                 # the families left out

    @property
    def without_text(self):
        return f" without {', '.join(self.without)}" if self.without else ""

    def definition(self, board):
        """What the tables make the evaluator's value of ``board``: the sum of the chosen
        patterns' definitions."""
        return sum(pattern.definition(board) for pattern in self.patterns)

    def explain(self):
        """The allocation in lines of text: the chosen with their relevance (and weight, where
        weighed), the units of the recognizers, what was left out and why."""
        def named(name, relevance, pattern):
            if relevance is None:
                return name
            weight = f", x{pattern.weight:g}" if isinstance(pattern, (Weighted, WeightedRecognizers)) else ""
            return f"{name} ({relevance:.2f}{weight}{', region' if name in self.from_region else ''})"

        lines = [f"{self.knowledge} knowledge{self.without_text}, {self.label}: "
                 + ", ".join(named(name, relevance, pattern)
                             for (name, relevance), pattern in zip(self.chosen, self.patterns))]
        lines += [f"recognizer {unit}: {name}" for unit, name in enumerate(self.recognizers) if name]
        lines += [f"left out {name}: {why}" for name, why in self.left_out]
        return lines


class Oracle:
    """Chooses and compiles the tables for a root position, for one evaluator configuration."""

    PHASE_PATTERNS = {
        "middlegame": lambda fraction: [MaterialPieceSquare(fraction), ShelterRecognizer(), PawnStructure(),
                                        KingSafety()],
        "endgame": lambda fraction: [MaterialPieceSquare(fraction), PawnStructure()],
    }

    def __init__(self, params, knowledge=KNOWLEDGE[0], without=(), weights=WEIGHTS):
        """``without``: pattern families (:data:`~host.library.FAMILIES`) or single patterns (by
        library name: :data:`~host.library.LEAVABLE`) ``root`` knowledge leaves out (to measure
        what they are worth); ``weights``: {library name: weight} the
        ``root`` knowledge weighs its patterns by (the fitted :data:`~host.pattern_weights.WEIGHTS`;
        ``{}`` installs every pattern at its hand values)."""
        if knowledge not in KNOWLEDGE:
            raise ValueError(f"no knowledge {knowledge!r} (there are {', '.join(KNOWLEDGE)})")
        if problem := not_leavable(sorted(set(without))):
            raise ValueError(problem)
        if without and knowledge != "root":
            raise ValueError(f"only root knowledge leaves out families, not {knowledge}")
        self.params, self.knowledge, self.without, self.weights = params, knowledge, tuple(without), dict(weights)
        self._kept = {}             # (knowledge, phase, fraction) -> Allocation, for the fixed kinds
        self._general = {}          # library name -> its pattern as weighed (the same at every root; None: left out)
        self._general_left_out = {}     # library name -> why its weight leaves it out (None: it is in)
        self._units = {}            # a general pattern -> the units it installs, made once
        self._compiled = {}         # the general patterns' units' compiled tables, kept
        self._global_slots = {}     # id of a general pattern's global unit -> its slot
        self._placement = {}        # (library name, its recognizer's index) -> the unit it had

    def patterns(self, phase, fraction):
        """The fixed list of ``phase`` (``game_phase``), its piece values blended at ``fraction``
        (``game_phase_fraction``)."""
        return self.PHASE_PATTERNS[phase](fraction)

    def allocate(self, board, expected=()):
        """The :class:`Allocation` for the root ``board``; ``expected``: the moves the search is
        expected to play from it (the rest of the last search's principal variation), which
        ``root`` knowledge counts in the region the search will reach."""
        if is_antichess(board):
            return self._antichess(board)
        phase, fraction = game_phase(board), game_phase_fraction(board)
        if self.knowledge == "root":
            return self._root(board, phase, fraction, expected)
        key = (self.knowledge, phase, fraction)
        if key not in self._kept:
            if self.knowledge == "phase":
                candidates = [(_NAMES[type(p)], None, p) for p in self.patterns(phase, fraction)]
            else:
                candidates = [("material-piece-square", None, MaterialPieceSquare(fraction))]
            self._kept[key] = self._install(phase, candidates)
        return self._kept[key]

    def tables_for(self, board, expected=()):
        """``(label, TableStore)`` for a root position (``expected`` as for :meth:`allocate`)."""
        allocation = self.allocate(board, expected)
        return allocation.label, allocation.store

    def _root(self, board, phase, fraction, expected):
        analysis = analyse(board)
        region = [analyse(b) for b in region_boards(board, expected)]
        scored, from_region = [], set()
        for name, entry in LIBRARY.items():
            if entry.family in self.without or name in self.without:
                continue
            here = entry.relevance(analysis)
            there = REGION_WEIGHT * max((entry.relevance(a) for a in region), default=0)
            scored.append((name, max(here, there), entry))
            if there > here:
                from_region.add(name)
        relevant = sorted(scored, key=lambda c: -c[1])
        made, weighed_out = [], []
        for name, relevance, entry in relevant:
            if relevance <= 0:
                continue
            weight = self.weights.get(name, 1.0)
            if entry.general:               # made and weighed once: its units compile once
                if name not in self._general:
                    self._general[name], self._general_left_out[name] = weighed(entry.make(analysis, board), weight)
                pattern, why = self._general[name], self._general_left_out[name]
            else:
                pattern, why = weighed(entry.make(analysis, board), weight)
            if pattern is None:
                weighed_out.append((name, why))
                continue
            made.append((name, relevance, pattern))
        base = ("material-piece-square", None, MaterialPieceSquare(fraction))
        order = list(LIBRARY)
        allocation = self._install(phase, [base] + made,
                                   placed=lambda name: order.index(name) if name in order else -1)
        allocation.left_out += weighed_out
        allocation.from_region = from_region & {name for name, _ in allocation.chosen}
        allocation.without = self.without
        return allocation

    def _antichess(self, board):
        """An antichess root's allocation (``host/antichess.py``): ``root`` knowledge chooses from
        the antichess library as from the chess one (its patterns' relevance at this root, the
        general ones made once, units kept in place), the others its first-order table alone.
        ``without`` leaves out families here too."""
        if self.knowledge != "root":
            if "antichess" not in self._kept:
                self._kept["antichess"] = self._install("antichess", [("antichess-material", None,
                                                                       AntichessMaterial())])
            return self._kept["antichess"]
        made = []
        for name, cls in ANTICHESS_LIBRARY.items():
            relevance = cls.relevance(board)
            if relevance <= 0 or cls.family in self.without or name in self.without:
                continue
            if cls.general:
                pattern = self._general.setdefault(name, cls())
            else:
                pattern = cls(board)
            made.append((name, relevance, pattern))
        order = list(ANTICHESS_LIBRARY)
        allocation = self._install("antichess", made, placed=order.index)
        allocation.without = self.without
        return allocation

    def _install(self, label, candidates, placed=None):
        """Choose from ``[(name, relevance, pattern)]`` in that order each pattern that fits
        with those chosen before it (one that does not is left out with the builder's reason),
        then install the chosen so that units keep their places from root to root (their
        tables need not be sent again): first the patterns whose recognizers had units at an
        earlier root, each back in its unit where that is free, then the rest, each group in
        the order ``placed(name)`` gives (default: as chosen). Where that arrangement does not
        fit, the chosen are installed as they were chosen."""
        image = self._image()
        chosen, left_out = [], []
        for name, relevance, pattern in candidates:
            terms, recognizers = self._units_of(pattern)
            if not recognizers and not any(entry for term in terms for entry in term.entries):
                left_out.append((name, "nothing to install at this root"))
                continue
            trial = image.copy()
            try:
                self._add(trial, pattern)
            except TableError as error:
                left_out.append((name, str(error)))
                continue
            chosen.append((name, relevance, pattern))
            image = trial
        order = {name: k for k, (name, _, _) in enumerate(chosen)}
        arranged = sorted(chosen, key=lambda c: ((c[0], 0) not in self._placement,
                                                 placed(c[0]) if placed else order[c[0]]))
        try:
            stable = self._image()
            for name, _, pattern in arranged:
                self._add(stable, pattern, name)
            image = stable
        except TableError:
            pass                    # the arrangement as chosen (``image``) fits
        for name, _, pattern in chosen:
            for i, unit in enumerate(self._units_of(pattern)[1]):
                self._placement[name, i] = image.recognizers.index(unit)
        recognizers = [None if unit is None else
                       next(name for name, _, pattern in chosen if unit in self._units_of(pattern)[1])
                       for unit in image.recognizers]
        store = image.store()
        self._units = {p: units for p, units in self._units.items() if p in self._general.values()}
        kept = {id(u) for units in self._units.values() for kind in units for u in kind}
        kept |= {id(c.unit) for _, recognizers in self._units.values() for r in recognizers for c in r.contexts}
        for key in [k for k in self._compiled if k[0] not in kept]:
            del self._compiled[key]
        return Allocation(self.knowledge, label, [(n, r) for n, r, _ in chosen], recognizers, left_out,
                          [p for _, _, p in chosen], store)

    def _image(self):
        return EvaluatorImage(self.params, compiled=self._compiled)

    def _units_of(self, pattern):
        """``(first-order tables, recognizers)`` the pattern installs, made once: a general
        pattern installs the same units at every root (their compiled tables are kept), a
        root's own for this allocation."""
        if pattern not in self._units:
            collector = InstalledUnits()
            pattern.install(collector)
            self._units[pattern] = (collector.first_order_terms, collector.recognizers)
        return self._units[pattern]

    def _add(self, image, pattern, name=None):
        """Install ``pattern``'s units into ``image`` (its recognizers, if ``name`` is given, in
        the units they had when last installed, where those are free) and compile what it
        added (``TableError`` if it does not fit)."""
        terms, recognizers = self._units_of(pattern)
        before = {id(g) for g in image.globals}
        for term in terms:
            image.add_first_order(term)
        for i, unit in enumerate(recognizers):
            image.add_recognizer(unit, slots=self._slot if pattern in self._general.values() else None,
                                 prefer=self._placement.get((name, i)) if name else None)
        for unit in [g for g in image.globals if g is not None and id(g) not in before]:
            image.compiled(unit)

    def _slot(self, unit):
        """The global unit a general pattern's global-state unit goes to: the order in which the
        Oracle first met it, so that it keeps its place (and its readers their tables) from root
        to root."""
        return self._global_slots.setdefault(id(unit), len(self._global_slots))


#: A recognizer pattern is installed when its weight (:mod:`host.pattern_weights`) is at least
#: this: below it, its values would be a few centipawns, not worth a unit.
RECOGNIZER_WEIGHT = 0.1


def weighed(pattern, weight):
    """``(pattern, None)``: ``pattern`` as root knowledge installs it at ``weight`` (its values
    scaled: a first-order pattern's entries, :class:`~host.root_patterns.Weighted`, or a
    recognizer pattern's outputs, :class:`~host.root_patterns.WeightedRecognizers`), or ``(None,
    why)`` when the weight leaves it out (0 or less; a recognizer pattern below
    ``RECOGNIZER_WEIGHT``)."""
    if weight == 1.0:
        return pattern, None
    if weight <= 0:
        return None, f"weighs {weight:g} against the fitted tables"
    if isinstance(pattern, RootPattern):
        return Weighted(pattern, weight), None
    if weight < RECOGNIZER_WEIGHT:
        return None, f"weighs {weight:g} against the fitted tables (a recognizer is kept from {RECOGNIZER_WEIGHT:g})"
    return WeightedRecognizers(pattern, weight), None

#: How much a pattern's relevance in the region the search will reach counts against its
#: relevance at the root.
REGION_WEIGHT = 0.75


def region_boards(board, expected=()):
    """Positions the search from ``board`` is expected to reach, beyond the root: the end of the
    ``expected`` line (its legal prefix), and the root with every passed pawn on its sixth or
    seventh rank queened (where the queening square is empty) — Hitech's example: king safety,
    dropped when the pieces come off, comes back when a promotion is near."""
    out = []
    line = board.copy(stack=False)
    for move in expected:
        if move not in line.legal_moves:
            break
        line.push(move)
    if line.move_stack:
        out.append(line)
    promoted = board.copy(stack=False)
    for colour in chess.COLORS:
        for pawn in pawn_classes(board, colour).passed:
            rank = chess.square_rank(pawn) if colour == chess.WHITE else 7 - chess.square_rank(pawn)
            goal = chess.square(chess.square_file(pawn), 7 if colour == chess.WHITE else 0)
            if rank >= 5 and promoted.piece_at(goal) is None:
                promoted.remove_piece_at(pawn)
                promoted.set_piece_at(goal, chess.Piece(chess.QUEEN, colour))
    if promoted.board_fen() != board.board_fen():
        out.append(promoted)
    return out


#: The fixed lists' patterns by their library names.
_NAMES = {MaterialPieceSquare: "material-piece-square", ShelterRecognizer: "shelter-king",
          PawnStructure: "pawn-structure", KingSafety: "king-safety"}

