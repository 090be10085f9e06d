"""The reference positions in data/: every file is there and reads, its answers are
python-chess's, and the seeded files are what data/make_positions.py makes."""

import importlib.util
import random

import pytest

from sim.testing import DATA, REFERENCE_FILES, reference_positions

spec = importlib.util.spec_from_file_location("make_positions", DATA / "make_positions.py")
make_positions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_positions)


TACTICAL_SUITES = ("tactics-dev.epd", "tactics-selfplay.epd", "tactics-selfplay2.epd", "tactics-selfplay3.epd",
                   "wac.epd")


@pytest.mark.parametrize("name", REFERENCE_FILES + TACTICAL_SUITES)
def test_every_reference_file_is_in_the_repository_and_reads(name):
    records = reference_positions(name)
    expected = {"perft-standard.epd": 6, "random-positions.epd": 2000, "special-positions.epd": 400,
                "tactics-dev.epd": 18, "tactics-selfplay.epd": 27, "tactics-selfplay2.epd": 17,
                "tactics-selfplay3.epd": 30, "wac.epd": 300}
    assert len(records) == expected[name]


@pytest.mark.parametrize("name", TACTICAL_SUITES)
def test_every_tactical_answer_is_a_legal_move(name):
    """Each position of a tactical suite is legal and names its answer (``bm``, or ``am``) in
    legal moves, as ``benchmarks.tactics`` reads them (it refuses a suite otherwise)."""
    from benchmarks.tactics import read_suite
    records = read_suite(DATA / name)
    assert all(record.board.is_valid() for record in records)
    assert len(records) == len(reference_positions(name))


def test_the_strategic_test_suite_reads_whole():
    """``data/sts.epd`` (STS, version 6): 1,188 valid positions in fifteen themes, each with its
    scored moves legal and one best move of 100 points, as ``benchmarks.sts`` reads them."""
    from benchmarks.sts import BEST, read_sts
    positions, themes = read_sts(DATA / "sts.epd")
    assert len(positions) == 1188 and sorted(themes) == list(range(1, 16))
    assert all(p.board.is_valid() for p in positions)
    assert all(sorted(p.points.values()).count(BEST) == 1 for p in positions)
    assert len({p.name for p in positions}) == len(positions)


def test_no_two_positions_of_the_tactical_suites_share_an_id():
    """``benchmarks.tactics`` names a position by its ``id`` alone, across all the suites it is given."""
    ids = [record.operations["id"] for name in TACTICAL_SUITES for record in reference_positions(name)]
    assert len(set(ids)) == len(ids), sorted(i for i in set(ids) if ids.count(i) > 1)


def test_a_missing_file_is_an_error_that_names_it():
    with pytest.raises(FileNotFoundError, match="no-such-file.epd"):
        reference_positions("no-such-file.epd")


@pytest.mark.parametrize("name, make_line", [("random-positions.epd", make_positions.random_line),
                                             ("special-positions.epd", make_positions.special_line)])
def test_seeded_files_are_what_the_script_makes(name, make_line):
    lines = (DATA / name).read_text().splitlines()
    for index in random.Random(name).sample(range(len(lines)), 12) + [0, len(lines) - 1]:
        assert lines[index] == make_line(index), f"{name} line {index + 1}"


def test_special_positions_have_their_kind():
    records = reference_positions("special-positions.epd")
    for number, kind in enumerate(make_positions.SPECIAL_KINDS):
        chunk = records[number * make_positions.SPECIAL_PER_KIND:(number + 1) * make_positions.SPECIAL_PER_KIND]
        assert all(make_positions.SPECIAL_KINDS[kind](r.board) for r in chunk), kind


def test_answers_are_python_chess_answers(tmp_path):
    """A sample of each file's lines checked; a wrong answer is found."""
    sample = tmp_path / "sample.epd"
    lines = (DATA / "perft-standard.epd").read_text().splitlines()
    for name in ("random-positions.epd", "special-positions.epd"):
        lines += random.Random(1).sample((DATA / name).read_text().splitlines(), 25)
    sample.write_text("\n".join(lines) + "\n")
    assert make_positions.check_file(sample) == []
    wrong = lines[-1].rsplit("check ", 1)
    sample.write_text(f"{wrong[0]}check {1 - int(wrong[1])}\n")
    assert len(make_positions.check_file(sample)) == 1


