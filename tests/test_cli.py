"""The ``suprem`` command line on the Verilated generator."""

import pytest

from host.cli import main

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def test_moves_lists_the_order_and_agrees(capsys):
    assert main(["moves", "startpos"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split()[:4] == ["1", "e2e4", "e4", "yes"]
    assert "20 moves (20 legal)" in out[-2]
    assert out[-1] == "python-chess and the bit-exact model agree"


def test_moves_writes_the_waveform_window_it_is_asked_for(tmp_path, monkeypatch, capsys):
    """``--trace`` (the tracing build of the generator): a VCD of exactly the window, with the
    top's signals under their names, the request handshake among them; nothing leaks into
    later commands (the environment is restored)."""
    import os
    for name in ("SUPREM_TRACE", "SUPREM_TRACE_FROM", "SUPREM_TRACE_CYCLES"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "moves.vcd"
    assert main(["moves", "startpos", "--trace", str(path), "--trace-from", "3", "--trace-cycles", "10"]) == 0
    text = path.read_text()
    names = {line.split()[4] for line in text.splitlines() if line.lstrip().startswith("$var")}
    assert {"clk", "search__request__valid", "search__response__payload"} <= names, sorted(names)[:20]
    times = [int(line[1:]) for line in text.splitlines() if line.startswith("#")]
    assert times == [10000 * cycle + 5000 * phase for cycle in range(3, 13) for phase in (0, 1)]
    assert "tracing to" in capsys.readouterr().err
    assert main(["moves", "startpos", "--trace", str(path), "--trace-cycles", "0"]) == 2
    assert "SUPREM_TRACE" not in os.environ


@pytest.mark.parametrize("fen,message", [
    ("8/8/8 w - -", "not a valid FEN"),
    ("8/8/8/8/8/8/8/4K3 w - - 0 1", "black has no king"),
])
def test_moves_rejects_bad_positions(capsys, fen, message):
    assert main(["moves", fen]) == 2
    assert message in capsys.readouterr().err


def test_verify_movegen_reports_lines_and_counts(tmp_path, capsys):
    path = tmp_path / "mixed.epd"
    path.write_text("\n".join([
        "# positions for the checker",
        START,
        "8/8/8 w - -",
        "8/8/8/8/8/8/8/4K3 w - - 0 1",
        "epd r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - ; D1 48",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    ]) + "\n")
    assert main(["verify", "movegen", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "3 positions, 0 mismatches"
    assert any(line.startswith(f"{path}: line 3: not a valid FEN") for line in out)
    assert any("line 4: rejected: impossible position" in line and "black has no king" in line
               for line in out)
    assert main(["verify", "movegen", str(path), "--limit", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 positions, 0 mismatches"


def test_verify_movegen_missing_file(tmp_path, capsys):
    assert main(["verify", "movegen", str(tmp_path / "nothing.epd")]) == 2
    assert "cannot read" in capsys.readouterr().err


def _mixed_file(tmp_path):
    path = tmp_path / "mixed.epd"
    path.write_text("\n".join([START, "8/8/8 w - -", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
                               "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"]) + "\n")
    return path


def test_verify_eval_counts_positions(tmp_path, capsys):
    path = _mixed_file(tmp_path)
    assert main(["verify", "eval", str(path), "--config", "small", "--seed", "3", "--tables-every", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "3 positions, 0 mismatches"
    assert any("line 2: not a valid FEN" in line for line in out)


def test_verify_eval_reports_a_difference_with_its_fen(tmp_path, capsys, monkeypatch):
    from models.evaluator import EvaluatorModel
    right = EvaluatorModel.value
    monkeypatch.setattr(EvaluatorModel, "value", lambda self: right(self) + 1)   # a wrong model
    path = _mixed_file(tmp_path)
    assert main(["verify", "eval", str(path), "--config", "small", "--limit", "1"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 positions, 1 mismatches"
    assert any(line.startswith(f"mismatch at line 1: FEN {START}") for line in out)
    assert any("after setup: hardware" in line and "model" in line for line in out)


def test_perft_counts_and_divides(capsys):
    assert main(["perft", "startpos", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("perft 2: 400 leaves in ")
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    assert main(["perft", kiwipete, "2", "--divide"]) == 0
    out = capsys.readouterr().out.splitlines()
    moves = dict(line.split(": ") for line in out[:-1])
    assert len(moves) == 48 and moves["e1g1"] == "43" and sum(map(int, moves.values())) == 2039
    assert out[-1].startswith("perft 2: 2039 leaves")
    assert main(["perft", "startpos", "64"]) == 2
    assert "depth must be 0..63" in capsys.readouterr().err


def test_verify_search_counts_positions(tmp_path, capsys):
    path = _mixed_file(tmp_path)
    assert main(["verify", "search", str(path), "--depth", "1", "--jobs", "1", "--tables", "material"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "3 positions, 0 mismatches"
    assert out[-2].startswith("hardware: ") and "cycles per node" in out[-2]


def test_verify_search_over_the_link(tmp_path, capsys):
    path = _mixed_file(tmp_path)
    assert main(["verify", "search", str(path), "--depth", "2", "--jobs", "0", "--port", "sim"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "3 positions, 0 mismatches"


def test_eval_prints_the_terms_and_agrees_with_the_model(capsys):
    import chess

    from hdl.eval.tables import FULL
    from host.oracle import Oracle
    from models.evaluator import static_value
    fen = "r1bqk2r/pp3ppp/2n1pn2/2pp4/3P4/2PBPN2/PP3PPP/RNBQ1RK1 w kq - 0 8"
    for knowledge in ("root", "phase"):
        want = static_value(Oracle(FULL, knowledge).tables_for(chess.Board(fen))[1], chess.Board(fen))
        assert main(["eval", fen, "--knowledge", knowledge]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[1].startswith(f"oracle: {knowledge} knowledge, middlegame: material-piece-square, "), out
        assert any(line.strip().startswith("recognizer ") for line in out)
        assert out[-1] == f"static value, White's view: board {want}, model {want}" and want != 0
        if knowledge == "root":     # weighed against the fitted table, the shelter is left out
            assert any(line.startswith("oracle: left out shelter-king: weighs ") for line in out), out
    # the phase knowledge: the shelter (few fields) in a narrow unit, king safety (four fields) in a wide one
    narrow = FULL.recognizers - FULL.narrow
    assert f"oracle: recognizer {narrow}: shelter-king" in out
    assert any(line.startswith("oracle: recognizer ") and line.endswith(": king-safety")
               and int(line.split()[2][:-1]) < narrow for line in out)


def test_a_search_on_the_evaluation_station_is_refused_clearly(capsys):
    import chess

    from hdl.eval.tables import SMALL
    from host.oracle import Oracle
    from models.evaluator import static_value
    from sim.board_sim import SimulatedBoard
    fen = "rnbqkb1r/pp3ppp/4pn2/2pp4/3P4/2P1PN2/PP3PPP/RNBQKB1R w KQkq - 0 5"
    want = static_value(Oracle(SMALL).tables_for(chess.Board(fen))[1], chess.Board(fen))
    with SimulatedBoard(SMALL, station=True) as station:
        assert main(["analyze", "startpos", "--depth", "2", "--port", station.device]) == 3
        assert "evaluation station" in capsys.readouterr().err
        assert main(["eval", fen, "--port", station.device]) == 0
        assert capsys.readouterr().out.splitlines()[-1] == f"static value, White's view: board {want}, model {want}"


def test_analyze_rejects_two_limits_and_a_missing_port(capsys, tmp_path):
    assert main(["analyze", "startpos", "--depth", "3", "--nodes", "100"]) == 2
    assert "give one of" in capsys.readouterr().err
    assert main(["analyze", "startpos", "--port", str(tmp_path / "nothing")]) == 3
    assert "cannot open" in capsys.readouterr().err


def test_verify_search_reports_a_difference_with_its_fen(tmp_path, capsys, monkeypatch):
    import models.search as reference
    monkeypatch.setattr(reference, "EVAL_LIMIT", 5)        # a wrong reference (in this process)
    path = _mixed_file(tmp_path)
    assert main(["verify", "search", str(path), "--depth", "1", "--jobs", "0"]) == 1
    out = capsys.readouterr().out
    assert "mismatch at line 1: FEN rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" in out
    assert "score: hardware" in out


def test_verify_search_reports_a_board_left_changed(tmp_path, capsys, monkeypatch):
    """The check the docs promise: after the search the machine is back on the position, key and
    evaluator's value; a search that leaves a stray pawn behind is reported on both counts."""
    from models.position import Halfmove, HalfmoveOp
    from sim.search_check import SearchPair
    search = SearchPair.search

    def leaves_a_pawn(self, board, depth, *args, **kwargs):
        result = search(self, board, depth, *args, **kwargs)
        self.machine.apply([Halfmove(HalfmoveOp.PLACE, 20 if board.piece_at(20) is None else 44, 1)])
        return result

    monkeypatch.setattr(SearchPair, "search", leaves_a_pawn)
    path = _mixed_file(tmp_path)
    assert main(["verify", "search", str(path), "--depth", "1", "--jobs", "0", "--limit", "1"]) == 1
    out = capsys.readouterr().out
    assert "the board is not restored: key" in out and "the evaluator is not restored: static value" in out


def test_verify_search_compares_the_principal_variation(tmp_path, capsys, monkeypatch):
    from models.search import ReferenceSearch
    line = ReferenceSearch.principal_variation
    monkeypatch.setattr(ReferenceSearch, "principal_variation", lambda self, board, limit=64: line(self, board)[:1])
    path = _mixed_file(tmp_path)
    assert main(["verify", "search", str(path), "--depth", "3", "--jobs", "0", "--limit", "1",
                 "--tables", "material"]) == 1
    assert "principal variation: hardware" in capsys.readouterr().out


def test_verify_search_rejects_a_bad_depth(tmp_path, capsys):
    assert main(["verify", "search", str(_mixed_file(tmp_path)), "--depth", "70"]) == 2
    assert "depth must be 0..63" in capsys.readouterr().err


def test_search_finds_the_mate_and_prints_a_line_per_depth(capsys):
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    assert main(["search", fen, "--depth", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:4] for line in out[1:3]] == [["depth", "1", "score", "mate"], ["depth", "2", "score", "mate"]]
    assert all(" pv h5f7 (simulation cycles " in line for line in out[1:3])
    # each iteration's span of the simulation's cycles (for --trace-from) holds its search's cycles
    spans = [tuple(int(c) for c in line.rsplit(" ", 1)[1].rstrip(")").split("..")) for line in out[1:3]]
    searched = [int(line.split()[line.split().index("cycles") + 1]) for line in out[1:3]]
    assert all(end - start >= cycles for (start, end), cycles in zip(spans, searched)), (spans, searched)
    assert spans[0][1] <= spans[1][0]
    assert out[-1] == "bestmove h5f7"


def test_search_rejects_a_bad_position_and_depth(capsys):
    assert main(["search", "8/8/8 w - -"]) == 2
    assert main(["search", "startpos", "--depth", "0"]) == 2
    err = capsys.readouterr().err
    assert "not a valid FEN" in err and "depth must be 1..63" in err


def test_the_configuration_names_are_the_evaluators():
    from hdl.eval.tables import CONFIGS
    from host.cli import EVALUATOR_CONFIGS
    assert EVALUATOR_CONFIGS == tuple(CONFIGS)


def test_the_features_help_names_every_feature():
    from hdl.search.features import SearchFeatures
    from host.cli import FEATURES_HELP
    for name in SearchFeatures.names():
        assert name in FEATURES_HELP, name


def test_cache_lists_and_prunes(tmp_path, monkeypatch, capsys):
    import os
    import time
    monkeypatch.setenv("SUPREM_CACHE", str(tmp_path))
    (tmp_path / "verilog").mkdir()
    old, new = tmp_path / "verilog" / "board-0123.v", tmp_path / "verilog" / "board-4567.v"
    old.write_bytes(b"x" * 2_000_000)
    new.write_bytes(b"x" * 1_000_000)
    os.utime(old, (time.time() - 30 * 86400,) * 2)
    assert main(["cache"]) == 0
    assert "2 entries, 3.0 MB" in capsys.readouterr().out
    assert main(["cache", "--prune", "14"]) == 0
    out = capsys.readouterr().out
    assert "removed 1 entries not used for 14 days: 2.0 MB" in out and "1 entries, 1.0 MB" in out
    assert not old.exists() and new.exists()
    assert main(["cache", "--prune", "-1"]) == 2
