"""The patterns' fitted weights (host/pattern_weights.py) and their fits
(data/make_pattern_weights.py): each fit (by Stockfish's quiet moves, by the games' results)
recovers known weights from what they predict, drops a pattern that points the wrong way and
leaves unweighed what it cannot tell; the results' positions are the quiet ones of distinct
standard-chess games."""

import importlib.util
import random

import chess
import pytest

from host.analysis import analyse, game_phase_fraction
from host.library import LIBRARY
from host.patterns import MaterialPieceSquare
from sim.testing import DATA, random_games

spec = importlib.util.spec_from_file_location("make_pattern_weights", DATA / "make_pattern_weights.py")
make_pattern_weights = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_pattern_weights)

#: The weights the synthetic scores are made with: one confirmed in full, one in part, one
#: that points the wrong way (the fit must drop it, not reverse it), one no quiet move changes.
TRUE = {"rooks-on-open-files": 1.0, "mobility": 0.5, "centre-pawns": -1.0, "bishop-pair": 1.0}


def _positions(count, seed):
    """Positions from seeded random games (not over, not in check), each quiet move scored by
    the fitted tables' gain plus ``TRUE``'s weights times the patterns' gains, and noise."""
    rng, out = random.Random(seed), []
    for game in random_games(seed, 3 * count, range(16, 70)):
        if game.is_game_over() or game.is_check() or len(out) == count:
            continue
        board = chess.Board(game.epd() + " 0 1")
        analysis = analyse(board)
        patterns = [(weight, LIBRARY[name].make(analysis, board)) for name, weight in TRUE.items()
                    if LIBRARY[name].relevance(analysis) > 0]
        table, sign = MaterialPieceSquare(game_phase_fraction(board)), 1 if board.turn == chess.WHITE else -1
        scores = {}
        for move in board.legal_moves:
            if not (board.is_capture(move) or move.promotion or board.gives_check(move)):
                after = board.copy(stack=False)
                after.push(move)
                value = table.definition(after) + sum(w * p.definition(after) for w, p in patterns)
                scores[move] = round(sign * value) + rng.randint(-3, 3)
        if len(scores) >= 2:
            out.append((board, scores))
    return out


def test_the_fit_recovers_the_weights_from_the_moves_they_prefer():
    pytest.importorskip("numpy")
    library = {name: LIBRARY[name] for name in TRUE}
    weights, unweighed, agreement = make_pattern_weights.fit(_positions(500, 7), ridge=1.0, min_positions=20,
                                                             library=library)
    assert unweighed == ["bishop-pair"]                 # a quiet move never changes the material
    assert weights["rooks-on-open-files"] == pytest.approx(1.0, abs=0.1)
    assert weights["mobility"] == pytest.approx(0.5, abs=0.1)
    assert weights["centre-pawns"] == 0.0               # dropped, not reversed
    assert agreement["weighed"] > agreement["tables"]


@pytest.mark.slow
def test_the_shipped_weights_are_what_the_script_makes_of_the_shipped_moves():
    """host/pattern_weights.py is generated: a pattern changed since (a new one, a new relevance)
    leaves it stale, which only remaking it shows (two minutes)."""
    from host.pattern_weights import WEIGHTS
    positions = make_pattern_weights.read_positions(str(DATA / "quiet-moves.jsonl.gz"))
    weights, _, _ = make_pattern_weights.fit(positions, 10000.0, 300)
    assert {name: f"{weight:.2f}" for name, weight in weights.items()} == \
        {name: f"{weight:.2f}" for name, weight in WEIGHTS.items()}


