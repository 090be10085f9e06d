"""The benchmark scripts' own logic (no peer engine is started): the openings file, the Elo
arithmetic of the match, what counts as solving a test position, the won endings' positions,
and the depth benchmark on the Verilated machine, small."""

import json

import chess
import chess.engine
import pytest

from benchmarks.conversion import main as conversion_main
from benchmarks.conversion import play_out, sample
from benchmarks.match import elo_difference, game_result, read_openings
from benchmarks.peers import open_chosen
from benchmarks.provenance import code_line, code_version
from benchmarks.tactics import solved
from host.epd import parse_position
from sim.testing import DATA


def test_every_opening_is_legal_named_once_and_short():
    """Enough for a 200-game match without playing a pairing twice (each opening once per side)."""
    openings = read_openings()
    assert len(openings) == 100 >= 200 // 2
    assert len({name for name, _ in openings}) == len(openings)
    assert len({board.fen() for _, board in openings}) == len(openings)
    assert all(4 <= len(board.move_stack) <= 10 and not board.is_game_over() for _, board in openings)


def test_a_bad_opening_line_is_refused_with_its_place(tmp_path):
    bad = tmp_path / "openings.txt"
    bad.write_text("# comment\nGood: e4 e5\nBad: e4 e5 Ke3\n")
    with pytest.raises(ValueError, match="openings.txt:3: Bad"):
        read_openings(bad)


def test_elo_difference():
    assert elo_difference([0.5] * 10)[0] == pytest.approx(0)
    elo, low, high = elo_difference([1, 1, 1, 0.5, 0] * 8)
    assert elo == pytest.approx(-400 * __import__("math").log10(1 / 0.7 - 1))
    assert low < elo < high and high - low < 400
    assert elo_difference([1, 0] * 50)[1] < 0 < elo_difference([1, 0] * 50)[2]


