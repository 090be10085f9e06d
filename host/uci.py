"""``suprem uci``: the machine as a UCI engine.

One thread reads commands; searches run in another, so ``isready`` and ``stop`` are answered
while the machine searches. The board is opened (a simulated one started) as the engine
starts; the first ``isready`` is answered once it answers. (The simulated board's first
build takes minutes: run the README's main command or ``suprem sim`` once before a GUI.) Bad input (an unknown command, a malformed FEN, an impossible
position, an illegal move in ``position ... moves``) is answered with an ``info string`` and
changes nothing; a board that stops answering is reported the same way and the engine keeps
running (``bestmove 0000`` ends a search that could not run).
"""

import queue
import sys
import threading

import chess

from sim.models.position import PositionError, validate_board

from .driver import Limits, SearchDriver, score_text
from .link import LinkError

__all__ = ["UciEngine", "time_budget_ms"]

NAME = "SUPREM"
AUTHOR = "the SUPREM team"


def time_budget_ms(turn, args, overhead_ms):
    """Milliseconds to spend on a move under ``go wtime/btime/winc/binc/movestogo``."""
    left = args.get("wtime" if turn == chess.WHITE else "btime")
    if left is None:
        return None
    increment = args.get("winc" if turn == chess.WHITE else "binc", 0)
    moves = args.get("movestogo") or 30
    budget = left / moves + 0.75 * increment - overhead_ms
    return max(10.0, min(budget, left * 0.5 - overhead_ms))


