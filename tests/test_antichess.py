"""Antichess on the machine (issue 18): the generator's antichess mode against python-chess's
``AntichessBoard`` and the bit-exact model, hardware perft, the search against the reference
node for node, the terminal rule, and the host's handling of the variant.

The default suite runs samples; ``-m slow`` runs the issue's full counts (500 random positions
each for perft and search)."""

import importlib.util
import random
from dataclasses import replace

import chess
import chess.variant
import pytest

from hdl.eval.tables import FULL, HITECH, SMALL
from hdl.movegen.layouts import GenMode, Variant, VictimOrder
from hdl.search.features import SearchFeatures
from hdl.search.frame import MATE
from host.antichess import (
    ANTICHESS_LIBRARY,
    HAND_VALUES,
    LEFT,
    PARAMETERS,
    AntichessMaterial,
    PiecesLeft,
    library_patterns,
    parameter_columns,
)
from host.oracle import Oracle
from host.tables import EvaluatorImage
from models.evaluator import static_value
from models.movegen import candidate_moves, config_for, forced, moveless, ordered_moves
from models.ordering import ordered_moves as fast_ordered_moves
from models.position import MachinePosition, PositionError, new_board, validate_board
from sim.eval_check import definition_mismatches, hardware_mismatches
from sim.movegen_check import compare_position
from sim.search_check import SearchPair, table_store
from sim.testing import DATA, random_games
from sim.testing import python_chess_perft as perft

#: python-chess's (and the servers') antichess perft of the starting position.
START_PERFT = [1, 20, 400, 8067, 153299]


def positions(seed, count, plies=range(1, 70)):
    """Seeded random antichess positions that are not over (the side to move has a move)."""
    games = random_games(seed, count * 2, plies, variant="antichess")
    return [game for game in games if not game.is_game_over()][:count]


def side(board):
    return 0 if board.turn == chess.WHITE else 1


def uci(move):
    return chess.Move(move.from_sq, move.to_sq, move.promotion or None).uci()


# --- the model -------------------------------------------------------------------------------------

def test_the_model_moves_are_python_chess_antichess_moves():
    games = random_games(7, 300, range(0, 120), variant="antichess")
    assert any(game.is_game_over() for game in games)          # moveless positions are in the sample
    promotions = 0
    for board in games:
        config = config_for(board)
        pos = MachinePosition.from_board(board)
        got = sorted(uci(m) for m in candidate_moves(pos, side(board), config))
        assert got == sorted(m.uci() for m in board.legal_moves), board.fen()
        promotions += sum(m.uci().endswith("k") for m in board.legal_moves)
        assert forced(pos, side(board), config) == any(board.is_capture(m) for m in board.legal_moves)
        assert moveless(pos, side(board), config) == (not any(True for _ in board.legal_moves))


def test_the_fast_order_is_the_bit_exact_models_in_both_victim_orders():
    for board in positions(8, 60):
        pos = MachinePosition.from_board(board)
        for order in VictimOrder:
            config = config_for(board, order)
            for captures in (False, True):
                mode = GenMode.CAPTURES if captures else GenMode.ALL
                want = [uci(m) for m in ordered_moves(pos, side(board), mode, config)]
                got = [m.uci() for m in fast_ordered_moves(board, captures, order == VictimOrder.LEAST_VALUABLE)]
                assert got == want, (board.fen(), order)


def test_a_capture_is_compulsory_and_the_victim_order_reverses():
    board = new_board("antichess", "4k3/8/8/3q4/4P3/5p2/8/8 w - - 0 1")     # exd5 or nothing
    pos = MachinePosition.from_board(board)
    assert [uci(m) for m in candidate_moves(pos, 0, config_for(board))] == ["e4d5"]
    board = new_board("antichess", "8/8/8/3q1p2/4P3/8/8/8 w - - 0 1")       # takes the queen or the pawn
    for order, first in ((VictimOrder.MOST_VALUABLE, "e4d5"), (VictimOrder.LEAST_VALUABLE, "e4f5")):
        moves = ordered_moves(MachinePosition.from_board(board), 0, GenMode.ALL, config_for(board, order))
        assert [uci(m) for m in moves][0] == first


