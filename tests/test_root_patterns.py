"""The root-specific first-order patterns (host/root_patterns.py): built at several roots, each
compiled alone equals its plain definition in the evaluator model (reference positions and
walks) and in the Verilated evaluator; all of a root's together equal the sum of their
definitions; each says it matters where it should and not where it should not."""

import functools
import random

import chess
import pytest

from hdl.eval.tables import FULL
from host.analysis import analyse
from host.library import LIBRARY
from host.patterns import KingSafety
from host.root_patterns import (
    ROOT_PATTERNS,
    Development,
    KingPressure,
    KingsClose,
    KingToTheEdge,
    PassedPawns,
    PawnEndingKings,
    RooksOnOpenFiles,
    RootPattern,
    WeightedRecognizers,
    mating_net,
    recognizers_of,
    unit_values,
)
from host.tables import EvaluatorImage
from models.evaluator import evaluated
from sim.eval_check import definition_mismatches, hardware_mismatches
from sim.testing import REFERENCE_FILES, random_games, reference_positions

#: Roots that make every pattern apply somewhere: an isolated queen's pawn middlegame (open
#: files), an opening with a target (e4), the Sveshnikov's d5 outpost, a pawn ending and a
#: rook ending with passers, a pawn race, kings on opposite wings, a bishop that can be
#: trapped on h7, bishops of opposite colours, a king that walked, two mating nets, and three
#: passers a side (CHUNKER's domain).
ROOTS = {
    "iqp": "r2qr1k1/pp1b1ppp/2n2n2/3p4/3P4/2NB1N2/PP3PPP/R2Q1RK1 w - - 0 12",
    "opening": "r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "sveshnikov": "r1bqkb1r/5ppp/p1np1n2/1p2p1B1/4P3/N1N5/PPP2PPP/R2QKB1R w KQkq - 0 9",
    "pawn-ending": "8/5pk1/6p1/1P6/8/6P1/5PK1/8 w - - 0 1",
    "pawn-race": "8/p7/8/8/8/7k/4K2P/8 w - - 0 1",
    "opposite-wings": "2kr3r/ppp2ppp/2n5/3q4/3P4/2P2N2/P4PPP/R2QR1K1 b - - 0 1",
    "fianchetto-trap": "r1bq1rk1/pp3pp1/2n1p1p1/3p4/3P4/2PBPN2/PP3PPP/R2QK2R w KQ - 0 10",
    "opposite-bishops": "8/5pk1/4b1p1/8/8/2B3P1/5PK1/8 w - - 0 1",
    "king-walk": "r1bq1b1r/ppppkppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQ - 4 4",
    "rook-ending": "8/5pk1/6p1/1P6/8/6P1/r4PK1/1R6 w - - 0 1",
    "kbnk": "8/8/8/4k3/8/8/8/4KBN1 w - - 0 1",
    "krk": "8/8/8/4k3/8/8/8/4K2R w - - 0 1",
    "trapped-rook": "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P2P/5N2/PPPP1PP1/RNBQ1K1R w kq - 0 6",
    "kpk": "8/8/3k4/8/8/2K5/2P5/8 w - - 0 1",
    "wrong-bishop": "k7/8/8/8/8/8/P7/2B1K3 w - - 0 1",
    "connected-passers": "8/8/4k3/r7/2PP4/8/5K2/1R6 w - - 0 1",
    "chunk-race": "8/8/P4p2/6p1/7p/1kP5/1P5K/8 b - - 0 1",
}

CASES = [(root, name) for root in ROOTS for name in ROOT_PATTERNS
         if ROOT_PATTERNS[name].relevance(analyse(chess.Board(ROOTS[root]))) > 0]


def _pattern(root, name):
    board = chess.Board(ROOTS[root])
    return ROOT_PATTERNS[name](analyse(board), board)


def _store(*patterns):
    image = EvaluatorImage(FULL)
    for pattern in patterns:
        pattern.install(image)
    return image.store()


@functools.cache
def _boards():
    """A seeded fifth of the reference positions (every file represented)."""
    rng = random.Random(5)
    return tuple(r.board for name in REFERENCE_FILES for r in reference_positions(name) if rng.random() < 0.2)


def _region(root, count=40, plies=12):
    """Positions the search below ``root`` may see: the root and the ends of ``count`` seeded
    random games of up to ``plies`` plies from it."""
    return [chess.Board(ROOTS[root])] + random_games(root, count, range(1, plies + 1), start=ROOTS[root])


def test_every_pattern_applies_at_some_root():
    assert {name for _, name in CASES} == set(ROOT_PATTERNS)


@pytest.mark.parametrize("root, name", CASES)
def test_model_equals_definition(root, name):
    pattern = _pattern(root, name)
    boards = _region(root) + list(_boards())
    problems, _ = definition_mismatches(pattern, _store(pattern), boards, random.Random(name), walks=30)
    assert not problems, f"{name} at {root}: {len(problems)} mismatches:\n" + "\n".join(problems[:10])


