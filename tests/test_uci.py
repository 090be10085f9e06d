"""``suprem uci`` on the simulated board, driven by python-chess's UCI client and by raw
protocol lines; ``suprem analyze`` on mates."""

import queue
import random
import re
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import chess.variant
import pytest

from host.cli import main
from host.driver import Iteration, Limits, score_text, stability
from host.kpk import judge
from host.uci import time_budget_ms

ENGINE = [sys.executable, "-m", "host.cli", "uci"]


@pytest.fixture(scope="module")
def engine():
    with chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=120) as uci:
        yield uci


def play_against_a_random_mover(engine, game, seed, max_plies=None):
    """The engine (White, two plies a move) against seeded random moves from ``game`` to the
    game's end (or ``max_plies``); every move the engine plays is legal."""
    rng = random.Random(seed)
    while not game.is_game_over(claim_draw=True) and (max_plies is None or len(game.move_stack) < max_plies):
        if game.turn == chess.WHITE:
            result = engine.play(game, chess.engine.Limit(depth=2))
            assert result.move in game.legal_moves, f"{result.move} in {game.fen()}"
            game.push(result.move)
        else:
            game.push(rng.choice(list(game.legal_moves)))
    return game


def test_python_chess_plays_a_whole_game_against_a_random_mover(engine):
    game = play_against_a_random_mover(engine, chess.Board(), 2026)
    outcome = game.outcome(claim_draw=True)
    assert outcome is not None
    # Against random moves, two plies of search never lose.
    assert outcome.winner in (chess.WHITE, None), f"{outcome} {game.fen()}"