def test_a_pawn_promotes_to_a_king_in_antichess_only():
    for variant, pieces in (("chess", "qnrb"), ("antichess", "qnrbk")):
        board = new_board(variant, "7k/P7/8/8/8/8/8/K7 w - - 0 1")
        moves = {uci(m) for m in candidate_moves(MachinePosition.from_board(board), 0, config_for(board))}
        assert {m for m in moves if m.startswith("a7a8")} == {f"a7a8{p}" for p in pieces}


def test_impossible_antichess_positions_are_refused():
    with pytest.raises(PositionError, match="castling"):
        validate_board(new_board("antichess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"))
    with pytest.raises(PositionError, match="no pieces"):
        validate_board(new_board("antichess", "8/8/8/8/8/8/8/R7 w - - 0 1"))
    validate_board(new_board("antichess", "8/8/8/8/8/p7/P7/8 w - - 0 1"))     # no king, no move: fine
    with pytest.raises(PositionError, match="king"):
        validate_board(new_board("chess", "8/8/8/8/8/p7/P7/8 w - - 0 1"))
    with pytest.raises(PositionError, match="plays chess and antichess"):
        validate_board(chess.variant.AtomicBoard())
    with pytest.raises(ValueError, match="not 'atomic'"):
        new_board("atomic")


# --- the generator --------------------------------------------------------------------------------

def test_the_generator_agrees_on_random_antichess_positions(movegen_hw):
    rng = random.Random(3)
    for board in positions(9, 40):
        diffs = compare_position(movegen_hw, board, VictimOrder(rng.randrange(2)))
        assert not diffs, (board.fen(), diffs)


@pytest.mark.slow
def test_the_generator_agrees_on_500_random_antichess_positions(movegen_hw):
    rng = random.Random(4)
    for board in positions(17, 500):
        diffs = compare_position(movegen_hw, board, VictimOrder(rng.randrange(2)))
        assert not diffs, (board.fen(), diffs)


def test_the_generator_still_plays_chess_after_antichess(movegen_hw):
    for board in random_games(10, 10, range(10, 40)):
        assert not compare_position(movegen_hw, board)


def test_antichess_flags_of_the_generator(movegen_hw):
    for fen, want in (("8/8/8/8/8/p7/P7/8 w - - 0 1", (False, True)),          # blocked: no move
                      ("8/8/8/3p4/4P3/8/8/8 w - - 0 1", (True, False)),         # exd5 is forced
                      ("8/8/8/8/8/8/P7/7r w - - 0 1", (False, False)),
                      ("8/8/8/8/Pp6/8/8/8 b - a3 0 1", (True, False))):         # en passant alone forces
        board = new_board("antichess", fen)
        compare_position(movegen_hw, board)
        state = movegen_hw.state()
        assert (state.forced, state.moveless) == want, fen
        assert not state.in_check and state.king_attacked == 0


# --- perft ----------------------------------------------------------------------------------------

def test_hardware_perft_of_the_start_position(machine_hw):
    machine_hw.set_position(new_board("antichess"))
    for depth, want in enumerate(START_PERFT[:4]):
        assert machine_hw.perft(depth)[0] == want


def test_hardware_perft_on_random_positions(machine_hw):
    for board in positions(11, 25):
        machine_hw.set_position(board)
        assert machine_hw.perft(2)[0] == perft(board, 2), board.fen()


@pytest.mark.slow
def test_hardware_perft_depth_4_and_500_random_positions_at_depth_3(machine_hw):
    machine_hw.set_position(new_board("antichess"))
    assert machine_hw.perft(4)[0] == START_PERFT[4]
    for board in positions(12, 500):
        machine_hw.set_position(board)
        assert machine_hw.perft(3)[0] == perft(board, 3), board.fen()


# --- the search -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def antichess_pair(machine_hw):
    return SearchPair(machine_hw, table_store(machine_hw.eval_params, "antichess"))


def compare_searches(pair, boards, seed, depths):
    rng = random.Random(seed)
    for board in boards:
        depth = rng.choice(depths)
        order = VictimOrder(rng.randrange(2))
        features = SearchFeatures() if rng.random() < 0.5 else \
            replace(SearchFeatures(), null=False, verification=False, futility=False, reverse=False)
        hw, ref, diffs = pair.compare(board, depth, victim_order=order, features=features)
        assert not diffs, (board.fen(), depth, order, features, diffs)