class UciEngine:
    """Speaks UCI on ``out`` for commands given to :meth:`handle` (``run`` reads stdin)."""

    def __init__(self, board_factory, out=sys.stdout):
        self._board_factory = board_factory
        self._out = out
        self._lock = threading.Lock()
        self._driver = None
        self._game = chess.Board()
        self._jobs = queue.Queue()
        self._searching = threading.Event()
        self._stop = threading.Event()          # the current search's stop request
        self._worker = threading.Thread(target=self._work, daemon=True)
        self._worker.start()
        self._jobs.put(("open",))       # connect (or start the simulated board) at once
        self.options = {"Hash": 1, "Threads": 1, "Move Overhead": 30}

    def send(self, line):
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    # --- the command loop ---------------------------------------------------------------------
    def run(self, lines=sys.stdin):
        for line in lines:
            if not self.handle(line):
                break
        self._stop_search()
        self._jobs.put(None)
        self._worker.join(timeout=10)
        self._drop_board()

    def handle(self, line):
        """One command line; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "uci":
            self.send(f"id name {NAME}")
            self.send(f"id author {AUTHOR}")
            self.send("option name Hash type spin default 1 min 1 max 1")
            self.send("option name Threads type spin default 1 min 1 max 1")
            self.send("option name Move Overhead type spin default 30 min 0 max 5000")
            self.send("uciok")
        elif command == "isready":
            if self._searching.is_set():
                self.send("readyok")            # at once, mid-search
            else:
                self._jobs.put(("ready",))      # after the commands before it
        elif command == "setoption":
            self._set_option(args)
        elif command == "ucinewgame":
            self._jobs.put(("newgame",))
        elif command == "position":
            self._position(args)
        elif command == "go":
            self._go(args)
        elif command == "stop":
            self._stop_search()
        elif command == "quit":
            return False
        elif command in ("debug", "register", "ponderhit"):
            pass
        else:
            self.send(f"info string unknown command: {line.strip()}")
        return True

    def _set_option(self, args):
        text = " ".join(args)
        if not text.startswith("name ") or " value " not in text:
            self.send(f"info string malformed setoption: {text}")
            return
        name, value = text[5:].split(" value ", 1)
        if name not in self.options:
            self.send(f"info string no option {name}")
            return
        try:
            number = int(value)
        except ValueError:
            self.send(f"info string option {name} needs a number, not {value}")
            return
        if name in ("Hash", "Threads") and number != 1:
            self.send(f"info string {name} is fixed by the hardware ({name == 'Hash' and 'a 4,096-entry table in block RAM' or 'one searcher'}); kept at 1")
            number = 1
        self.options[name] = max(0, number)

    def _position(self, args):
        if not args:
            self.send("info string position needs startpos or fen")
            return
        try:
            if args[0] == "startpos":
                game, rest = chess.Board(), args[1:]
            elif args[0] == "fen":
                fen_words = []
                rest = args[1:]
                while rest and rest[0] != "moves":
                    fen_words.append(rest.pop(0))
                game = chess.Board(" ".join(fen_words))
            else:
                self.send(f"info string position needs startpos or fen, not {args[0]}")
                return
            validate_board(game)
            if rest:
                if rest[0] != "moves":
                    self.send(f"info string unexpected {rest[0]} in position")
                    return
                for text in rest[1:]:
                    move = chess.Move.from_uci(text)
                    if move not in game.legal_moves:
                        raise ValueError(f"illegal move {text} in {game.fen()}")
                    game.push(move)
        except (ValueError, PositionError) as error:
            self.send(f"info string position not changed: {error}")
            return
        self._jobs.put(("position", game))

    def _go(self, args):
        parsed, infinite, i = {}, False, 0
        while i < len(args):
            word = args[i]
            if word == "infinite":
                infinite = True
                i += 1
            elif word in ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate"):
                try:
                    parsed[word] = int(args[i + 1])
                except (IndexError, ValueError):
                    self.send(f"info string go {word} needs a number")
                    return
                i += 2
            else:
                i += 1                      # searchmoves, ponder: not supported, ignored
        self._stop = threading.Event()
        self._searching.set()
        self._jobs.put(("go", parsed, infinite, self._stop))

    def _stop_search(self):
        self._stop.set()

    # --- the worker: everything that talks to the board ----------------------------------------
    def _work(self):
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                if job[0] == "open":
                    self._ensure_board()
                elif job[0] == "ready":
                    self.send("readyok")
                elif job[0] == "newgame":
                    if self._ensure_board():
                        self._driver.board.clear_hash()
                elif job[0] == "position":
                    self._game = job[1]
                elif job[0] == "go":
                    self._search(*job[1:])
            except (LinkError, OSError, RuntimeError) as error:
                self.send(f"info string the board failed: {error}")
                self._drop_board()
                if job[0] == "go":
                    self.send("bestmove 0000")
            finally:
                if job[0] == "go":
                    self._searching.clear()

    def _drop_board(self):
        if self._driver is not None:
            try:
                self._driver.board.client.close()
            except OSError:
                pass
        self._driver = None

    def _ensure_board(self):
        if self._driver is None:
            self._driver = SearchDriver(self._board_factory())
        return True

    def _search(self, args, infinite, stop):
        self._ensure_board()
        game = self._game
        overhead = self.options["Move Overhead"]
        limits = Limits(depth=args.get("depth"), nodes=args.get("nodes"))
        if "mate" in args:
            limits.depth = min(63, 2 * args["mate"] - 1)
        if "movetime" in args:
            limits.movetime_ms = max(1, args["movetime"] - overhead)
        budget = time_budget_ms(game.turn, args, overhead)
        if budget is not None:
            limits.wall_ms = budget
            limits.movetime_ms = budget if limits.movetime_ms is None else min(limits.movetime_ms, budget)
        if infinite:
            limits = Limits(depth=limits.depth)
        legal = list(game.legal_moves)
        if not legal:
            self.send("info string no legal move")
            self.send("bestmove 0000")
            return

        def report(it):
            self.send(f"info depth {it.depth} score {score_text(it.score)} nodes {it.total_nodes} "
                      f"nps {it.nps()} time {int(it.hardware_ms)} pv {' '.join(m.uci() for m in it.pv)}")
            self.send(f"info string wall {int(it.wall_ms)} ms, {it.cycles} cycles")

        iterations = self._driver.analyse(game, limits, on_iteration=report, stop_event=stop)
        if infinite:                        # UCI: wait for stop before answering
            stop.wait()
        best = iterations[-1].pv[0] if iterations and iterations[-1].pv else legal[0]
        if best not in legal:
            best = legal[0]
        self.send(f"bestmove {best.uci()}")