@pytest.mark.parametrize("name", ROOT_PATTERNS)
def test_every_pattern_varies_where_it_applies(name):
    """A pattern constant on every position it is tested on would test nothing."""
    patterns = [(root, _pattern(root, name)) for root, n in CASES if n == name]
    values = {pattern.definition(board) for root, pattern in patterns for board in _region(root) + list(_boards())}
    assert len(values) >= 2, f"{name} takes only the values {sorted(values)}"


def test_hardware_equals_definition(full_evaluator):
    """Each pattern alone on 20 positions of its root's region and 20 random positions, then
    each root's relevant patterns together (their sum) on 120 random positions and 20 of the
    region."""
    boards = [r.board for r in reference_positions("random-positions.epd", limit=120)]
    problems = []
    for root, name in CASES:
        pattern = _pattern(root, name)
        problems += [f"{name} at {root}: {p}" for p in
                     hardware_mismatches(full_evaluator, pattern, _store(pattern), _region(root, 20) + boards[:20])]
    for root in ROOTS:
        patterns = _Sum([_pattern(r, n) for r, n in CASES if r == root])
        problems += [f"all at {root}: {p}" for p in hardware_mismatches(
            full_evaluator, patterns, _store(*patterns.patterns), _region(root, 20) + boards)]
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:10])


def _library_pattern(root, name):
    board = chess.Board(ROOTS[root])
    return LIBRARY[name].make(analyse(board), board)


#: Every recognizer pattern of the library at a root where it applies, for the weighed tests.
RECOGNIZER_CASES = [(root, name) for root in ROOTS for name, entry in LIBRARY.items()
                    if entry.relevance(analyse(chess.Board(ROOTS[root]))) > 0
                    and not isinstance(_library_pattern(root, name), RootPattern)
                    and recognizers_of(_library_pattern(root, name))]


@pytest.mark.parametrize("root, name", RECOGNIZER_CASES)
def test_a_weighed_recognizer_pattern_equals_its_definition(root, name, weight=0.37):
    """A recognizer pattern at a weight (``WeightedRecognizers``: each unit's output scaled and
    rounded to its step) equals its definition — each unit's value scaled — in the model, and
    its value is the weight's share of the pattern's, within the rounding."""
    pattern = _library_pattern(root, name)
    weighed = WeightedRecognizers(pattern, weight)
    boards = _region(root) + list(_boards())
    problems, _ = definition_mismatches(weighed, _store(weighed), boards, random.Random(name), walks=10)
    assert not problems, f"{name} at {root} x{weight}: {len(problems)} mismatches:\n" + "\n".join(problems[:10])
    steps = [1 << unit.shift for unit in weighed.units()]
    for board in boards:
        assert abs(weighed.definition(board) - weight * pattern.definition(board)) <= sum(steps) / 2, board.fen()
    assert any(weighed.definition(board) != pattern.definition(board) for board in boards), name


def test_weighed_recognizer_patterns_on_the_hardware(full_evaluator):
    """Every recognizer pattern of a root, weighed, loaded together in the Verilated evaluator:
    the sum of their definitions, on 40 random positions and 20 of the root's region."""
    boards = [r.board for r in reference_positions("random-positions.epd", limit=40)]
    problems = []
    for root in ROOTS:
        names = [name for r, name in RECOGNIZER_CASES if r == root]
        if not names:
            continue
        patterns = _Sum([WeightedRecognizers(_library_pattern(root, name), 0.37) for name in names])
        problems += [f"{names} at {root}: {p}" for p in hardware_mismatches(
            full_evaluator, patterns, _store(*patterns.patterns), _region(root, 20) + boards)]
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:10])


def test_a_pattern_with_units_of_its_own_says_what_each_gives():
    """A pattern installing several recognizers is weighed only if it says each one's value;
    each that says so sums to its definition."""
    board = chess.Board(ROOTS["opposite-wings"])
    for root, name in RECOGNIZER_CASES:
        pattern = _library_pattern(root, name)
        count = len(recognizers_of(pattern))
        if count > 1:
            assert hasattr(pattern, "unit_values"), name
            assert sum(unit_values(pattern, board, count)) == pattern.definition(board), name

    class Twice:
        def install(self, image):
            KingSafety().install(image)
            KingSafety().install(image)
    with pytest.raises(TypeError, match="does not say what each gives"):
        WeightedRecognizers(Twice(), 0.5).definition(board)

    class Nothing:                      # a pattern with no recognizer at this root: nothing to scale
        def install(self, image):
            pass

        def definition(self, board):
            return 0
    assert WeightedRecognizers(Nothing(), 0.5).definition(board) == 0