def test_the_tactics_maker_keeps_only_a_clear_best_move():
    """data/make_tactics.py's rule (Stockfish itself is not needed): a gap of GAP centipawns or
    a short forced mate the second move does not share."""
    import chess.engine
    spec = importlib.util.spec_from_file_location("make_tactics", DATA / "make_tactics.py")
    make_tactics = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_tactics)

    def lines(*scores):
        return [{"score": chess.engine.PovScore(score, chess.WHITE)} for score in scores]
    Cp, Mate = chess.engine.Cp, chess.engine.Mate
    assert make_tactics._clear(lines(Cp(200), Cp(200 - make_tactics.GAP))) == f"gap {make_tactics.GAP} cp"
    assert make_tactics._clear(lines(Cp(200), Cp(201 - make_tactics.GAP))) is None
    assert make_tactics._clear(lines(Mate(3), Cp(500))) == "mate 3"
    assert make_tactics._clear(lines(Mate(3), Mate(4))) is None
    assert make_tactics._clear(lines(Mate(make_tactics.MATE_MOVES + 1), Cp(0))) is None
    assert make_tactics._clear(lines(Cp(300), Mate(-2))) == "the second move is mated in 2"
    assert make_tactics._clear(lines(Cp(-300), Mate(2))) is None
    assert make_tactics._clear(lines(Cp(300))) is None
    # positional: a quiet best move, in the balance, better by QUIET_GAP than a second that takes nothing
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    quiet, capture, other = (chess.Move.from_uci(m) for m in ("f1b5", "f3e5", "f1c4"))

    def moves(first, second, best=40, gap=make_tactics.QUIET_GAP):
        return [{"score": chess.engine.PovScore(Cp(best), chess.WHITE), "pv": [first]},
                {"score": chess.engine.PovScore(Cp(best - gap), chess.WHITE), "pv": [second]}]
    gap = make_tactics.QUIET_GAP
    assert make_tactics._quiet(board, moves(quiet, other)) == f"gap {gap} cp"
    assert make_tactics._quiet(board, moves(quiet, other, gap=gap - 1)) is None
    assert make_tactics._quiet(board, moves(capture, quiet)) is None        # the best takes
    assert make_tactics._quiet(board, moves(quiet, capture)) is None        # the second takes
    assert make_tactics._quiet(board, moves(quiet, other, best=make_tactics.BALANCE + 1)) is None


def test_the_positions_by_material_are_those_of_their_phase(tmp_path):
    """``data/make_choice_positions.py --material LO,HI`` keeps the games' positions whose non-pawn
    material (as ``benchmarks.phases`` counts it) is from LO to HI, from ply 16, not in check; the
    shipped file of material 13 to 30 holds only such positions, each with its moves scored."""
    import json

    import chess
    import chess.pgn

    from benchmarks.phases import material

    spec = importlib.util.spec_from_file_location("make_choice_positions", DATA / "make_choice_positions.py")
    make_choice_positions = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_choice_positions)

    # a game that trades down: queens off at once, then rooks, to a minor-piece ending
    moves = ("e4 e5 Nf3 Nc6 Bc4 Bc5 d3 d6 O-O Nf6 Bg5 h6 Bxf6 Qxf6 Nc3 O-O Nd5 Qd8 c3 Be6 b4 Bb6 a4 a6 "
             "Nxb6 cxb6 Bxe6 fxe6 Qb3 Qd7 Rfd1 Rf6 d4 Raf8 dxe5 dxe5 Rxd7 Rxf3 gxf3 Rxf3 Qxe6+ Kh7 Qxc6 bxc6 "
             "Rd8 Rf6 Rd7 Rf4 Rxg7+ Kxg7 Kg2 Kf6").split()
    game = chess.pgn.Game()
    game.headers["White"], game.headers["Black"] = "SUPREM", "sunfish"
    node, board = game, chess.Board()
    for san in moves:
        move = board.parse_san(san)
        node = node.add_variation(move)
        board.push(move)
    (tmp_path / "game.pgn").write_text(str(game) + "\n")
    kept = make_choice_positions.in_material(13, 30)
    found = make_choice_positions.candidates([str(tmp_path / "*.pgn")], None, kept=kept)
    fens = [chess.Board().fen()]
    for san in moves:
        board = chess.Board(fens[-1])
        board.push_san(san)
        fens.append(board.fen())
    # material 32 before ply 39, 10 from ply 50; the positions of plies 41 and 49 are checks
    assert found == [(fens[ply], None) for ply in (39, 40, 42, 43, 44, 45, 46, 47, 48)]

    lines = (DATA / "material-13-30-positions.jsonl").read_text().splitlines()
    assert lines[0].startswith("# Made by data/make_choice_positions.py") and "--material 13,30" in lines[0]
    positions = [json.loads(line) for line in lines[1:]]
    assert len(positions) == 240
    for position in positions:
        board = chess.Board(position["fen"])
        assert 13 <= material(board) <= 30 and not board.is_check()
        assert set(position["scores"]) <= {move.uci() for move in board.legal_moves}
