"""The Oracle's choice (host/oracle.py): the fixed lists of the ``phase`` knowledge; with
``root`` knowledge, king safety chosen where the kings need it and dropped where they do not,
pawn endings and mating nets given their patterns, what does not fit left out with the reason
(the choice by relevance tested at the patterns' hand values), the fitted weights scaling
first-order patterns and leaving out what weighs too little; and every allocation's tables
equal the sum of the chosen patterns' definitions."""

import random

import chess
import pytest

from hdl.eval.tables import FULL, HITECH, SMALL
from host.library import parse_weights
from host.oracle import KNOWLEDGE, RECOGNIZER_WEIGHT, Oracle, region_boards
from host.pattern_weights import WEIGHTS
from host.root_patterns import RootPattern, Weighted, WeightedRecognizers
from models.evaluator import static_value
from sim.testing import REFERENCE_FILES, reference_positions

#: Every pattern at its hand values: what the choice by relevance is tested with.
HAND = {}

ROOTS = {
    "castled": "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "opposite-wings": "2kr3r/ppp2ppp/2n5/3q4/3P4/2P2N2/P4PPP/R2QR1K1 b - - 0 1",
    "queen-ending": "8/5pk1/6p1/3Q4/8/6P1/5PK1/4q3 w - - 0 1",
    "pawn-ending": "8/5pk1/6p1/1P6/8/6P1/5PK1/8 w - - 0 1",
    "krk": "8/8/8/4k3/8/8/8/4K2R w - - 0 1",
    "kbnk": "8/8/8/4k3/8/8/8/4KBN1 w - - 0 1",
}


def _chosen(fen, params=FULL, knowledge="root", weights=HAND):
    return [name for name, _ in Oracle(params, knowledge, weights=weights).allocate(chess.Board(fen)).chosen]


def test_the_phase_knowledge_is_the_two_fixed_lists():
    assert Oracle(FULL).knowledge == KNOWLEDGE[0] == "root"     # the default
    oracle = Oracle(FULL, "phase")
    middle = oracle.allocate(chess.Board())
    placed = {k: name for k, name in enumerate(middle.recognizers) if name}
    assert middle.label == "middlegame" and sorted(placed.values()) == [
        "king-safety", "pawn-structure", "pawn-structure", "shelter-king", "shelter-king"]
    # the shelter (7 state bits) goes to narrow units; the four-field patterns need wide ones
    wide = FULL.recognizers - FULL.narrow
    assert all((k >= wide) == (name == "shelter-king") for k, name in placed.items()), placed
    end = oracle.allocate(chess.Board(ROOTS["pawn-ending"]))
    assert end.label == "endgame" and [n for n in end.recognizers if n] == ["pawn-structure", "pawn-structure"]
    assert oracle.allocate(chess.Board()) is middle             # compiled once per phase
    assert Oracle(FULL, "material").allocate(chess.Board()).chosen == [("material-piece-square", None)]
    with pytest.raises(ValueError, match="no knowledge 'wisdom'"):
        Oracle(FULL, "wisdom")


def test_king_safety_where_the_kings_need_it():
    assert "king-safety" in _chosen(ROOTS["castled"])
    assert "king-safety" not in _chosen(ROOTS["pawn-ending"]) and "king-safety" not in _chosen(ROOTS["krk"])
    opposite = _chosen(ROOTS["opposite-wings"])
    assert "shelter-king" in opposite and "shelter-queen" in opposite
    assert "shelter-queen" not in _chosen("r1bq1rk1/pp3ppp/2n1pn2/3p4/3P4/2N1PN2/PP3PPP/R2Q1RK1 w - - 0 9")


def test_endings_get_their_patterns():
    pawns = _chosen(ROOTS["pawn-ending"])
    assert "passed-pawns" in pawns and "pawn-structure" in pawns and "development" not in pawns
    for net in ("krk", "kbnk"):
        assert {"king-to-the-edge", "kings-close"} <= set(_chosen(ROOTS[net]))
    assert "king-to-the-edge" not in _chosen(ROOTS["queen-ending"])


def test_a_unit_keeps_its_place_while_its_pattern_stays():
    """Over a game's roots, a general pattern chosen again keeps its units with the same tables
    (so the board's checksum shows nothing to send), also where a pattern before it in the
    library came or went."""
    from benchmarks.oracle import GAME, game_roots
    from host.library import LIBRARY
    oracle = Oracle(FULL, "root", weights=HAND)
    allocations = [oracle.allocate(root) for root in game_roots(GAME)[:30]]
    compared = moved = 0
    for before, after in zip(allocations, allocations[1:]):
        for name in {n for n in after.recognizers if n and LIBRARY[n].general} & set(before.recognizers):
            units = [k for k, n in enumerate(after.recognizers) if n == name]
            assert units == [k for k, n in enumerate(before.recognizers) if n == name], name
            for unit in units:
                kinds = [kind for (u, kind) in after.store.tables if u == FULL.recognizer_unit(unit)]
                assert all(after.store.tables[FULL.recognizer_unit(unit), kind]
                           == before.store.tables[FULL.recognizer_unit(unit), kind] for kind in kinds), name
                compared += 1
        moved += set(before.recognizers) != set(after.recognizers)
    assert compared >= 200 and moved >= 3, (compared, moved)


