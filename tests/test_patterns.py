"""The patterns of host/patterns.py: compiled with the table-building API and loaded alone,
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
from sim.eval_check import definition_mismatches, hardware_mismatches
from sim.testing import REFERENCE_FILES, reference_positions

PATTERN_CASES = {
    "material-piece-square": MaterialPieceSquare(),
    "material-piece-square-endgame": MaterialPieceSquare(0.0),
    "material-piece-square-blended": MaterialPieceSquare(11 / 24),
    "shelter-first-order": ShelterFirstOrder(),
    "shelter-first-order-queenside": ShelterFirstOrder(("queen", "king")),
    "shelter-recognizer": ShelterRecognizer(),
    "shelter-recognizer-queenside": ShelterRecognizer("queen"),
    "pawn-structure": PawnStructure(),
    "king-safety": KingSafety(),
}

#: Positions where the material patterns take every value they can: two bishops each side or
#: one, lone minor pieces against a bare king or each other, a lone minor with a pawn.
MATERIAL_ENDINGS = ["4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", "2b1kb2/8/8/8/8/8/8/2B1KB2 w - - 0 1",
                    "4k3/8/8/8/8/8/8/4KN2 w - - 0 1", "4k3/8/8/8/8/8/8/4KB2 b - - 0 1",
                    "4kb2/8/8/8/8/8/8/4KN2 w - - 0 1", "4kn2/8/8/8/8/8/8/4K3 w - - 0 1",
                    "4k3/8/8/8/8/8/P7/4KB2 w - - 0 1", "4kb2/8/8/8/8/8/8/1N2K1N1 w - - 0 1",
                    "2b1kb2/8/8/8/8/8/8/4K1N1 w - - 0 1", "4k3/8/8/8/8/8/pp6/4KB2 w - - 0 1",
                    "4kn2/8/8/8/8/8/P7/4K3 b - - 0 1", "4k3/8/8/8/8/8/8/r3KN2 w - - 0 1"]


def _store(pattern, params=FULL):
    image = EvaluatorImage(params)
    pattern.install(image)
    return image.store()


def _boards():
    return [r.board for name in REFERENCE_FILES for r in reference_positions(name)]


@pytest.mark.parametrize("name", sorted(PATTERN_CASES))
def test_model_equals_definition_on_every_reference_position_and_walks(name):
    pattern = PATTERN_CASES[name]
    problems, values = definition_mismatches(pattern, _store(pattern), _boards(), random.Random(name))
    assert not problems, f"{name}: {len(problems)} mismatches:\n" + "\n".join(problems[:10])
    assert len(values) >= 8, f"{name} takes only the values {sorted(values)} on the reference positions"


@pytest.mark.parametrize("name", sorted(set(PATTERNS) & set(PATTERN_CASES)))
def test_hardware_equals_definition_on_1000_positions(full_evaluator, name):
    hw = full_evaluator
    pattern = PATTERN_CASES[name]
    store = _store(pattern)
    boards = [r.board for r in reference_positions("random-positions.epd", limit=1000)]
    assert len(boards) == 1000
    mismatches = hardware_mismatches(hw, pattern, store, boards)
    for unit, kind in [(0, TableKind.DESCRIPTION), (FULL.recognizer_unit(0), TableKind.MAP_FINAL)]:
        assert hw.checksum(unit, kind)[0] == store.checksum(unit, kind)
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:10])


@pytest.mark.parametrize("name", ["bishop-pair", "insufficient-material", "tempo", "pawn-islands"])
def test_material_patterns_equal_their_definitions(full_evaluator, name):
    """The bishop pair, insufficient material, the tempo and the pawn islands, in the model
    (reference positions, walks and the endings above) and in the Verilated evaluator (the
    endings and 300 random positions)."""
    pattern = PATTERNS[name]()
    store = _store(pattern)
    endings = [chess.Board(fen) for fen in MATERIAL_ENDINGS]
    problems, values = definition_mismatches(pattern, store, endings + _boards(), random.Random(name), walks=60)
    assert not problems, f"{name}: {len(problems)} mismatches:\n" + "\n".join(problems[:10])
    assert len(values) >= 2, values
    boards = endings + [r.board for r in reference_positions("random-positions.epd", limit=300)]
    problems = hardware_mismatches(full_evaluator, pattern, store, boards)
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:10])


def test_material_patterns_values():
    pair, insufficient = PATTERNS["bishop-pair"](), PATTERNS["insufficient-material"]()
    values = [(pair.definition(board), insufficient.definition(board))
              for board in map(chess.Board, MATERIAL_ENDINGS)]
    # A lone minor's worth above the other side's is taken back: all of it against a bare king,
    # none against a minor (each side lone), two minors or a rook; less a pawn's for each pawn.
    assert values == [(30, 0), (0, 0), (0, -328), (0, -328), (0, 0), (0, 328), (0, 0), (0, 0), (-30, 0),
                      (0, -120), (0, 224), (0, 0)]


def test_patterns_that_do_not_fit_are_refused():
    # The small iCE40 evaluator's branches see 8 state bits; four 3-bit pawn counts, or a king
    # square and six shield pawns, need 12.
    with pytest.raises(TableError, match="branch A fields need 12 bits; the maps see 8"):
        _store(PawnStructure(), SMALL)
    with pytest.raises(TableError, match="branch A fields need 12 bits; the maps see 8"):
        _store(KingSafety(), SMALL)
    refused = EvaluatorImage(SMALL)                     # a refused recognizer leaves no global unit behind
    with pytest.raises(TableError):
        KingSafety().install(refused)
    assert refused.globals == [] and refused.recognizers == []
    # It has one global unit: a second recognizer reading another is refused. Its global
    # units have 8 bits; the pawn structure's four 3-bit pawn counts need 12.
    image = EvaluatorImage(SMALL)
    for n in range(2):
        unit = GlobalState([("n", 4)], lambda p, s: {}, lambda v: 0)
        reader = Recognizer(description=lambda p, s: {}, final=lambda s, c: 0, contexts=[Context(unit)])
        if n:
            with pytest.raises(TableError, match="all 1 global-state units are taken"):
                image.add_recognizer(reader)
        else:
            image.add_recognizer(reader)
    with pytest.raises(TableError, match="global fields need 12 bits; the unit has 8"):
        _store(PawnStructure(), replace(SMALL, globals=2, branch_bits=13, combine_bits=13, final_bits=13))
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