def test_the_search_equals_the_reference_on_random_positions(antichess_pair):
    compare_searches(antichess_pair, positions(13, 30), 13, (1, 2, 3))


@pytest.mark.slow
def test_the_search_equals_the_reference_on_500_random_positions(antichess_pair):
    compare_searches(antichess_pair, positions(14, 500), 14, (1, 2, 3, 4))


@pytest.mark.parametrize("fen, depth, score", [
    ("8/8/8/8/8/p7/P7/8 w - - 0 1", 1, MATE),                  # no move: White has won
    ("8/8/8/8/8/1p6/P7/8 w - - 0 1", 1, -(MATE - 1)),          # axb3 is forced, and Black has no piece
    ("8/8/8/8/8/p7/P6r/7R w - - 0 1", 2, -(MATE - 1)),         # Rxh2, then Black's pawn is blocked
    ("8/8/8/8/8/p7/8/1R6 w - - 0 1", 3, MATE - 2),             # Rb2! axb2 and White has no piece
])
def test_the_side_without_a_move_wins(antichess_pair, fen, depth, score):
    board = new_board("antichess", fen)
    hw, ref, diffs = antichess_pair.compare(board, depth)
    assert not diffs
    assert hw.score == score


def test_a_forced_capture_is_followed_without_standing_pat_within_the_bound(antichess_pair):
    # At depth 1, Rb2 leaves Black a quiescence node that must take (ply 1, below twice the
    # root's depth): it does not stand pat, and after axb2 White, without a piece, has won.
    board = new_board("antichess", "8/8/8/8/8/p7/8/1R6 w - - 0 1")
    hw, ref, diffs = antichess_pair.compare(board, 1)
    assert not diffs and (hw.score, hw.move) == (MATE - 2, chess.Move.from_uci("b1b2"))


def test_chess_mode_is_unchanged_after_antichess(antichess_pair):
    for board in random_games(15, 8, range(8, 40)):
        hw, ref, diffs = antichess_pair.compare(board, 3)
        assert not diffs, (board.fen(), diffs)
    assert config_for(chess.Board())["variant"] == Variant.CHESS


# --- the command line ------------------------------------------------------------------------------

def test_the_command_line_in_antichess(capsys, tmp_path):
    from host.cli import main
    assert main(["perft", "startpos", "3", "--variant", "antichess"]) == 0
    assert "perft 3: 8067 leaves" in capsys.readouterr().out
    assert main(["analyze", "rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2", "--depth", "2",
                 "--variant", "antichess"]) == 0
    assert "bestmove f1b5" in capsys.readouterr().out            # the one legal move: a capture
    assert main(["analyze", "8/8/8/8/8/p7/P7/8 w - - 0 1", "--variant", "antichess"]) == 0
    assert "the side to move has won" in capsys.readouterr().out
    castling = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert main(["perft", castling, "2", "--variant", "antichess"]) == 2
    assert "antichess has no castling" in capsys.readouterr().err
    suite = tmp_path / "antichess.epd"
    suite.write_text("\n".join(board.fen() for board in positions(16, 6)) + "\n" + castling + "\n")
    assert main(["verify", "movegen", str(suite), "--variant", "antichess", "--victims", "least-valuable"]) == 0
    out = capsys.readouterr().out
    assert "6 positions, 0 mismatches" in out and "1 lines not checked" in out
    assert main(["verify", "search", str(suite), "--variant", "antichess", "--depth", "2", "--jobs", "0",
                 "--tables", "material"]) == 0
    assert "6 positions, 0 mismatches" in capsys.readouterr().out