def test_what_does_not_fit_is_left_out_with_the_reason():
    allocation = Oracle(SMALL, "root", weights=HAND).allocate(chess.Board(ROOTS["castled"]))
    reasons = dict(allocation.left_out)
    assert "king-safety" in reasons and ("bits" in reasons["king-safety"] or "taken" in reasons["king-safety"])
    assert len(allocation.recognizers) <= SMALL.recognizers
    lines = allocation.explain()
    assert lines[0].startswith("root knowledge, middlegame: material-piece-square, ")
    assert any(line.startswith("left out king-safety: ") for line in lines)


@pytest.mark.parametrize("params", [FULL, HITECH, SMALL], ids=["full", "hitech", "small"])
@pytest.mark.parametrize("knowledge", KNOWLEDGE)
def test_the_tables_equal_the_chosen_patterns(params, knowledge):
    """At every root of ``ROOTS`` and six reference positions as roots: the evaluator model
    with the allocation's tables equals the sum of the chosen patterns' definitions on thirty
    reference positions (the search goes far from its root: the tables hold everywhere)."""
    rng = random.Random(3)
    records = [r for name in REFERENCE_FILES for r in reference_positions(name)]
    roots = [chess.Board(fen) for fen in ROOTS.values()] + [r.board for r in rng.sample(records, 6)]
    boards = [r.board for r in rng.sample(records, 30)]
    oracle = Oracle(params, knowledge)
    for root in roots:
        allocation = oracle.allocate(root)
        for board in boards:
            assert static_value(allocation.store, board) == allocation.definition(board), (root.fen(), board.fen())


def test_the_region_the_search_will_reach():
    """Hitech's example: king safety, dropped once the pieces are off, comes back while a
    promotion is near (the root with the passer queened is in the region); the rest of the
    last principal variation is in it too, and what a region brings is marked so."""
    near = chess.Board("r5k1/1P3ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")        # b7 queens next move
    promoted, = region_boards(near)
    assert promoted.piece_at(chess.B8) == chess.Piece(chess.QUEEN, chess.WHITE) and not promoted.pieces(
        chess.PAWN, chess.WHITE) & chess.BB_B7
    allocation = Oracle(FULL, "root", weights=HAND).allocate(near)
    assert "king-safety" in allocation.from_region and "king-safety" in [n for n, _ in allocation.chosen]
    far = chess.Board("r5k1/5ppp/8/1P6/8/8/5PPP/R5K1 w - - 0 1")          # the same, the pawn on b5
    assert region_boards(far) == [] and "king-safety" not in _chosen(far.fen())
    assert any(", region)" in part for part in allocation.explain()[0].split("("))
    # an expected line: its legal prefix is played, the position at its end is in the region
    line = [chess.Move.from_uci(m) for m in ("e2e4", "e7e5", "g1f3", "e1e2")]
    reached, = region_boards(chess.Board(), line)
    assert reached.fen().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b")


def test_a_pattern_with_nothing_at_its_root_is_left_out():
    """A root pattern chosen for the region may be empty at the root itself (it is built from
    the root's analysis): it is left out, saying so, not installed as zeros."""
    allocation = Oracle(FULL, "root").allocate(chess.Board("r5k1/1P3ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"))
    reasons = dict(allocation.left_out)
    assert reasons.get("trade-when-ahead") == "nothing to install at this root"


def test_a_family_left_out():
    """``without``: root knowledge leaves the named families out (a family match measures
    them); an unknown family, or families with another knowledge, are refused."""
    from host.library import FAMILIES, LIBRARY
    oracle = Oracle(FULL, "root", without=("king", "endgame"))
    for fen in (ROOTS["castled"], ROOTS["krk"], ROOTS["pawn-ending"]):
        allocation = oracle.allocate(chess.Board(fen))
        assert all(LIBRARY[name].family not in ("king", "endgame") for name, _ in allocation.chosen[1:])
        assert allocation.explain()[0].startswith("root knowledge without king, endgame, ")
    assert "king-safety" in _chosen(ROOTS["castled"]) and "king-to-the-edge" in _chosen(ROOTS["krk"])
    assert set(FAMILIES) == {entry.family for entry in LIBRARY.values()} | {"tempo"}     # tempo: antichess's
    with pytest.raises(ValueError, match="no pattern family or pattern kings"):
        Oracle(FULL, "root", without=("kings",))
    # one pattern by name: the kings of a pawn ending, chosen at a rook ending, left out alone
    rook_ending = chess.Board("8/5pk1/6p1/1P6/8/6P1/r4PK1/1R6 w - - 0 1")
    chosen = [name for name, _ in Oracle(FULL, "root").allocate(rook_ending).chosen]
    without = [name for name, _ in Oracle(FULL, "root", without=("pawn-ending-kings",)).allocate(rook_ending).chosen]
    assert "pawn-ending-kings" in chosen and "pawn-ending-kings" not in without
    assert "king-activity" in without       # the rest of its family stays
    with pytest.raises(ValueError, match="only root knowledge leaves out families"):
        Oracle(FULL, "phase", without=("king",))