def test_go_limits(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["depth"] == 3 and info["pv"][0] in board.legal_moves
    info = engine.analyse(board, chess.engine.Limit(nodes=3000))
    # the budget spent in full, the last iteration's unfinished search reported too
    assert info["nodes"] == 3000 and info["pv"][0] in board.legal_moves
    info = engine.analyse(board, chess.engine.Limit(time=0.05))      # hardware milliseconds
    assert info["pv"][0] in board.legal_moves and info["time"] <= 0.05 * 1.2


def test_a_limit_of_nothing_is_refused():
    """A search's limit is positive: ``Limits(depth=0)`` once read as no depth limit at all."""
    for name in ("depth", "nodes", "movetime_ms", "wall_ms", "target_ms"):
        with pytest.raises(ValueError, match=f"a search's {name} must be positive, not 0"):
            Limits(**{name: 0})
    assert Limits(depth=1, nodes=1).depth == 1


def test_mate_in_one_is_reported_as_mate(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    info = engine.analyse(board, chess.engine.Limit(depth=2))
    assert info["score"].relative == chess.engine.Mate(1) and info["pv"][0] == chess.Move.from_uci("f3f7")


class RawUci:
    def __init__(self):
        self.proc = subprocess.Popen(ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def send(self, line):
        self.proc.stdin.write(line + "\n")

    def expect(self, start, timeout=60):
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            if line.startswith(start):
                return line, seen
        raise AssertionError(f"no {start!r} within {timeout} s; got {seen[-10:]}")

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=30)


def test_isready_and_stop_mid_search_and_bad_input():
    uci = RawUci()
    try:
        uci.send("uci")
        uci.expect("uciok")
        uci.send("isready")
        uci.expect("readyok", timeout=120)
        uci.send("position startpos moves e2e4 e7e5")
        uci.send("go infinite")
        uci.expect("info depth 3", timeout=120)
        start = time.monotonic()
        uci.send("isready")
        uci.expect("readyok", timeout=5)
        assert time.monotonic() - start < 5
        uci.send("stop")
        best, _ = uci.expect("bestmove", timeout=30)
        game = chess.Board()
        game.push_uci("e2e4"), game.push_uci("e7e5")
        assert chess.Move.from_uci(best.split()[1]) in game.legal_moves
        for bad in ("position fen this is not a fen", "position startpos moves e2e5",
                    "position fen 8/8/8/8/8/8/8/8 w - - 0 1", "go depth x", "frobnicate",
                    "setoption name KnowledgeWithout value kingz", "setoption name Knowledge value wisdom",
                    "setoption name KnowledgeWeights value king-safety=-1"):
            uci.send(bad)
            line, _ = uci.expect("info string")
            assert line, bad
        uci.send("go depth 1")                  # the position is still the one set last
        best, _ = uci.expect("bestmove")
        assert chess.Move.from_uci(best.split()[1]) in game.legal_moves
        # A limit below its least is told and raised to it: depth 0 is no search without end.
        for go, told, deepest in (("go depth 0", "go depth 0: less than 1, the least; searching with depth 1", 1),
                                  ("go nodes -5", "go nodes -5: less than 1, the least; searching with nodes 1", 1),
                                  ("go mate 0", "go mate 0: less than 1, the least; searching with mate 1", 1)):
            uci.send(go)
            line, _ = uci.expect("info string")
            assert line == f"info string {told}", go
            best, seen = uci.expect("bestmove", timeout=30)
            assert chess.Move.from_uci(best.split()[1]) in game.legal_moves, go
            depths = [int(text.split()[2]) for text in seen if text.startswith("info depth")]
            assert depths and max(depths) <= deepest, (go, seen)
    finally:
        uci.close()


def test_time_budget():
    assert time_budget_ms(chess.WHITE, {"wtime": 60000, "btime": 1000}, 30) == pytest.approx(60000 / 30 - 30)
    budget = time_budget_ms(chess.BLACK, {"wtime": 60000, "btime": 1000, "binc": 100}, 30)
    assert budget == pytest.approx(1000 / 30 + 75 - 30)
    assert time_budget_ms(chess.WHITE, {"wtime": 50}, 30) == 10.0
    assert time_budget_ms(chess.WHITE, {"depth": 3}, 30) is None


def test_stability_spends_more_when_the_search_is_unsettled():
    """The share of its target time a search spends: more after a change of best move or a
    falling score, less when one move has stood four iterations."""
    e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")

    def iterations(*steps):
        return [Iteration(depth, score, 0, 0, 0, 0, 0.0, 0.0, [move]) for depth, (move, score) in enumerate(steps, 1)]

    assert stability(iterations((e4, 20))) == 1.0
    assert stability(iterations((e4, 20), (e4, 25))) == 1.0
    assert stability(iterations((e4, 20), (d4, 25))) == pytest.approx(1.6)
    assert stability(iterations((e4, 20), (d4, -40))) == pytest.approx(1.6 * 1.4)
    assert stability(iterations((e4, 20), (e4, 22), (e4, 18), (e4, 21))) == pytest.approx(0.6)
    assert stability(iterations((e4, 20), (e4, 22), (e4, 18), (e4, -30))) == pytest.approx(1.4)


def test_score_text():
    assert score_text(31999) == "mate 1" and score_text(-31998) == "mate -1" and score_text(-35) == "cp -35"


@pytest.mark.parametrize("fen, moves", [
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2),
    ("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 2),
])
def test_analyze_finds_mate_in_two(capsys, fen, moves):
    assert main(["analyze", fen, "--depth", str(2 * moves - 1)]) == 0
    out = capsys.readouterr().out
    assert f"score mate {moves}" in out, out


def test_analyze_explains_the_root_and_searches_it_from_the_host(capsys):
    """``--explain``: the root analysis and (root knowledge) the recognizers' patterns; ``--root
    host``: the host's root loop finds the same mate."""
    fen = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1"
    assert main(["analyze", fen, "--depth", "3", "--explain", "--root", "host", "--knowledge", "root"]) == 0
    out = capsys.readouterr().out
    assert "analysis: phase 0.83" in out and "analysis: Black aims at:" in out, out
    assert "oracle: recognizer 0: pawn-structure" in out and "score mate 2" in out, out
    assert re.search(r"oracle: root knowledge, .* king-safety \([\d.]+, x[\d.]+\)", out), out     # weighed


def test_analyze_explains_an_antichess_root(capsys):
    """An antichess root: the Oracle's antichess choice, the race's recognizer near the end, and
    no chess analysis (no shelters, no castling in antichess)."""
    assert main(["analyze", "8/5ppp/8/8/8/8/PPN5/K6k w - - 0 1", "--variant", "antichess", "--depth", "3",
                 "--explain"]) == 0
    out = capsys.readouterr().out
    assert "oracle: root knowledge, antichess: antichess-material (1.00), antichess-mobility" in out, out
    assert "pieces-left" in out and "analysis:" not in out and "bestmove " in out, out


def test_a_port_without_a_board_is_reported_and_the_engine_keeps_answering():
    import os
    import pty
    master, slave = pty.openpty()
    proc = subprocess.Popen(ENGINE + ["--port", os.ttyname(slave)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        out, _ = proc.communicate("uci\nposition startpos\ngo depth 1\nisready\nquit\n", timeout=120)
    finally:
        os.close(master)
        os.close(slave)
    lines = out.splitlines()
    assert any(line.startswith("info string the board failed") for line in lines), lines
    assert "bestmove 0000" in lines and "readyok" in lines


def test_play_in_the_terminal():
    proc = subprocess.run([sys.executable, "-m", "host.cli", "play", "--movetime", "2"], input="e4\nxx\nquit\n",
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "suprem plays" in proc.stdout and "not a legal move here: xx" in proc.stdout
    # antichess: after 1. e3 b5 the machine must take (Bxb5), after 2... c6 again (Bxc6); then a
    # move of Black's that is no capture, while Black has one, is refused
    proc = subprocess.run([sys.executable, "-m", "host.cli", "play", "--movetime", "2", "--variant", "antichess",
                           "--color", "black", "--fen", "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1"],
                          input="b5\nc6\nh6\nquit\n", capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "suprem plays Bxb5" in proc.stdout and "suprem plays Bxc6" in proc.stdout
    assert "not a legal move here: h6" in proc.stdout


def _legal(game, line):
    return chess.Move.from_uci(line.split()[1]) in game.legal_moves


def test_go_while_searching_stops_the_running_search_and_every_go_is_answered():
    uci = RawUci()
    try:
        uci.send("uci")
        uci.expect("uciok")
        uci.send("position startpos moves e2e4")
        uci.send("go infinite")
        uci.expect("info depth 2", timeout=120)
        uci.send("go depth 2")                 # a protocol error: the running search is stopped first
        note, _ = uci.expect("info string go while a search runs", timeout=10)
        first, _ = uci.expect("bestmove", timeout=30)
        second, seen = uci.expect("bestmove", timeout=60)
        assert any(line.startswith("info depth 2") for line in seen)
        game = chess.Board()
        game.push_uci("e2e4")
        assert _legal(game, first) and _legal(game, second)
        for _ in range(2):                     # later commands are still answered
            uci.send("isready")
            uci.expect("readyok", timeout=10)
            uci.send("go depth 1")
            line, _ = uci.expect("bestmove", timeout=30)
            assert _legal(game, line)
    finally:
        uci.close()


def test_stop_at_once_answers_promptly_with_a_legal_move():
    uci = RawUci()
    try:
        uci.send("isready")
        uci.expect("readyok", timeout=120)
        fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
        uci.send(f"position fen {fen}")
        start = time.monotonic()
        uci.send("go infinite")
        uci.send("stop")
        line, _ = uci.expect("bestmove", timeout=30)
        assert time.monotonic() - start < 10
        assert _legal(chess.Board(fen), line)
    finally:
        uci.close()


def test_debug_register_and_unknown_tokens():
    uci = RawUci()
    try:
        uci.send("register later")             # nothing to register: no answer, nothing changes
        uci.send("isready")
        _, seen = uci.expect("readyok", timeout=120)
        assert not any("register" in line for line in seen)
        uci.send("position startpos")
        uci.send("go depth 2")
        _, quiet = uci.expect("bestmove", timeout=60)
        assert not any(line.startswith("info string depth") for line in quiet)
        uci.send("joho debug on")               # UCI: unknown tokens skipped, the rest parsed
        uci.send("go depth 2")
        _, loud = uci.expect("bestmove", timeout=60)
        assert any(line.startswith("info string depth 2: wall") for line in loud)
        uci.send("debug off")
        uci.send("go depth 2 frobnicate")       # an unknown token inside go is ignored
        _, quiet = uci.expect("bestmove", timeout=60)
        assert not any(line.startswith("info string depth") for line in quiet)
        assert any(line.startswith("info depth 2") for line in quiet)
    finally:
        uci.close()


def test_searchmoves_through_python_chess(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    mate = chess.Move.from_uci("f3f7")
    others = [chess.Move.from_uci(m) for m in ("g1e2", "b1c3", "d2d3")]
    info = engine.analyse(board, chess.engine.Limit(depth=3), root_moves=others)
    assert info["pv"][0] in others and info["score"].relative.score() is not None
    info = engine.analyse(board, chess.engine.Limit(depth=2), root_moves=others + [mate])
    assert info["pv"][0] == mate and info["score"].relative == chess.engine.Mate(1)
    result = engine.play(board, chess.engine.Limit(depth=2), root_moves=[others[1]])
    assert result.move == others[1]


def test_the_root_loop_and_knowledge_options_through_python_chess(engine):
    """``RootLoop``: the host searches the root move by move; ``Knowledge``: the Oracle's
    knowledge (a combo); ``KnowledgeWithout``: pattern families left out (a string, checked);
    ``KnowledgeWeights``: weights in place of the fitted ones (a string, checked); the mate is
    found the same with all."""
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    assert "RootLoop" in engine.options
    assert engine.options["Knowledge"].var == ["root", "material", "phase"]
    assert engine.options["Knowledge"].default == "root"
    assert engine.options["KnowledgeWithout"].type == "string"
    assert engine.options["KnowledgeWeights"].type == "string"
    engine.configure({"RootLoop": True, "Knowledge": "root", "KnowledgeWithout": "king,pawns",
                      "KnowledgeWeights": "bishop-pair=0,development=0.5"})
    try:
        engine.protocol.loop.call_soon_threadsafe(engine.protocol.debug, True)
        with engine.analysis(board, chess.engine.Limit(depth=3)) as analysis:
            infos = list(analysis)
        info = {k: v for i in infos for k, v in i.items()}
        assert info["pv"][0] == chess.Move.from_uci("f3f7") and info["score"].relative == chess.engine.Mate(1)
        said = [i["string"] for i in infos if "string" in i]
        assert any(text.startswith("oracle: root knowledge without king, pawns, ") for text in said), said
        assert not any("king-safety" in text or "pawn-structure" in text for text in said)
        assert "oracle: left out bishop-pair: weighs 0 against the fitted tables" in said, said
        assert any(text.startswith("oracle: root knowledge") and "development (6.00, x0.5)" in text
                   for text in said), said
        assert engine.play(chess.Board(), chess.engine.Limit(nodes=3000)).move in chess.Board().legal_moves
    finally:
        engine.protocol.loop.call_soon_threadsafe(engine.protocol.debug, False)
        engine.configure({"RootLoop": False, "Knowledge": "material", "KnowledgeWithout": "", "KnowledgeWeights": ""})


def test_pondering_through_python_chess():
    """python-chess's play(ponder=True): after each bestmove it sends the expected reply and
    ``go ponder``; the next play() sends ``ponderhit`` when the reply was played, ``stop`` when not."""
    with chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=120) as uci:
        assert "Ponder" in uci.options
        game, rng = chess.Board(), random.Random(3)
        pondered = hits = 0
        for _ in range(6):
            result = uci.play(game, chess.engine.Limit(depth=3), ponder=True, game="ponder-test")
            assert result.move in game.legal_moves
            game.push(result.move)
            if result.ponder is not None:
                pondered += 1
                assert result.ponder in game.legal_moves
            # play the expected reply half the time: ponderhit; otherwise another move: stop
            reply = result.ponder if result.ponder is not None and rng.random() < 0.5 else None
            reply = reply or next(m for m in game.legal_moves if m != result.ponder)
            hits += reply == result.ponder
            game.push(reply)
        assert pondered >= 4 and 1 <= hits < pondered
        info = uci.analyse(game, chess.engine.Limit(depth=2))   # still answering normally
        assert info["pv"][0] in game.legal_moves


def test_ponderhit_continues_under_the_clock_and_stop_ends_pondering():
    uci = RawUci()
    try:
        uci.send("isready")
        uci.expect("readyok", timeout=120)
        uci.send("position startpos moves e2e4 e7e5")
        uci.send("go ponder depth 3")
        uci.expect("info depth 3", timeout=120)
        time.sleep(1)
        assert uci.lines.empty(), "a pondering search answers only after ponderhit or stop"
        uci.send("ponderhit")
        line, _ = uci.expect("bestmove", timeout=30)
        game = chess.Board()
        game.push_uci("e2e4"), game.push_uci("e7e5")
        assert _legal(game, line)
        uci.send("go ponder")
        uci.expect("info depth 2", timeout=60)
        uci.send("stop")
        line, _ = uci.expect("bestmove", timeout=30)
        assert _legal(game, line)
        uci.send("ponderhit")                   # no pondering search: said so, nothing breaks
        uci.expect("info string ponderhit without", timeout=10)
    finally:
        uci.close()


def test_sim_wall_limit_bounds_a_long_movetime(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    engine.configure({"SimWallLimit": 1500})
    try:
        start = time.monotonic()
        result = engine.play(board, chess.engine.Limit(time=60))    # a hardware minute
        assert result.move in board.legal_moves
        assert time.monotonic() - start < 15
    finally:
        engine.configure({"SimWallLimit": 0})


def _polyglot():
    import shutil
    return shutil.which("polyglot") or shutil.which("polyglot", path="/usr/games")


@pytest.mark.skipif(not _polyglot(), reason="Debian's polyglot (UCI to xboard) is not installed")
def test_thinking_through_polyglot_has_no_noise_lines(tmp_path):
    """Under a real adapter that nobody here wrote: xboard's thinking output (``post``) carries
    the search lines, and no per-depth detail line."""
    ini = tmp_path / "suprem.ini"
    ini.write_text(f"[PolyGlot]\nEngineDir = {tmp_path}\nEngineCommand = {' '.join(ENGINE)}\nBook = false\n"
                   "[Engine]\n")
    proc = subprocess.Popen([_polyglot(), str(ini)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path), bufsize=1)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip()) for line in proc.stdout], daemon=True).start()
    out = []
    try:
        proc.stdin.write("xboard\nprotover 2\npost\nnew\nsd 3\ne2e4\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 180
        while not any(line.startswith("move ") for line in out) and time.monotonic() < deadline:
            try:
                out.append(lines.get(timeout=1))
            except queue.Empty:
                pass
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    thinking = [line for line in out if line[:1].isdigit()]
    assert any(line.split()[0] == "3" for line in thinking), out[-30:]     # sd 3: every depth shown
    # ply, score, time, nodes, then the principal variation: every line has one
    assert all(len(line.split()) >= 5 for line in thinking), thinking
    assert not any("wall" in line or "cycles" in line for line in thinking), thinking
    assert any(line.startswith("move ") for line in out), out[-30:]


def test_debug_register_and_unknown_tokens_through_python_chess(engine):
    """``debug on`` sent by python-chess's own client: the per-depth details and the Oracle's
    choice arrive as the info's ``string``; ``debug off`` takes them away again. ``register later`` and a line led by
    an unknown token (``joho debug on``), sent through the same client, leave the engine
    answering (``isready``) and the rest of the line obeyed."""
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    protocol = engine.protocol

    def send(line):
        protocol.loop.call_soon_threadsafe(protocol.send_line, line)

    def strings():
        with engine.analysis(board, chess.engine.Limit(depth=2)) as analysis:
            return [info["string"] for info in analysis if "string" in info]

    protocol.loop.call_soon_threadsafe(protocol.debug, True)
    try:
        said = strings()
        assert any(text.startswith("depth 2: wall") for text in said)
        assert any(text.startswith("oracle: material knowledge, middlegame: material-piece-square") for text in said)
    finally:
        protocol.loop.call_soon_threadsafe(protocol.debug, False)
    said = strings()
    assert not said, said
    send("register later")
    engine.ping()
    send("joho debug on")
    try:
        assert any(text.startswith("depth 2: wall") for text in strings())
    finally:
        send("debug off")
    engine.ping()


def test_a_root_of_chunkers_domain_is_answered_by_its_proof(engine):
    """A king-and-pawns race of CHUNKER's domain (White's pawns on a-c, Black's on f-h): CHUNKER
    proves the win and its first move is played, said in an ``info string``, without a board
    search; with ``Chunker`` off, the board searches it."""
    board = chess.Board("8/8/8/8/P4k2/8/7p/4K3 b - - 0 1")          # Black wins at once: h1=Q
    with engine.analysis(board, chess.engine.Limit(nodes=2000), info=chess.engine.INFO_ALL) as analysis:
        strings = [info["string"] for info in analysis if "string" in info]
    assert any(text.startswith("CHUNKER proved the win") for text in strings), strings
    assert analysis.info["pv"][0] == chess.Move.from_uci("h2h1q") and analysis.info["nodes"] == 0
    # Black's b-pawn (the domain mirrored) outruns White's h-pawn; a proof of Kb3 keeps the win
    # too, but the one played goes forward: the pawn's step, the win its schema sees in the
    # fewest moves.
    with engine.analysis(chess.Board("8/8/8/1K6/1p6/2k5/7P/8 b - - 0 1"), chess.engine.Limit(nodes=2000),
                         info=chess.engine.INFO_ALL) as analysis:
        strings = [info["string"] for info in analysis if "string" in info]
    assert any(text.startswith("CHUNKER proved the win") for text in strings), strings
    assert analysis.info["pv"][0] == chess.Move.from_uci("b4b3")
    engine.configure({"Chunker": False})
    try:
        with engine.analysis(board, chess.engine.Limit(nodes=2000), info=chess.engine.INFO_ALL) as analysis:
            strings = [info["string"] for info in analysis if "string" in info]
        assert not any("CHUNKER" in text for text in strings) and analysis.info["nodes"] > 0
    finally:
        engine.configure({"Chunker": True})


def test_king_and_pawn_against_king_is_judged_by_its_database(engine):
    """A won root of king and pawn against king is answered by the database's line, said in an
    ``info string``, without a board search (the machine once played e5 here, a draw), and so is
    a root whose capture leaves the ending won; a lost root is searched by the board among the
    moves that resist longest only; with ``KpkDatabase`` off the board searches the won root and
    plays e5."""
    board = chess.Board("8/8/4p3/3k4/8/4K3/8/8 b - - 3 66")
    with engine.analysis(board, chess.engine.Limit(nodes=2000), info=chess.engine.INFO_ALL) as analysis:
        strings = [info["string"] for info in analysis if "string" in info]
    assert "the king-and-pawn database: a win in 21 plies, its line to the safe promotion" in strings, strings
    assert analysis.info["pv"][0] == chess.Move.from_uci("d5e5") and analysis.info["nodes"] == 0
    assert analysis.info["score"].relative == chess.engine.Cp(900) and len(analysis.info["pv"]) == 21
    capture = chess.Board("8/8/4k3/8/3Kp3/8/4P3/8 w - - 0 1")     # Kxe4 leaves the ending won
    with engine.analysis(capture, chess.engine.Limit(nodes=2000), info=chess.engine.INFO_ALL) as analysis:
        strings = [info["string"] for info in analysis if "string" in info]
    assert ("the king-and-pawn database: a win in 21 plies after Kxe4, its line to the safe promotion"
            in strings), strings
    assert analysis.info["pv"][0] == chess.Move.from_uci("d4e4") and analysis.info["nodes"] == 0
    lost = chess.Board("8/8/8/4k3/8/4K3/4P3/8 b - - 0 1")        # White has the opposition
    result = engine.play(lost, chess.engine.Limit(nodes=2000), info=chess.engine.INFO_ALL)
    assert result.move in judge(lost).moves and result.info["nodes"] > 0
    engine.configure({"KpkDatabase": False})
    try:
        # a new game (ucinewgame: the table cleared), so that the earlier tests' entries do not
        # steer this search
        result = engine.play(board, chess.engine.Limit(nodes=10000), info=chess.engine.INFO_ALL, game=object())
        assert result.move == chess.Move.from_uci("e6e5") and result.info["nodes"] > 0
    finally:
        engine.configure({"KpkDatabase": True})


def test_a_capture_into_chunkers_domain_is_answered_by_its_proof(engine):
    """A root outside the domain (a black knight) whose capture enters it: after Kxb8 the a-pawn
    outruns the h-pawn, which CHUNKER proves; the capture is played without a board search. The
    knight guards a6, so the natural a6 loses the pawn."""
    board = chess.Board("1n6/2K5/7p/P7/8/8/8/4k3 w - - 0 1")
    with engine.analysis(board, chess.engine.Limit(nodes=2000), info=chess.engine.INFO_ALL) as analysis:
        strings = [info["string"] for info in analysis if "string" in info]
    assert any(text.startswith("CHUNKER proved the win after Kxb8, which enters its domain") for text in strings)
    assert analysis.info["pv"][0] == chess.Move.from_uci("c7b8") and analysis.info["nodes"] == 0
    board.turn = chess.BLACK                # Black's captures enter nothing: the board searches
    with engine.analysis(board, chess.engine.Limit(nodes=2000), info=chess.engine.INFO_ALL) as analysis:
        strings = [info["string"] for info in analysis if "string" in info]
    assert not any("CHUNKER" in text for text in strings) and analysis.info["nodes"] > 0


def test_python_chess_plays_a_whole_antichess_game_with_uci_variant(engine):
    """python-chess's client sets ``UCI_Variant`` from the board it is given: the engine plays
    every move of an antichess game against a random mover, each legal in antichess (a capture
    when one exists), to the game's end."""
    game = play_against_a_random_mover(engine, chess.variant.AntichessBoard(), 18, max_plies=300)
    assert game.is_game_over(claim_draw=True)
    # ... and back to chess (the client sets the option again for a chess board)
    board = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    assert engine.play(board, chess.engine.Limit(depth=1)).move in board.legal_moves


def test_uci_variant_and_positions_illegal_in_it():
    uci = RawUci()
    try:
        uci.send("uci")
        line, _ = uci.expect("option name UCI_Variant")
        assert "var chess" in line and "var antichess" in line
        uci.expect("uciok")
        uci.send("setoption name UCI_Variant value antichess")
        uci.send("position startpos moves e2e4 b7b5")           # Bxb5 is now compulsory
        for bad in ("position startpos moves e2e4 b7b5 e4e5",
                    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                    "setoption name UCI_Variant value atomic"):
            uci.send(bad)
            line, _ = uci.expect("info string")
            assert line, bad
        uci.send("go depth 1")
        best, _ = uci.expect("bestmove", timeout=120)
        assert best.split()[1] == "f1b5"
    finally:
        uci.close()
