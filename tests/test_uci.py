"""``suprem uci`` on the simulated board, driven by python-chess's UCI client and by raw
protocol lines; ``suprem analyze`` on mates."""

import queue
import random
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import pytest

from host.cli import main
from host.driver import score_text
from host.uci import time_budget_ms

ENGINE = [sys.executable, "-m", "host.cli", "uci"]


@pytest.fixture(scope="module")
def engine():
    with chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=120) as uci:
        yield uci


def test_python_chess_plays_a_whole_game_against_a_random_mover(engine):
    rng = random.Random(2026)
    game = chess.Board()
    while not game.is_game_over(claim_draw=True):
        if game.turn == chess.WHITE:
            result = engine.play(game, chess.engine.Limit(depth=2))
            assert result.move in game.legal_moves, f"{result.move} in {game.fen()}"
            game.push(result.move)
        else:
            game.push(rng.choice(list(game.legal_moves)))
    outcome = game.outcome(claim_draw=True)
    assert outcome is not None
    # Against random moves, two plies of search never lose.
    assert outcome.winner in (chess.WHITE, None), f"{outcome} {game.fen()}"


def test_go_limits(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["depth"] == 3 and info["pv"][0] in board.legal_moves
    info = engine.analyse(board, chess.engine.Limit(nodes=3000))
    assert info["nodes"] <= 3000 * 1.1 + 100 and info["pv"][0] in board.legal_moves
    info = engine.analyse(board, chess.engine.Limit(time=0.05))      # hardware milliseconds
    assert info["pv"][0] in board.legal_moves and info["time"] <= 0.05 * 1.2


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
                    "position fen 8/8/8/8/8/8/8/8 w - - 0 1", "go depth x", "frobnicate"):
            uci.send(bad)
            line, _ = uci.expect("info string")
            assert line, bad
        uci.send("go depth 1")                  # the position is still the one set last
        best, _ = uci.expect("bestmove")
        assert chess.Move.from_uci(best.split()[1]) in game.legal_moves
    finally:
        uci.close()


def test_time_budget():
    assert time_budget_ms(chess.WHITE, {"wtime": 60000, "btime": 1000}, 30) == pytest.approx(60000 / 30 - 30)
    assert time_budget_ms(chess.BLACK, {"wtime": 60000, "btime": 1000, "binc": 100}, 30) == pytest.approx(1000 / 30 + 75 - 30)
    assert time_budget_ms(chess.WHITE, {"wtime": 50}, 30) == 10.0
    assert time_budget_ms(chess.WHITE, {"depth": 3}, 30) is None


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