def test_the_fitted_weights_scale_first_order_patterns_and_leave_out_light_ones():
    """With the fitted weights (host/pattern_weights.py) a first-order pattern is installed at
    its weight (each value rounded), a recognizer pattern with its outputs scaled, one that
    weighs 0 and a recognizer below ``RECOGNIZER_WEIGHT`` are left out saying so, and a pattern
    the fit did not weigh keeps its hand values."""
    weights = {"rooks-on-open-files": 0.5, "development": 0.0, "king-safety": 0.25, "pawn-islands": 0.05}
    board = chess.Board(ROOTS["castled"])
    assert {"rooks-on-open-files", "development", "king-safety", "pawn-structure"} <= set(_chosen(ROOTS["castled"]))
    allocation = Oracle(FULL, "root", weights=weights).allocate(board)
    patterns = dict(zip([name for name, _ in allocation.chosen], allocation.patterns))
    rooks = patterns["rooks-on-open-files"]
    assert isinstance(rooks, Weighted) and rooks.weight == 0.5
    rook = chess.Piece(chess.ROOK, chess.BLACK)
    assert (rooks.pattern.g(rook, chess.C8), rooks.g(rook, chess.C8)) == (-12, -6)     # c-file half open
    reasons = dict(allocation.left_out)
    assert "rooks-on-open-files (" in allocation.explain()[0] and ", x0.5)" in allocation.explain()[0]
    assert reasons["development"] == "weighs 0 against the fitted tables"
    assert reasons["pawn-islands"].startswith("weighs 0.05 against the fitted tables (a recognizer is kept from")
    king = patterns["king-safety"]
    assert isinstance(king, WeightedRecognizers) and "king-safety (2.00, x0.25)" in allocation.explain()[0]
    assert king.definition(board) == round(0.25 * king.pattern.definition(board))     # one unit, shift 0
    assert allocation.definition(board) == sum(p.definition(board) for p in allocation.patterns)
    assert "pawn-structure" in patterns and not isinstance(patterns["pawn-structure"], Weighted)
    # the shipped weights: every name is the library's, none negative, recognizers gated
    from host.library import LIBRARY
    assert WEIGHTS and set(WEIGHTS) <= set(LIBRARY) and min(WEIGHTS.values()) >= 0
    allocation = Oracle(FULL, "root").allocate(board)
    for name, pattern in zip([n for n, _ in allocation.chosen], allocation.patterns):
        weight = WEIGHTS.get(name, 1.0)
        assert weight > 0 and (isinstance(pattern, RootPattern) or weight >= RECOGNIZER_WEIGHT
                               or name == "material-piece-square"), name
        assert weight == 1.0 or isinstance(pattern, (Weighted, WeightedRecognizers)), name


def test_weights_in_place_of_the_fitted_ones():
    """``parse_weights`` (the UCI option ``KnowledgeWeights``, the benchmarks' ``--weights``):
    ``name=weight`` pairs of library patterns, each at least 0; anything else refused saying
    what is wrong. Given to the Oracle over the fitted weights, a pattern the fit left out goes
    in (a recognizer scaled) and one given 0 goes out."""
    assert parse_weights("") == {} and parse_weights(" , ") == {}
    assert parse_weights("king-safety=0.5, passed-pawns = 0") == {"king-safety": 0.5, "passed-pawns": 0.0}
    for bad, why in (("king-safety", "is not name=weight"), ("kings=1", "no pattern 'kings'"),
                     ("king-safety=much", "is not a number"), ("king-safety=-1", "of at least 0"),
                     ("king-safety=nan", "of at least 0"), ("king-safety=1,king-safety=2", "weighed twice"),
                     ("antichess-mobility=1", "no pattern .antichess-mobility.")):    # antichess: not weighed
        with pytest.raises(ValueError, match=why):
            parse_weights(bad)
    board = chess.Board(ROOTS["castled"])
    weights = {**WEIGHTS, **parse_weights("shelter-king=0.5,bishop-pair=0")}
    allocation = Oracle(FULL, "root", weights=weights).allocate(board)
    patterns = dict(zip([name for name, _ in allocation.chosen], allocation.patterns))
    assert isinstance(patterns["shelter-king"], WeightedRecognizers) and "bishop-pair" not in patterns
    assert dict(allocation.left_out)["bishop-pair"] == "weighs 0 against the fitted tables"
    assert "shelter-king" not in dict(zip([n for n, _ in Oracle(FULL, "root").allocate(board).chosen], range(99)))