def test_a_promotion_to_a_king_gains_minus_a_pawn_for_delta_pruning(antichess_pair):
    # White stands pat beyond the bound (a depth-0 root: forced, yet not pressed) and delta
    # pruning weighs each capture-promotion on e8 and c8: to a king it gains the victim less the
    # pawn (a king counts 0), so with alpha 150 above the static value dxe8=K (taking the king,
    # worth 0: gains -1) is skipped, dxc8=K (taking a bishop: gains 2) is not, nor is any other
    # promotion — in the hardware as in the reference.
    board = new_board("antichess", "rnb1kbn1/p1pP2p1/1p6/8/5P2/PP6/2PP2P1/RNB1qBN1 w - - 0 11")
    features = SearchFeatures.parse("pvs,delta,bounded")
    static = antichess_pair.reference.search(board, 0, features=features).score
    hw, ref, diffs = antichess_pair.compare(board, 0, alpha=static + 150, beta=static + 400, features=features)
    assert not diffs
    assert ref.nodes == 1 + 4 + 5      # the root, dxe8 to Q, N, R, B (not K), dxc8 to all five


def test_the_antichess_openings_are_distinct_and_leave_no_capture():
    from benchmarks.match import read_openings
    openings = read_openings(variant="antichess")
    assert len(openings) == 50 and len({board.fen() for _, board in openings}) == 50
    for name, board in openings:
        assert board.uci_variant == "antichess" and len(board.move_stack) == 2, name
        assert not any(board.is_capture(move) for move in board.legal_moves), name


# --- the Oracle's antichess knowledge --------------------------------------------------------------

def _store(patterns, params=FULL):
    image = EvaluatorImage(params)
    for pattern in patterns:
        pattern.install(image)
    return image.store()


#: Endings where the race to the last piece takes its values (White's pieces, Black's): (1, 1),
#: (2, 1), (1, 4), (3, 4), (4, 3).
RACE = ["8/8/8/8/8/8/8/K6k w - - 0 1", "8/8/8/8/8/8/1N6/K6k w - - 0 1", "8/5ppp/8/8/8/8/8/K6k w - - 0 1",
        "8/5ppp/8/8/8/8/PN6/K6k b - - 0 1", "8/6pp/8/8/8/8/PPN5/K6k w - - 0 1"]


@pytest.mark.parametrize("name", sorted(ANTICHESS_LIBRARY))
def test_each_pattern_equals_its_definition_in_the_model(name):
    """Made at random antichess roots, each pattern's tables give the evaluator model the
    pattern's definition on positions and walks far from its root."""
    rng = random.Random(name)
    boards = positions(31, 60) + [new_board("antichess", fen) for fen in RACE]
    for root in rng.sample(boards, 4) + [new_board("antichess")]:
        pattern = ANTICHESS_LIBRARY[name](root)
        problems, values = definition_mismatches(pattern, _store([pattern]), boards, rng, walks=20)
        assert not problems, f"{name} at {root.fen()}: " + "\n".join(problems[:10])
        assert len(values) >= (2 if name == "antichess-to-move" else 4), (name, sorted(values))


def test_the_library_equals_its_definition_in_hardware(full_evaluator):
    root = positions(32, 1, plies=range(20, 21))[0]
    patterns = library_patterns(root)
    store = _store(patterns)
    boards = positions(33, 200) + [new_board("antichess", fen) for fen in RACE]

    class Sum:
        def definition(self, board):
            return sum(pattern.definition(board) for pattern in patterns)
    problems = hardware_mismatches(full_evaluator, Sum(), store, boards)
    assert not problems, "\n".join(problems[:10])


def test_the_values_are_linear_in_the_parameters():
    """What the fit relies on: the library's value is the columns weighed by the values."""
    values = {name: random.Random(name).randrange(-60, 60) for name in PARAMETERS}
    for board in positions(34, 30) + [new_board("antichess", fen) for fen in RACE]:
        made = [cls(board, values) for cls in ANTICHESS_LIBRARY.values()]
        assert sum(p.definition(board) for p in made) == sum(
            c * values[name] for c, name in zip(parameter_columns(board), PARAMETERS))


def test_the_race_to_the_last_piece():
    race = PiecesLeft(values={"left-1": 300, "left-2": 100, "left-3": -40})
    assert race.shift == 2 and race.left == [0, 300, 100, -40]
    assert [race.definition(new_board("antichess", fen)) for fen in RACE] == [0, 100 - 300, 300, -40, 40]
    rounded = PiecesLeft(values={"left-1": 600, "left-2": 1, "left-3": -3})
    assert rounded.shift == 3 and rounded.left == [0, 600, 0, 0]
    assert PiecesLeft.relevance(new_board("antichess")) == 0
    assert PiecesLeft.relevance(new_board("antichess", RACE[3])) == 1.0
    assert set(HAND_VALUES) == set(PARAMETERS) and LEFT == 3