def test_a_game_ends_by_the_rules_not_by_a_claim_the_winner_could_make():
    board = chess.Board("6k1/8/8/8/8/8/5Q2/6K1 w - - 0 1")
    assert game_result(board) is None
    for san in ("Kh1", "Kh8", "Kg1", "Kg8", "Kh1", "Kh8", "Kg1"):
        board.push_san(san)
    assert board.can_claim_threefold_repetition()   # Black could announce Kg8, the start a third time:
    assert game_result(board) is None                # a side to move that is losing would, but no claim is
    board.push_san("Kg8")                            # played for it; once it stands there, it is a draw
    assert board.is_repetition(3) and game_result(board) == "1/2-1/2"
    board = chess.Board("6k1/8/8/8/8/8/5Q2/6K1 w - - 99 80")
    assert board.can_claim_fifty_moves() and game_result(board) is None
    board.push_san("Kh1")
    assert game_result(board) == "1/2-1/2"
    assert game_result(chess.Board("6k1/5Q2/6K1/8/8/8/8/8 b - - 0 1")) is None
    assert game_result(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == "1/2-1/2"     # stalemate
    assert game_result(chess.Board("6k1/6Q1/6K1/8/8/8/8/8 b - - 0 1")) == "1-0"


def test_a_match_in_parts_is_scored_from_its_games(tmp_path, capsys):
    from benchmarks.match import main, pgn_scores
    part = tmp_path / "part.pgn"
    part.write_text('[White "SUPREM"]\n[Black "sunfish"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
                    '[White "sunfish"]\n[Black "SUPREM"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
                    '[White "sunfish"]\n[Black "SUPREM"]\n[Result "1/2-1/2"]\n\n1. d4 1/2-1/2\n\n')
    assert pgn_scores([part, part]) == [1.0, 0.0, 0.5] * 2
    assert main(["--score", str(part)]) == 0
    assert capsys.readouterr().out.startswith("SUPREM: 1.5/3 (50.0 %), Elo difference +0")
    with pytest.raises(SystemExit):
        main(["--movetime", "0"])
    assert "--movetime must be a positive number" in capsys.readouterr().err
    with pytest.raises(SystemExit):                 # a part that would play no game
        main(["--first", "51", "--games", "50"])
    assert "--first 51 plays no game of a match of --games 50" in capsys.readouterr().err


def _game(opening, white, moves, result, number="?"):
    players = '[White "SUPREM"]\n[Black "sunfish"]' if white else '[White "sunfish"]\n[Black "SUPREM"]'
    return f'[Round "{number}"]\n[Opening "{opening}"]\n{players}\n[Result "{result}"]\n\n{moves} {result}\n\n'


def test_two_runs_of_the_same_games_are_paired(tmp_path, capsys):
    """``--score A --against B``: the games of two runs paired, in order or by their numbers;
    pairs played the same count apart, the score difference is over the pairs that differ; runs
    of other games are refused."""
    from benchmarks.match import main, paired_difference, pgn_games
    run, other, shuffled = tmp_path / "run.pgn", tmp_path / "other.pgn", tmp_path / "shuffled.pgn"
    run.write_text(_game("Ruy", True, "1. e4 e5", "1-0") + _game("Ruy", False, "1. e4 e5", "1-0")
                   + _game("Slav", True, "1. d4 d5 2. c4", "1-0") + _game("Slav", False, "1. d4 d5", "0-1"))
    other.write_text(_game("Ruy", True, "1. e4 e5", "1-0") + _game("Ruy", False, "1. e4 c5", "1-0")
                     + _game("Slav", True, "1. d4 d5 2. Nf3", "0-1") + _game("Slav", False, "1. d4 d5", "0-1"))
    assert pgn_games([run])[2] == ("Slav", True, ["d2d4", "d7d5", "c2c4"], 1.0, None, "?", None)
    same, differ, score, against, low, high, unpaired = paired_difference(pgn_games([run]), pgn_games([other]))
    assert (same, differ, score, against, unpaired) == (2, 2, 1.0, 0.0, 0)
    assert low < 1.0 < high
    assert main(["--score", str(run), "--against", str(other)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["against 2.0/4: 2 games played the same, 2 differ: 1.0/2 against 0.0/2, a "
                                    f"difference of +1.0 (95 %: {low:+.1f} to {high:+.1f})",
                                    "against: played by unrecorded (4 games)"]
    assert "not all played by one recorded code" in err
    shuffled.write_text(_game("Ruy", False, "1. e4 e5", "1-0") + _game("Ruy", True, "1. e4 e5", "1-0")
                        + _game("Slav", True, "1. d4", "1-0") + _game("Slav", False, "1. d4", "0-1"))
    with pytest.raises(ValueError, match="game 1 of the runs is not the same game"):
        paired_difference(pgn_games([run]), pgn_games([shuffled]))
    with pytest.raises(ValueError, match="the runs hold 4 and 8 games"):
        paired_difference(pgn_games([run]), pgn_games([run, run]))
    capsys.readouterr()
    assert main(["--score", str(run), "--against", str(shuffled)]) == 2
    assert "--against: game 1 of the runs is not the same game: Ruy with the machine White" in capsys.readouterr().err
    # Runs numbered by game are paired by number: games 2-4 of a run still going against 1-3 of another.
    going, done = tmp_path / "going.pgn", tmp_path / "done.pgn"
    going.write_text(_game("Ruy", False, "1. e4 c5", "0-1", 2) + _game("Slav", True, "1. d4 d5", "1-0", 3)
                     + _game("Slav", False, "1. d4 d5", "1-0", 4))
    done.write_text(_game("Ruy", True, "1. e4 e5", "1-0", 1) + _game("Ruy", False, "1. e4 e5", "1-0", 2)
                    + _game("Slav", True, "1. d4 d5", "1-0", 3))
    pairing = paired_difference(pgn_games([going]), pgn_games([done]))
    assert (pairing.same, pairing.differ, pairing.score, pairing.other, pairing.unpaired) == (1, 1, 1.0, 0.0, 2)
    assert main(["--score", str(going), "--against", str(done)]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith(
        "1 games played the same, 1 differ: 1.0/1 against 0.0/1, a difference of +1.0 (95 %: +1.0 to +1.0); "
        "2 games of one run only left out")
    with pytest.raises(ValueError, match="no game of the same number"):
        paired_difference(pgn_games([going])[2:], pgn_games([done])[:1])
    numbered = [game._replace(number=number) for number, game in enumerate(pgn_games([shuffled]), 1)]
    with pytest.raises(ValueError, match="game 2 of the runs is not the same game"):
        paired_difference(pgn_games([going]), numbered)
    with pytest.raises(SystemExit):
        main(["--against", str(run)])
    assert "--against goes with --score" in capsys.readouterr().err


def test_a_match_counts_the_nodes_each_engine_says_it_searched(tmp_path, capsys):
    """The machine against itself, a few plies at small budgets (the opponent's its own): the match
    adds up each side's ``info nodes``, and the machine spends its budget exactly (its last,
    unfinished iteration reported too). Its game, the match's second, is written numbered; the
    opponent's knowledge reweighed is in its name."""
    import re

    from benchmarks.match import main, pgn_games, read_openings
    pgn = tmp_path / "games.pgn"
    assert main(["--opponent", "suprem", "--nodes", "400", "--opponent-nodes", "300", "--first", "2", "--games", "2",
                 "--max-plies", "4", "--pgn", str(pgn), "--opponent-knowledge", "root",
                 "--opponent-weights", "king-safety=0.5"]) == 0
    assert "knowledge root, king-safety x0.5)" in pgn.read_text()
    [game], (name, start) = pgn_games([pgn]), read_openings()[0]
    opening = [move.uci() for move in start.move_stack]
    assert (game.opening, game.machine_white, game.number) == (name, False, 2)
    assert game.moves[:len(opening)] == opening and len(game.moves) == len(opening) + 4
    line = capsys.readouterr().out.strip().splitlines()[-1]
    found = re.fullmatch(r"nodes searched a move \(the engines' own counts\): SUPREM ([\d,]+) over (\d+) moves, "
                         r"SUPREM \(.*\) ([\d,]+) over (\d+) moves", line)
    assert found, line
    mine, my_moves, theirs, their_moves = (int(g.replace(",", "")) for g in found.groups())
    assert (my_moves, their_moves) == (2, 2)
    assert (mine, theirs) == (400, 300)
    with pytest.raises(SystemExit):
        main(["--opponent-nodes", "0"])
    assert "--opponent-nodes must be a positive number" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--weights", "king-safety=0.5"])
    assert "need that side's knowledge to be root" in capsys.readouterr().err


def test_a_stopped_match_resumes_from_its_pgn_file(tmp_path, capsys):
    """``--resume`` keeps the games the file holds (counted in the score, not played again), plays
    the match's games it lacks and appends them; a file of another match, or of games another
    code played, is refused untouched."""
    from benchmarks.match import main, pgn_games
    pgn = tmp_path / "games.pgn"
    match = ["--opponent", "suprem", "--nodes", "300", "--max-plies", "2", "--pgn", str(pgn)]
    assert main([*match, "--games", "1"]) == 0
    first = pgn.read_text()
    capsys.readouterr()
    assert main([*match, "--games", "2", "--resume"]) == 0
    out = capsys.readouterr().out
    assert f"game 1: {pgn_games([pgn])[0].opening}, SUPREM White: kept from {pgn}" in out
    games = pgn_games([pgn])
    assert pgn.read_text().startswith(first) and [game.number for game in games] == [1, 2]
    assert f"{sum(game.score for game in games)}/2" in out.splitlines()[-2]
    with pytest.raises(SystemExit):
        main([*match[:3], "400", *match[4:], "--games", "3", "--resume"])
    assert "holds a game of another match" in capsys.readouterr().err
    assert pgn_games([pgn]) == games
    # Each game names the code that played it; a file another code played is not resumed.
    assert {game.code for game in games} == {code_version()}
    assert main(["--score", str(pgn)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(f"; played by {code_version()} (2 games)")
    pgn.write_text(pgn.read_text().replace(f'[SupremCode "{code_version()}"]', '[SupremCode "0000000"]', 1))
    played = pgn.read_text()
    with pytest.raises(SystemExit):
        main([*match, "--games", "3", "--resume"])
    assert f"game 1 was played by the code 0000000, this is {code_version()}" in capsys.readouterr().err
    assert pgn.read_text() == played
    with pytest.raises(SystemExit):
        main(["--resume"])
    assert "--resume goes with --pgn" in capsys.readouterr().err


def test_oracle_benchmark_times_each_knowledge_over_a_games_roots(capsys):
    from benchmarks import oracle
    roots = oracle.game_roots(oracle.GAME)
    assert len(roots) > 20 and all(root.move_stack for root in roots[1:])
    assert oracle.main(["--positions", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["root", "material", "phase"]
    assert all(" 3 roots: choose and compile " in line for line in lines), lines


def test_solved_by_bm_and_am():
    board, ops = parse_position("6k1/4pp2/Kb4p1/2p3Pp/7P/8/8/8 b - - bm c4; id \"DEV.001\";")
    assert solved(board, ops, board.parse_san("c4"))
    assert not solved(board, ops, board.parse_san("Bc7"))
    board, ops = parse_position("6k1/4pp2/Kb4p1/2p3Pp/7P/8/8/8 b - - am Bc7;")
    assert not solved(board, ops, board.parse_san("Bc7")) and solved(board, ops, board.parse_san("c4"))
    assert isinstance(board, chess.Board)


def test_the_tactics_benchmark_counts_each_suite_and_their_sum(tmp_path, capsys, monkeypatch):
    """Two one-position suites, the machine alone at 300 nodes: a mate in one it finds (its
    ``bm``) and the same position with that move as an ``am`` (so not solved): each suite's
    count, then the sum; and the code line, read before the engine starts (a checkout that moves
    on during the run does not change it)."""
    from benchmarks import tactics
    order = []
    monkeypatch.setattr(tactics, "code_line", lambda: order.append("code") or code_line())
    monkeypatch.setattr(tactics, "open_chosen", lambda *args: order.append("engine") or open_chosen(*args))
    mate = "6k1/5ppp/8/8/8/8/8/R5K1 w - -"
    found, avoided = tmp_path / "found.epd", tmp_path / "avoided.epd"
    found.write_text(f'{mate} bm Ra8#; id "F.1";\n')
    avoided.write_text(f'{mate} am Ra8#; id "A.1";\n')
    assert tactics.main(["--file", str(found), "--file", str(avoided), "--nodes", "300", "--engines", "suprem"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["suprem        300 nodes  F.1: Ra8# solved", "suprem        300 nodes  A.1: Ra8# not solved"]
    assert lines[2:] == [f"1 positions of {found}", "    300 nodes per position: suprem 1",
                         f"1 positions of {avoided}", "    300 nodes per position: suprem 0",
                         "2 positions in all", "    300 nodes per position: suprem 1", code_line()]
    assert order == ["code", "engine"]


@pytest.mark.parametrize("text, reason", [
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra9;", "line 1: an answer that is no legal move"),
    ("\n6k1/5ppp/8/8/8/8/8/R5K1 w - - am Rb8;", "line 2: an answer that is no legal move"),
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"X\";", "line 1: no bm or am operation"),
    ("6k1/5ppp/8/8/8/8/8/R5K1 x - - bm Ra8;", "line 1: not a valid FEN"),
    ("# nothing\n", "no positions"),
])
def test_a_bad_suite_is_refused_with_its_place(tmp_path, capsys, text, reason):
    from benchmarks import tactics
    suite = tmp_path / "bad.epd"
    suite.write_text(text)
    with pytest.raises(ValueError, match=reason):
        tactics.read_suite(suite)
    with pytest.raises(SystemExit):
        tactics.main(["--file", str(suite), "--engines", "suprem"])
    assert f"{suite}: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tactics.main(["--file", str(tmp_path / "missing.epd"), "--engines", "suprem"])
    assert "missing.epd: No such file or directory" in capsys.readouterr().err


def test_depth_benchmark_counts_and_checks(capsys):
    """``benchmarks.depth`` on two positions to depth 3, checked against the reference: the
    line per feature set carries real counts, and the plain search counts more nodes."""
    from benchmarks import depth
    assert depth.main(["--positions", "2", "--depth", "3", "--features", "none", "--features", "all", "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    counts = [int(line.split(": ")[2].split(" nodes")[0].replace(",", "")) for line in lines if "nodes" in line]
    assert len(counts) == 2 and counts[0] > counts[1] > 0, lines
    assert lines[-1] == "0 mismatches"
    assert depth.main(["--positions", "2", "--depth", "3", "--features", "all", "--root", "host", "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "root host" in lines[0] and lines[-1] == "0 mismatches", lines


def test_the_microprofile_charges_every_cycle_of_a_search_with_its_features(capsys):
    """The profile's machine runs the features the reference runs (it once started the hardware
    with none and reported a mismatch), and its rows add up to the job's cycles."""
    from benchmarks import microprofile
    assert microprofile.main(["--depth", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = out[0].split(": ")[-1].split(", ")
    nodes, cycles = int(header[0].split()[0]), int(header[1].split()[0])
    rows = [line for line in out if line.startswith("| ") and line[2].isdigit()]
    assert nodes > 0 and sum(int(row.split("|")[1]) for row in rows) == cycles, out
    # each row was entered at least once, and no entry took less than a cycle
    assert all(1 <= int(row.split("|")[4]) <= int(row.split("|")[1]) for row in rows), out
    assert "features pvs,lmr," in out[0] and "lmp" in out[0]


def test_the_search_benchmark_in_antichess(capsys):
    """Antichess positions searched as the host searches them: the features given (every one by
    default) and the antichess table, equal to the reference."""
    from benchmarks import search
    assert search.main(["--positions", "3", "--depth", "2", "--variant", "antichess"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("3 antichess positions, depth 2, antichess tables, features pvs,lmr,futility,null,"), out
    assert out[0].endswith(": 0 mismatches"), out


def test_the_search_benchmark_runs_the_features_it_is_given(capsys):
    """Plain alpha-beta and all features on the same two positions: both equal the reference
    (no mismatch), and the features search fewer nodes."""
    from benchmarks import search
    counts = {}
    for features in ("none", "all"):
        assert search.main(["--positions", "3", "--depth", "2", "--features", features]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0].endswith("features " + ("none" if features == "none" else "pvs,lmr,futility,null,delta,"
                                              "killers,losing,mate_distance,bounded,verification,singular,"
                                              "reverse,lmp,later,qchecks") + ", victims as the host: 0 mismatches"), out
        counts[features] = int(out[1].split()[1].rstrip(",").replace(",", ""))
    assert 0 < counts["all"] < counts["none"], counts


def test_move_choice_losses_and_the_shipped_positions(capsys, tmp_path):
    """``benchmarks.choice``: a move's loss against the best score, capped; every shipped
    position scores its legal moves only, the best within reach; the machine's run prints its
    mean loss and the moves within reach of the best."""
    from benchmarks import choice
    scores = {chess.Move.from_uci("e2e4"): 40, chess.Move.from_uci("a2a3"): -20, chess.Move.from_uci("g2g4"): -500}
    assert choice.move_loss(scores, chess.Move.from_uci("e2e4")) == 0
    assert choice.move_loss(scores, chess.Move.from_uci("a2a3")) == 60
    assert choice.move_loss(scores, chess.Move.from_uci("g2g4")) == choice.LOSS_CAP
    assert choice.move_loss(scores, chess.Move.from_uci("h2h3")) == choice.LOSS_CAP     # no score: the worst
    from data.make_choice_positions import is_ending, is_lone_minor
    for name, count, kind in (("choice-positions.jsonl", 240, None), ("error-positions.jsonl", 240, None),
                              ("ending-positions.jsonl", 150, is_ending),
                              ("ending-positions-2.jsonl", 150, is_ending),
                              ("lone-minor-positions.jsonl", 100, is_lone_minor)):
        positions = choice.read_choices(DATA / name)
        assert len(positions) == count
        for board, moves in positions:
            assert moves and set(moves) <= set(board.legal_moves) and abs(max(moves.values())) <= 300
            assert kind is None or kind(board), (name, board.fen())
    errors = [json.loads(line) for line in (DATA / "error-positions.jsonl").read_text().splitlines()[1:]]
    losses = [max(error["scores"].values()) - error["scores"].get(error["played"], -10000) for error in errors]
    assert all(chess.Move.from_uci(error["played"]) in chess.Board(error["fen"]).legal_moves for error in errors)
    assert sorted(losses)[len(losses) // 2] >= 100      # the machine's moves there lose (by a deeper search)
    moves = tmp_path / "moves.jsonl"
    assert choice.main(["--engines", "suprem", "--count", "2", "--nodes", "500", "--moves", str(moves)]) == 0
    line, code = capsys.readouterr().out.strip().splitlines()
    assert code == code_line()
    played = choice.read_moves(moves)
    assert len(played) == 2 and all(0 <= loss <= choice.LOSS_CAP for _, loss in played.values())
    (engine, fen), (move, loss) = next(iter(played.items()))
    other = {(engine, fen): ("a1a1", loss + 20), ("suprem", "elsewhere"): ("e2e4", 0)}
    assert choice.compare_moves(played, other) == {"suprem": (1, 1, 0, loss + 20, loss, 1, -20.0, 0.0)}
    assert choice.compare_moves(played, played)["suprem"][:3] == (0, 0, 0)
    second = next(key for key in played if key != (engine, fen))
    other = {(engine, fen): ("a1a1", loss + 20), second: played[second]}
    compared = choice.compare_moves(played, other)["suprem"]       # -20 and 0: mean -10, sd 14.1
    assert (compared.both, compared.mean) == (2, -10.0) and abs(compared.interval - 1.96 * 10) < 1e-9
    moves.write_text("not json\n")
    with pytest.raises(SystemExit):
        choice.main(["--engines", "suprem", "--count", "1", "--against", str(moves)])
    assert "moves.jsonl:1: not a line of a --moves file" in capsys.readouterr().err
    loss = float(line.split("mean loss")[1].split("cp")[0])
    assert line.startswith("suprem") and 0 <= loss <= choice.LOSS_CAP and line.endswith("of 2 within 30 cp"), line
    endings = [str(DATA / "ending-positions.jsonl"), str(DATA / "ending-positions-2.jsonl")]
    assert choice.main(["--engines", "suprem", "--count", "1", "--nodes", "300",
                        "--file", endings[0], "--file", endings[1]]) == 0
    lines = capsys.readouterr().out.strip().splitlines()     # all the files, then each
    assert [line.endswith(f"of {n} within 30 cp") for line, n in zip(lines, (2, 1, 1))] == [True] * 3, lines
    assert endings[0] in lines[1] and endings[1] in lines[2], lines
    for bad, why in ((["--knowledge", "root", "--without", "kings"], "no pattern family or pattern kings"),
                     (["--without", "king"], "--without needs --knowledge root"),
                     (["--knowledge", "root", "--weights", "kings=1"], "no pattern 'kings'"),
                     (["--weights", "king-safety=0.5"], "--weights needs --knowledge root")):
        with pytest.raises(SystemExit):
            choice.main(["--engines", "suprem", *bad])
        assert why in capsys.readouterr().err


def test_the_endings_benchmark_judges_moves_by_the_database():
    """``benchmarks.endings`` on a small CHUNKER domain (a and b pawns against g and h): each
    sampled position has a move that keeps its value and one that does not, and the database's
    own winning line starts with one that keeps it."""
    from benchmarks.endings import keeps_value, sample_positions
    from host.chunker.database import open_database
    from host.chunker.domain import Domain, is_win
    db = open_database(Domain((0, 1), (6, 7)), quiet=True)
    boards = sample_positions(db, 6, seed=3)
    assert len(boards) == 6
    for board in boards:
        keeps = {move: keeps_value(db, board, move) for move, _ in db.domain.children(board)}
        assert any(keeps.values()) and not all(keeps.values()), board.fen()
        if is_win(db.value(board)):
            assert keeps[db.line(board)[0]], board.fen()


def test_the_won_endings_are_quiet_positions_of_their_material():
    """Without Stockfish to check them won: the material asked for, the stronger side to move
    (White and Black in turn), nobody in check, no piece attacked; seeded."""
    positions = sample(["KQvKB", "KBNvK", "KRvK"], 4, seed=3)
    assert positions == sample(["KQvKB", "KBNvK", "KRvK"], 4, seed=3)
    assert positions[4:8] == sample(["KBNvK"], 4, seed=3) != sample(["KBNvK"], 4, seed=4)
    assert [e for e, _ in positions] == ["KQvKB"] * 4 + ["KBNvK"] * 4 + ["KRvK"] * 4
    for index, (ending, board) in enumerate(positions):
        strong = board.turn
        assert strong == (chess.WHITE if index % 2 == 0 else chess.BLACK)
        symbols = {"KQvKB": ("KQ", "KB"), "KBNvK": ("KBN", "K"), "KRvK": ("KR", "K")}[ending]
        for colour, pieces in zip((strong, not strong), symbols):
            assert sorted(p.symbol().upper() for p in board.piece_map().values() if p.color == colour) \
                == sorted(pieces)
        assert board.is_valid() and not board.is_check() and not board.is_game_over()
        assert not any(board.is_attacked_by(not piece.color, square)
                       for square, piece in board.piece_map().items() if piece.piece_type != chess.KING)


@pytest.mark.parametrize("endings", ["KQvKP", "QvK", "KQKB", "KXvK"])
def test_a_material_set_that_is_no_pawnless_ending_is_refused(endings, capsys):
    with pytest.raises(SystemExit):
        conversion_main(["--endings", endings])
    assert "no pawnless material set" in capsys.readouterr().err


class _Scripted:
    """A player that makes the given moves in turn (the rules of the game are what is tested)."""

    def __init__(self, moves):
        self.moves, self.id = iter(moves), {"name": "scripted"}

    def play(self, board, limit, game=None):
        return chess.engine.PlayResult(chess.Move.from_uci(next(self.moves)), None)


def test_a_won_ending_is_drawn_by_a_repetition_the_defender_can_claim_not_the_attacker():
    start = chess.Board("7k/8/8/8/8/8/8/K2Q4 w - - 0 1")
    # After Qd2, both shuffle: from the eighth ply White could claim a third Qd2 position (it
    # would not), Black never can first; the game ends when that position stands three times.
    attacker = _Scripted(["d1d2", "d2d3", "d3d2", "d2d3", "d3d2"])
    defender = _Scripted(["h8g8", "g8h8", "h8g8", "g8h8"])
    board, why = play_out(attacker, defender, start, None, None)
    assert why == "threefold_repetition" and board.is_repetition(3) and len(board.move_stack) == 9
    # ... and a repetition Black can claim ends it at once, Black to move.
    attacker, defender = _Scripted(["d1d2", "d2d1", "d1d2", "d2d1"]), _Scripted(["h8g8", "g8h8", "h8g8"])
    board, why = play_out(attacker, defender, start, None, None)
    assert why == "threefold_repetition" and board.turn == chess.BLACK and len(board.move_stack) == 7
    assert not board.is_repetition(3) and board.can_claim_threefold_repetition()
    mate = chess.Board("7k/8/6K1/8/8/8/8/3Q4 w - - 0 1")
    board, why = play_out(_Scripted(["d1d8"]), _Scripted([]), mate, None, None)
    assert why == "mate" and board.is_checkmate()


def test_phases_split_a_matchs_points_by_the_material_on_the_board(tmp_path, capsys):
    """``benchmarks.phases``: each game's points above one half split where it enters each phase
    (the mean expectation of three positions there), the last phase it reaches ending in its
    result; won positions not won, by how the game ended."""
    from benchmarks.phases import (
        MATE_SCORE,
        GameTrace,
        conversions,
        ending,
        load_traces,
        main,
        material,
        phase_gains,
        save_traces,
    )
    assert material(chess.Board()) == 62 and material(chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")) == 0
    won = GameTrace(1.0, [0.5, 0.5, 0.6, 0.6, 0.6, 0.6, 0.7, 0.7, 0.7, 0.9, 0.9, 0.9],
                    [0, 0, 40, 40, 40, 40, 90, 90, 90, 250, 250, 250], [62, 55, 48, 48, 48, 40, 28, 28, 28, 10, 10, 10])
    drawn = GameTrace(0.5, [0.5, 0.4, 0.4, 0.4], [0, -40, -40, -40], [62, 49, 49, 49], "repetition")
    result = phase_gains([won, drawn])
    assert result.gains == pytest.approx([0.0, 0.2, 0.2, 0.1]) and result.games == 2
    assert result.surplus == pytest.approx(sum(result.gains)) == pytest.approx(0.5)
    assert all(low <= gain <= high for gain, low, high in zip(result.gains, result.lows, result.highs))
    assert phase_gains([won], (30,)).gains == pytest.approx([0.2, 0.3])
    with pytest.raises(ValueError, match="fall strictly"):
        phase_gains([won], (30, 50))
    ahead = GameTrace(0.5, [0.5, 0.99, 0.99, 0.99, 0.99, 0.6], [0, 300, 420, 300, 350, 60], [62] * 6, "fifty moves")
    assert conversions([ahead, won]) == (0, 1, 0, {"fifty moves": 1})
    assert conversions([ahead, won], machine=False) == (0, 0, 0, {})
    assert conversions([ahead], lead=301) == (0, 0, 0, {})
    assert conversions([GameTrace(0.0, [0.01] * 5, [-MATE_SCORE] * 5, [62] * 5)], machine=False) == (1, 0, 0, {})
    board = chess.Board("6k1/8/8/8/8/8/5Q2/6K1 w - - 0 1")
    for san in ("Kh1", "Kh8", "Kg1", "Kg8") * 2:
        board.push_san(san)
    assert ending(board) == "repetition"
    assert ending(chess.Board("6k1/8/8/8/8/8/5Q2/6K1 w - - 100 80")) == "fifty moves"
    assert ending(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == "stalemate"
    saved = tmp_path / "traces.jsonl"
    save_traces(saved, [(won, [chess.STARTING_FEN] * 12), (drawn, [chess.STARTING_FEN] * 4)])
    assert [trace for trace, _ in load_traces(saved)] == [won, drawn]
    save_traces(tmp_path / "traces.jsonl.gz", load_traces(saved))
    assert load_traces(tmp_path / "traces.jsonl.gz") == load_traces(saved)
    capsys.readouterr()
    assert main(["--load", str(saved), "--bounds", "30"]) == 0      # no Stockfish: what the file keeps
    out = capsys.readouterr().out
    assert "2 games, SUPREM 1.5 points (+0.5 above one half)" in out and "+0.2 points" in out and "+0.3 points" in out
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(saved.read_text().splitlines()[0].replace('"fens"', '"fen"') + "\n")
    for argv in ([str(empty)], [str(empty), "--bounds", "30,50"], [str(tmp_path / "missing.pgn")], [],
                 [str(empty), "--load", str(saved)], ["--load", str(bad)], ["--load", str(empty)]):
        with pytest.raises(SystemExit) as refused:
            main(argv)
        assert refused.value.code == 2


def test_each_phases_points_split_into_what_the_leads_explain_and_the_machines_own():
    """``benchmarks.phases.lead_split``: a least-squares line through each game's gain in a
    phase against the lead it entered with; the points the leads explain plus the intercept's
    share are the phase's points, for the last phase (to the result) and for one in the middle
    (to where the game leaves it)."""
    from benchmarks.phases import GameTrace, lead_split, phase_gains

    def game(entered, points, reaches=True):    # three positions in the ending (material 10), or none
        return GameTrace(points, [0.5, 0.5] + [entered] * 3, [0] * 5, [62, 40] + [10 if reaches else 20] * 3)

    # gain = 0.05 - 0.2 x lead, exactly: the intercept 0.05 a game, the slope -0.2, no spread
    leads = [-0.4, -0.1, 0.0, 0.2, 0.45]
    games = [game(0.5 + x, 0.5 + x + 0.05 - 0.2 * x) for x in leads] + [game(0.9, 1.0, reaches=False)]
    split = lead_split(games, 12)
    assert split.games == 5
    assert split.slope == pytest.approx(-0.2) and split.slope_low == pytest.approx(split.slope_high)
    assert split.own == pytest.approx(0.25) and split.own_low == pytest.approx(split.own_high)
    assert split.from_leads == pytest.approx(-0.2 * sum(leads))
    assert split.own + split.from_leads == pytest.approx(phase_gains(games[:5], (12,)).gains[-1])
    noisy = lead_split(games[:5] + [game(0.5, 1.0), game(0.5, 0.0)], 12)
    assert noisy.own_low < noisy.own < noisy.own_high and noisy.slope_low < noisy.slope < noisy.slope_high
    assert lead_split(games[:2], 12) is None and lead_split([game(0.6, 1.0)] * 4, 12) is None

    # a middle phase, entered at 30 and left at 12: its gain ends where the game leaves it, not
    # at the result (which here differs from that expectation by 0.3 in every game)
    def middle(entered, left):
        return GameTrace(min(1.0, left + 0.3), [0.5, entered, entered, entered, left, left, left], [0] * 7,
                         [62, 25, 25, 25, 10, 10, 10])

    games = [middle(0.5 + x, 0.5 + x - 0.02 - 0.3 * x) for x in leads]
    split = lead_split(games, 30, 12)
    assert split.games == 5 and split.slope == pytest.approx(-0.3) and split.own == pytest.approx(-0.1)
    assert split.own + split.from_leads == pytest.approx(phase_gains(games, (30, 12)).gains[1])
    assert lead_split(games, 5, 2) is None                      # no game reaches it


def test_each_sides_moves_are_judged_by_the_fall_of_its_score_in_the_phase_they_start_in():
    """``benchmarks.phases.move_losses``: a move's loss is the fall of its side's score, capped,
    judged only from positions within ``BALANCED`` of level, in the phase of the position it was
    played from."""
    from benchmarks.phases import LOSS_CAP, GameTrace, move_losses

    # the positions after each move, the machine (White) scoring them; moves 2, 4, 6 and 8 are Black's
    scores = [10, 20, -130, -130, 300, 300, 290, 800, 0]
    materials = [62, 62, 62, 40, 40, 10, 10, 10, 10]
    trace = GameTrace(1.0, [0.5] * 9, scores, materials)
    mine, theirs = move_losses([trace], (50, 30, 12)), move_losses([trace], (50, 30, 12), machine=False)
    # White's moves 3 (20 -> -130: an error), 5 (a gain: 0) and 7 (300 -> 290); move 9 from 800 is not judged
    assert [(m.moves, m.mean_loss, m.errors) for m in mine] == [(1, 150, 1), (1, 0, 0), (0, 0, 0), (1, 10, 0)]
    # Black's moves 2 (10 -> 20 for White: 10) and 4 (none) from material 62, 6 (none) from 40, and 8
    # (290 -> 800: capped, an error) from 10
    assert [(m.moves, m.mean_loss, m.errors) for m in theirs] == [(2, 5, 0), (1, 0, 0), (0, 0, 0), (1, LOSS_CAP, 1)]
    black = trace._replace(machine_white=False, scores=[-x for x in scores])
    assert move_losses([black], (50, 30, 12), machine=False) == mine     # the same moves, the other side's view


def test_the_screen_values_the_quiet_positions_of_a_saved_match(tmp_path, capsys):
    """``benchmarks.screen`` on a saved game (no Stockfish): the quiet positions (steady, level,
    not in check, no recapture due) valued with the patterns of the root some plies before, and
    what each pattern left out does to the difference from the scores."""
    from benchmarks.phases import GameTrace, save_traces
    from benchmarks.screen import ScreenedPosition, best_scale, main, quiet_positions, rms, screened
    board, fens = chess.Board(), []
    for san in "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7".split():
        board.push_san(san)
        fens.append(board.fen())
    scores = [30] * len(fens)
    scores[15] = 200                                        # not steady: 15, and 14 and 16 beside it
    trace = GameTrace(0.5, [0.5] * len(fens), scores, [62] * len(fens), "repetition", machine_white=False)
    quiet = quiet_positions([(trace, fens)], from_ply=12)
    assert [ply for _, ply, _, _ in quiet] == [12, 13, 17, 18]                 # the last has no after
    assert all(score == -30 for *_, score in quiet)                               # Black's 30 in White's view
    # A capture due (a recapture that wins back what was taken) is no quiet position.
    board, taking = chess.Board(), []
    for san in "e4 d5 exd5 Nf6 Nc3 Nxd5 Nxd5 Qxd5 Nf3 Bg4".split():
        board.push_san(san)
        taking.append(board.fen())
    exchange = GameTrace(0.5, [0.5] * 10, [30] * 10, [62] * 10, "repetition", machine_white=True)
    assert [ply for _, ply, _, _ in quiet_positions([(exchange, taking)], from_ply=1)] == [1, 3, 5, 7, 8]
    positions = screened([(trace, fens)], plies=4, from_ply=12)
    assert len(positions) == 4 and all(set(p.weighed) == set(p.hand) for p in positions)
    assert rms(positions, lambda p: p.stockfish) == 0 and rms([], lambda p: 0) != rms([], lambda p: 0)   # nan
    saved = tmp_path / "traces.jsonl"
    save_traces(saved, [(trace, fens)])
    assert main([str(saved), "--plies", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 quiet positions of 1 games") and "the fitted table alone" in out
    assert "each pattern's own scale" in out
    # Stockfish sees half of "p" and all of "q" (its values apart from what "p" misses).
    made = [ScreenedPosition(1, table + c // 2 + d, table, {}, {"p": c, "q": d})
            for table, c, d in ((10, 40, 0), (-20, -60, 5), (5, 100, 3), (0, 0, 0))]
    assert best_scale(made, "p") == pytest.approx(0.5) and best_scale(made, "q") == pytest.approx(1.0)
    assert best_scale(made, "r") == 1.0                                            # never acts
    with pytest.raises(SystemExit):
        main([str(saved), "--from-ply", "30"])                                    # none left
    assert "no quiet position" in capsys.readouterr().err


def test_the_strategic_test_suite_scores_the_move_played(tmp_path, capsys):
    """``benchmarks.sts``: a move scores its points (0 when it is not among the scored ones), the
    first N positions of each theme, a line that is not the suite's refused with its line, a run
    of the machine printed over all positions and theme by theme, its moves written with the
    points each falls short of the best, and compared with an earlier run's."""
    from benchmarks import sts
    from benchmarks.choice import read_moves, write_moves
    positions, themes = sts.read_sts()
    first = positions[0]
    best = max(first.points, key=first.points.get)
    assert first.score(best) == sts.BEST and first.theme == 1 and themes[1] == "Undermine"
    assert first.score(next(m for m in first.board.legal_moves if m not in first.points)) == 0
    two = sts.first_of_each_theme(positions, 2)
    assert len(two) == 30 and all(sum(p.theme == t for p in two) == 2 for t in range(1, 16))
    assert sts.first_of_each_theme(positions, None) == positions
    lines = sts.STS_FILE.read_text().splitlines()
    suite = tmp_path / "two.epd"
    suite.write_text(lines[0] + "\n" + lines[-1] + "\n")
    moves = tmp_path / "moves.jsonl"
    assert sts.main(["--file", str(suite), "--engines", "suprem", "--nodes", "300", "--moves", str(moves)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"2 positions of {suite}, 300 nodes a move" and out[1].startswith("suprem (all 2)")
    assert len(out) == 5 and " 1 Undermine" in out[2] and "of     100 points" in out[3] and out[4] == code_line()
    played = read_moves(moves)          # each move with the points it falls short of the best
    suited = {p.board.fen(): p for p in sts.read_sts(suite)[0]}
    assert sorted(fen for _, fen in played) == sorted(suited)
    for (_, fen), (move, short) in played.items():
        assert short == sts.BEST - suited[fen].score(chess.Move.from_uci(move))
    (engine, fen), (move, short) = next(iter(played.items()))
    earlier = 0 if short else sts.BEST                  # an earlier run: another move, all or no points
    played[engine, fen] = ("a1a1", earlier)
    write_moves(moves, played)
    assert sts.main(["--file", str(suite), "--engines", "suprem", "--nodes", "300", "--against", str(moves)]) == 0
    against = capsys.readouterr().out.splitlines()[-2]
    more = int(short < earlier)
    assert against.startswith(f"suprem against {moves}: 1 of 2 moves differ, {more} score more, {1 - more} less; "
                              f"{(earlier - short) / 2:+.2f} points a position"), against
    bad = tmp_path / "bad.epd"
    bad.write_text(lines[0].replace('c8 "100', 'c8 "99') + "\n")
    with pytest.raises(SystemExit):
        sts.main(["--file", str(bad), "--engines", "suprem"])
    assert f"{bad}:1: not a position of the suite" in capsys.readouterr().err