def _result_positions(count, seed):
    """Positions of seeded random games, each with White's expected result under the fitted
    tables plus ``TRUE``'s weights times the patterns (a logistic at the fit's own scale) as
    its result, and its game's number as its opening's."""
    import math

    out = []
    for number, game in enumerate(random_games(seed, 3 * count, range(16, 70))):
        if game.is_game_over() or game.is_check() or len(out) == count:
            continue
        board = chess.Board(game.epd() + " 0 1")
        analysis = analyse(board)
        value = MaterialPieceSquare(game_phase_fraction(board)).definition(board) + sum(
            weight * LIBRARY[name].make(analysis, board).definition(board)
            for name, weight in TRUE.items() if LIBRARY[name].relevance(analysis) > 0)
        out.append((board, 1 / (1 + math.exp(-math.log(10) / 400 * value)), 1, number))
    return out


def test_the_results_fit_recovers_the_weights_from_the_results_they_predict():
    pytest.importorskip("numpy")
    library = {name: LIBRARY[name] for name in TRUE}
    positions = _result_positions(400, 11)
    weights, unweighed, errors = make_pattern_weights.fit_results(positions, ridge=0.0, min_positions=20,
                                                                  library=library)
    assert unweighed == []                              # the results weigh material patterns too
    assert weights["rooks-on-open-files"] == pytest.approx(1.0, abs=0.1)
    assert weights["mobility"] == pytest.approx(0.5, abs=0.1)
    assert weights["bishop-pair"] == pytest.approx(1.0, abs=0.1)
    assert weights["centre-pawns"] == 0.0               # dropped, not reversed
    assert errors["weighed"] < errors["hand"] and errors["weighed"] < errors["tables"]


def test_the_results_fit_leaves_a_rare_pattern_at_its_hand_value():
    pytest.importorskip("numpy")
    library = {name: LIBRARY[name] for name in ("mobility", "wrong-bishop")}
    weights, unweighed, _ = make_pattern_weights.fit_results(_result_positions(60, 3), ridge=0.0,
                                                             min_positions=20, library=library)
    assert unweighed == ["wrong-bishop"] and list(weights) == ["mobility"]


def test_collect_keeps_quiet_positions_of_standard_games_and_merges_repeats(tmp_path):
    import io

    import chess.pgn

    def game(moves, result, variant=None):
        board, node = chess.Board(), chess.pgn.Game()
        node.headers["Result"] = result
        if variant:
            node.headers["Variant"] = variant
        for san in moves.split():
            node = node.add_variation(board.push_san(san))
        return str(node.game())

    opening = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3"  # 17 plies, no capture
    text = "\n\n".join([
        game(opening + " Na5 Bc2 c5 d4 cxd4 cxd4", "1-0"),
        game(opening + " Na5 Bc2 c5 d4 Qc7", "0-1"),          # shares the first positions
        game(opening + " Na5 Bc2 c5 d4 Qc7", "0-1"),          # the same game again: counted once
        game(opening + " Na5", "1-0", variant="Atomic"),
        game(opening + " Na5", "*"),
    ])
    path = tmp_path / "games.pgn"
    path.write_text(text)
    kept, games = make_pattern_weights.collect_results([str(path)])
    assert games == 2                                   # the repeat, the variant and the unfinished left out
    entries = {epd: (result, count, number) for epd, result, count, number in kept}
    board = chess.pgn.read_game(io.StringIO(text)).board()
    plies = []
    for san in (opening + " Na5 Bc2 c5 d4 cxd4 cxd4").split():
        plies.append(board.epd())
        board.push_san(san)
    # plies 16 (before h3), 17 (before Na5), 18, 19, 20 (before d4) are kept, shared by both games
    for ply in (16, 17, 18, 19, 20):
        assert entries[plies[ply]] == (0.5, 2, 0)   # both games' opening, the first seen
    assert plies[15] not in entries                     # before RESULT_FIRST_PLY
    assert entries[plies[21]] == (0.0, 1, 0)            # the second game's (Qc7); the first's move is cxd4
    assert plies[22] not in entries                     # just after a capture, and its move one
    assert len(entries) == 6                            # nothing of the variant's game or the unfinished one