@pytest.mark.parametrize("params", [FULL, HITECH, SMALL], ids=["full", "hitech", "small"])
def test_the_oracle_chooses_antichess_patterns_per_root(params):
    """Root knowledge: the race only near the end, the side to move's unit kept in place, the
    tables equal the chosen patterns' definitions far from the root; the other knowledge kinds:
    the first-order table alone."""
    oracle = Oracle(params)
    start = oracle.allocate(new_board("antichess"))
    assert [name for name, _ in start.chosen] == ["antichess-material", "antichess-mobility", "antichess-exposure",
                                                  "antichess-to-move"]
    assert [name for name in start.recognizers if name] == ["antichess-to-move"]
    ending = new_board("antichess", "8/5ppp/8/8/8/8/PPN5/K6k w - - 0 1")
    late = oracle.allocate(ending)
    assert "pieces-left" in [name for name, _ in late.chosen] and "pieces-left" in late.recognizers
    assert late.recognizers.index("antichess-to-move") == start.recognizers.index("antichess-to-move")   # kept
    assert late.explain()[0].startswith("root knowledge, antichess: antichess-material (1.00)")
    boards = positions(35, 40) + [new_board("antichess", fen) for fen in RACE]
    for allocation in (start, late):
        for board in boards:
            assert static_value(allocation.store, board) == allocation.definition(board), board.fen()
    without = Oracle(params, without=("tempo", "root")).allocate(ending)        # a family match
    assert [name for name, _ in without.chosen] == ["antichess-material", "antichess-mobility", "pieces-left"]
    assert without.explain()[0].startswith("root knowledge without tempo, root, antichess: ")
    material = Oracle(params, "material").allocate(ending)
    assert [name for name, _ in material.chosen] == ["antichess-material"]
    assert static_value(material.store, ending) == AntichessMaterial().definition(ending)


def _values_script():
    spec = importlib.util.spec_from_file_location("make_antichess_values", DATA / "make_antichess_values.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fit_recovers_known_values():
    """Scores made from known values (and noise): the fit finds them; a parameter no position
    shows keeps its hand value."""
    pytest.importorskip("numpy")
    script, rng = _values_script(), random.Random(36)
    true = {name: rng.randrange(-80, 80) for name in PARAMETERS}
    data = []
    for board in positions(36, 800, plies=range(2, 90)):
        if min(chess.popcount(board.occupied_co[c]) for c in chess.COLORS) <= LEFT:
            continue                                    # the race: a parameter no position shows
        columns = parameter_columns(board)
        score = sum(c * true[name] for c, name in zip(columns, PARAMETERS))
        data.append((board, score + rng.uniform(-5, 5), [board]))
    fitted, report = script.fit(data, ridge=0.01)
    columns = [parameter_columns(board) for board, _, _ in data]
    shown = {name: sum(row[k] != 0 for row in columns) for k, name in enumerate(PARAMETERS)}
    assert all(shown[name] >= 50 for name in ("pawn-2", "queen", "knight-mobility", "exposed-piece", "guarded",
                                              "to-move"))
    assert [name for name, count in shown.items() if count == 0] == ["left-1", "left-2", "left-3"]
    for name, count in shown.items():
        if count >= 50:
            assert abs(fitted[name] - true[name]) <= 3, (name, fitted[name], true[name])
        elif count == 0:
            assert fitted[name] == HAND_VALUES[name], name
    assert report[-1].startswith("fitted: ") and report[-1].endswith(("error 2 (rms, centipawns)",
                                                                      "error 3 (rms, centipawns)"))


def test_the_values_are_the_fit_of_the_positions_file():
    """``host/antichess_values.py`` is what ``--fit-only`` makes of ``data/antichess-scores.jsonl.gz``."""
    pytest.importorskip("numpy")
    from host.antichess_values import VALUES
    script = _values_script()
    fitted, _ = script.fit(script.read_positions(DATA / "antichess-scores.jsonl.gz"), ridge=1.0)
    assert fitted == VALUES