class _Sum:
    """Patterns loaded together: the sum of their definitions."""

    def __init__(self, patterns):
        self.patterns = patterns

    def definition(self, board):
        return sum(p.definition(board) for p in self.patterns)


def test_chunk_race_sees_two_pawns_the_rule_of_the_square_does_not():
    """a6 and b5 against the king on d5, Black to move: the king catches either pawn alone but
    not both (Kc5 takes b5, a7 queens); the chunk's library knows it, pawn by pawn the rule of
    the square does not."""
    board = chess.Board("8/8/P7/1P1k4/8/8/8/7K b - - 0 1")
    analysis = analyse(board)
    assert ROOT_PATTERNS["chunk-race"](analysis, board).definition(board) == 400
    for taken in (chess.A6, chess.B5):
        alone = board.copy()
        alone.remove_piece_at(taken)
        assert ROOT_PATTERNS["rule-of-the-square"](analyse(alone), alone).definition(alone) == 0
    assert ROOT_PATTERNS["chunk-race"].relevance(analyse(chess.Board(ROOTS["pawn-ending"]))) == 0   # one passer
    queened = chess.Board("8/8/P7/1P1k4/8/8/8/q6K b - - 0 1")           # a queen in the search: no race
    assert ROOT_PATTERNS["chunk-race"](analysis, board).definition(queened) == 0
    runs = chess.Board("8/p7/8/8/8/1k6/4K2P/8 w - - 0 1")                  # h2 outruns the king on b3 ...
    square = ROOT_PATTERNS["rule-of-the-square"](analyse(runs), runs)
    assert square.definition(runs) == 400
    assert square.definition(chess.Board("8/p7/8/8/8/1k6/4K2P/q7 w - - 0 1")) == 0     # ... not a queen


def test_relevance_follows_the_root():
    analyses = {root: analyse(chess.Board(fen)) for root, fen in ROOTS.items()}
    assert RooksOnOpenFiles.relevance(analyses["iqp"]) > 0 and RooksOnOpenFiles.relevance(analyses["kbnk"]) == 0
    assert Development.relevance(analyses["opening"]) > Development.relevance(analyses["iqp"])
    assert Development.relevance(analyses["pawn-ending"]) == 0 and KingPressure.relevance(analyses["pawn-ending"]) == 0
    assert PassedPawns.relevance(analyses["pawn-ending"]) > 0 and PassedPawns.relevance(analyses["opening"]) == 0
    assert KingToTheEdge.relevance(analyses["krk"]) > 0 and KingToTheEdge.relevance(analyses["iqp"]) == 0


def test_a_pawn_ending_below_a_rook_ending_values_the_kings():
    """From a game against sunfish: Black (Kg7) took on h7 with the rook and, after 113. Rc7+ and
    the exchange of rooks, the pawn ending with White's king on e2 and Black's on h7 is lost
    (Stockfish: -6.5). Below that root the pattern sees it; with a rook on the board it says
    nothing, and at a root with many pieces it does not apply."""
    root = chess.Board("2R5/6kP/8/2p5/2P5/7r/4K3/8 b - - 4 112")
    pattern = PawnEndingKings(analyse(root), root)
    assert pattern.pawns == [chess.C4]        # c5 and h7 are targets: likely gone
    after = chess.Board("8/7k/8/2p5/2P5/8/4K3/8 w - - 0 1")
    assert pattern.definition(after) == 288
    assert pattern.definition(chess.Board("8/8/8/2p1k3/2P5/8/4K3/8 w - - 0 1")) == 0
    assert pattern.definition(chess.Board("8/7k/8/2p5/2P5/8/4K3/2R5 w - - 0 1")) == 0
    store = _store(pattern)
    assert evaluated(store, after).value() == 288
    assert PawnEndingKings.relevance(analyse(root)) > 0
    assert PawnEndingKings.relevance(analyse(chess.Board(ROOTS["iqp"]))) == 0


