"""The four patterns of host/patterns.py: compiled with the table-building API and loaded alone,
the evaluator's value equals each pattern's plain Python definition — in the model on every
reference position and on walks, in the Verilated hardware on 1000 positions — and the builder
refuses what the tables cannot hold."""

import random
from dataclasses import replace

import chess
import pytest

from hdl.eval.tables import FULL, SMALL, TableKind
from host.patterns import PATTERNS, KingSafety, MaterialPieceSquare, PawnStructure, ShelterFirstOrder, ShelterRecognizer
from host.tables import Context, EvaluatorImage, FirstOrder, GlobalState, Recognizer, TableError
from models.evaluator import EvaluatorModel
from models.position import setup_halfmoves
from sim.eval_check import walk_steps
from sim.eval_sim import VerilatedEvaluator
from sim.testing import REFERENCE_FILES, reference_positions

PATTERN_CASES = {
    "material-piece-square": MaterialPieceSquare(),
    "material-piece-square-endgame": MaterialPieceSquare(endgame=True),
    "shelter-first-order": ShelterFirstOrder(),
    "shelter-first-order-queenside": ShelterFirstOrder(("queen", "king")),
    "shelter-recognizer": ShelterRecognizer(),
    "shelter-recognizer-queenside": ShelterRecognizer("queen"),
    "pawn-structure": PawnStructure(),
    "king-safety": KingSafety(),
}


def _store(pattern, params=FULL):
    image = EvaluatorImage(params)
    pattern.install(image)
    return image.store()


def _boards():
    return [r.board for name in REFERENCE_FILES for r in reference_positions(name)]


@pytest.mark.parametrize("name", sorted(PATTERN_CASES))
def test_model_equals_definition_on_every_reference_position_and_walks(name):
    pattern = PATTERN_CASES[name]
    store = _store(pattern)
    values = set()
    rng = random.Random(name)
    boards = _boards()
    for board in boards:
        model = EvaluatorModel(FULL, store)
        for h in setup_halfmoves(board):
            model.apply(h)
        want = pattern.definition(board)
        values.add(want)
        assert model.value() == want, f"{name} on {board.fen()}: model {model.value()}, definition {want}"
    assert len(values) >= 8, f"{name} takes only the values {sorted(values)} on the reference positions"
    for board in boards[:150]:
        model = EvaluatorModel(FULL, store)
        played = board.copy(stack=False)
        for label, halfmoves, _side in walk_steps(board, 8, rng):
            for h in halfmoves:
                model.apply(h)
            if label.startswith("make"):
                played.push(chess.Move.from_uci(label.split()[1]))
            elif label.startswith("unmake"):
                played.pop()
            assert model.value() == pattern.definition(played), f"{name} after {label} from {board.fen()}"


@pytest.fixture(scope="module")
def full_evaluator():
    with VerilatedEvaluator(FULL) as hw:
        yield hw


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_hardware_equals_definition_on_1000_positions(full_evaluator, name):
    hw = full_evaluator
    pattern = PATTERN_CASES[name]
    store = _store(pattern)
    hw.write_store(store)
    for unit, kind in [(0, TableKind.DESCRIPTION), (FULL.recognizer_unit(0), TableKind.MAP_FINAL)]:
        assert hw.checksum(unit, kind)[0] == store.checksum(unit, kind)
    boards = [r.board for r in reference_positions("random-positions.epd", limit=1000)]
    assert len(boards) == 1000
    mismatches = []
    for board in boards:
        hw.clear()
        hw.apply(setup_halfmoves(board))
        hw.set_side(0 if board.turn else 1)
        got, want = hw.value(), pattern.definition(board)
        if got != want:
            mismatches.append(f"{board.fen()}: hardware {got}, definition {want}")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:10])


def test_patterns_that_do_not_fit_are_refused():
    # The small iCE40 evaluator has one global unit; the pawn structure needs one per colour.
    with pytest.raises(TableError, match="all 1 global-state units are taken"):
        _store(PawnStructure(), SMALL)
    # Its global units have 8 bits; four 3-bit pawn counts need 12. Its branches see 8 state
    # bits; a king square and six shield pawns need 12.
    with pytest.raises(TableError, match="global fields need 12 bits; the unit has 8"):
        _store(PawnStructure(), replace(SMALL, globals=2))
    with pytest.raises(TableError, match="branch A fields need 12 bits; the maps see 8"):
        _store(KingSafety(), SMALL)
    # Two recognizers only: the third is refused.
    image = EvaluatorImage(SMALL)
    ShelterRecognizer().install(image)
    with pytest.raises(TableError, match="all 2 recognizers are taken"):
        KingSafety().install(image)


def test_builder_errors_say_what_is_wrong():
    with pytest.raises(TableError, match="not a signed 16-bit value"):
        FirstOrder(lambda piece, square: 40000)
    with pytest.raises(TableError, match="unknown fields"):
        _build(Recognizer(fields_a=[("x", 2)], description=lambda p, s: {"y": 1}, final=lambda s, c: 0))
    with pytest.raises(TableError, match="is not an 8-bit signed value shifted left by 2"):
        _build(Recognizer(fields_a=[("x", 2)], description=lambda p, s: {}, summary_a=lambda v, e: v["x"],
                          final=lambda s, c: s[0] * 3, shift=2))
    with pytest.raises(TableError, match="branch A summaries need more than 64 codes"):
        _build(Recognizer(fields_a=[("x", 12)], description=lambda p, s: {}, summary_a=lambda v, e: v["x"],
                          final=lambda s, c: 0))
    with pytest.raises(TableError, match="global output 300"):
        g = GlobalState([("n", 4)], lambda p, s: {}, lambda v: 300)
        _build(Recognizer(description=lambda p, s: {}, final=lambda s, c: 0, contexts=[Context(g)]))


def _build(recognizer):
    image = EvaluatorImage(FULL)
    image.add_recognizer(recognizer)
    return image.store()