@pytest.mark.parametrize("fen, weak", [
    ("8/8/8/4k3/8/8/8/4K2R w - - 0 1", chess.BLACK),                # a rook against a bare king
    ("8/1b5k/5Q2/4K3/8/8/8/8 w - - 0 1", chess.BLACK),              # a queen against a bishop
    ("6K1/5P2/8/8/8/b3Q3/1k6/8 w - - 0 1", chess.BLACK),            # ... with a pawn besides
    ("8/8/3k4/8/2r5/8/8/Q3K3 b - - 0 1", chess.BLACK),              # a queen against a rook
    ("8/5n2/8/3K4/8/4k3/8/1q6 w - - 0 1", chess.WHITE),             # Black's queen against a knight
    ("8/8/3k4/8/8/8/8/2B1KB2 w - - 0 1", chess.BLACK),              # two bishops against a bare king
])
def test_a_mating_net_against_a_pawnless_side_outweighed(fen, weak):
    analysis = analyse(chess.Board(fen))
    assert mating_net(analysis)[0] == weak and KingToTheEdge.relevance(analysis) > 0
    board = chess.Board(fen)
    pattern, close = KingToTheEdge(analysis, board), KingsClose(analysis, board)
    king = board.king(weak)
    edge, centre = (chess.Board(fen) for _ in range(2))
    edge.remove_piece_at(king), centre.remove_piece_at(king)
    free = [s for s in (chess.A1, chess.H8, chess.A8, chess.H1) if not board.piece_at(s)
            and chess.square_distance(s, board.king(not weak)) > 1][0]
    edge.set_piece_at(free, chess.Piece(chess.KING, weak))
    centre.set_piece_at(chess.D4 if not board.piece_at(chess.D4) else chess.E5, chess.Piece(chess.KING, weak))
    sign = 1 if weak == chess.BLACK else -1       # the stronger side's gain, from White's view
    assert sign * (pattern.definition(edge) - pattern.definition(centre)) >= 36
    assert sign * close.value(board.king(chess.WHITE), board.king(chess.BLACK)) > 0


@pytest.mark.parametrize("fen", [
    "8/8/3k4/8/2n5/8/8/R3K3 w - - 0 1",             # a rook against a knight: drawn, no net
    "8/8/3k4/8/2r5/8/8/R2BK3 w - - 0 1",            # rook and bishop against a rook
    "8/8/3k1p2/8/8/8/8/Q3K3 w - - 0 1",             # the queen against a king and pawn: it has a pawn
    "8/8/3k4/8/2n5/8/8/2B1KN2 w - - 0 1",           # bishop and knight against a knight
])
def test_no_mating_net_where_none_is_decisive(fen):
    analysis = analyse(chess.Board(fen))
    assert mating_net(analysis) is None and KingToTheEdge.relevance(analysis) == 0
    assert KingsClose(analysis, chess.Board(fen)).value(chess.E1, chess.D6) == 0


def test_mating_nets_drive_the_bare_king_to_the_right_corner():
    krk = _pattern("krk", "king-to-the-edge")
    centre, edge = chess.Board("8/8/8/4k3/8/8/8/4K2R w - - 0 1"), chess.Board("4k3/8/8/8/8/8/8/4K2R w - - 0 1")
    assert krk.definition(edge) > krk.definition(centre)           # White (the stronger side) gains
    kbnk = _pattern("kbnk", "king-to-the-edge")                # a light-squared bishop (f1): h1 and a8
    right, wrong = (chess.Board(f"{corner}/8/8/8/8/8/8/4KBN1 w - - 0 1") for corner in ("k7", "7k"))
    assert kbnk.definition(right) > kbnk.definition(wrong)
    square = _pattern("pawn-race", "rule-of-the-square")            # h2 against the king on h3; a7 against e2
    assert square.definition(chess.Board("8/p7/8/8/8/7k/4K2P/8 w - - 0 1")) == 0
    assert square.definition(chess.Board("8/p7/8/8/8/1k6/4K2P/8 w - - 0 1")) == 400        # h2 runs
    assert square.definition(chess.Board("8/p7/8/8/8/1k6/4K2P/8 b - - 0 1")) == 0          # ... Kc4 catches it
    assert square.definition(chess.Board("8/p7/8/8/8/7k/7P/7K b - - 0 1")) == -400         # a7 runs from Kh1
    chunk = _pattern("chunk-race", "chunk-race")                   # a6, b2, c3 against f6, g5, h4
    assert chunk.files == {chess.WHITE: (0, 1, 2), chess.BLACK: (5, 6, 7)}
    side = chunk.side_value
    root = chess.Board(ROOTS["chunk-race"])
    assert (side(root, chess.WHITE), side(root, chess.BLACK)) == (400, 0)   # a6 runs; Kh2 holds f6, g5, h4
    caught = chess.Board("8/1k6/P4p2/6p1/7p/2P5/1P5K/8 b - - 0 1")         # Kxa6, then b2 and c3 are held
    assert side(caught, chess.WHITE) == 0
    doubled = chess.Board("8/8/P4p2/6p1/7p/1kP5/PP5K/8 b - - 0 1")          # two pawns on the a-file
    assert side(doubled, chess.WHITE) == 0
    both = chess.Board("8/8/P7/5p2/6pp/1kP5/1P6/K7 b - - 0 1")             # White's king far from f5, g4, h4
    assert (side(both, chess.WHITE), side(both, chess.BLACK), chunk.definition(both)) == (400, -400, 0)
    close = _pattern("krk", "kings-close")                          # ... and White's king comes near
    assert close.definition(chess.Board("8/8/8/4k3/4K3/8/8/7R w - - 0 1")) > close.definition(centre) > 0
