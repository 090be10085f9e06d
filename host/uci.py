"""``suprem uci``: the machine as a UCI engine.

One thread reads commands; searches run in another, so ``isready``, ``stop`` and
``ponderhit`` are answered while the machine searches. The board is opened (a simulated one
started) as the engine starts; the first ``isready`` is answered once it answers. (The
simulated board's first build takes minutes: run the README's main command or ``suprem sim``
once before a GUI.)

Every ``go`` gets exactly one ``bestmove``. A ``go`` while a search runs stops that search
first (it answers its ``bestmove``), then starts. ``go searchmoves`` searches only the moves
given; ``go ponder`` searches the position given (the expected reply made) until ``ponderhit``
(the search goes on under the go's clock, counted from then) or ``stop``; ``infinite`` and a
pondering search answer only once stopped (or after ``ponderhit``). ``bestmove`` names the
expected reply (``ponder``) when the principal variation has one. Each finished iteration is
an ``info depth ... nodes ... pv``; an iteration stopped before it found a better move is
searched all the same, and a last ``info nodes ... time`` before ``bestmove`` counts it, so the
nodes reported are the nodes spent (``go nodes N``: N).

Time is the board's hardware time (cycles at its clock): ``go movetime`` means what it means on
a real board, which on the simulated board takes far more wall time. ``SimWallLimit`` (ms, 0 =
none) bounds any search's wall time as well; under a clock (``wtime``/``btime``) wall time
is watched anyway, and the search aims at its share of the clock (``time_budget_ms``), spending
more when its best move changes or its score falls and less when one move stands (the driver's
``stability``), and stopping an iteration at three times the share at most (its best move
searched in full is played). The engine says so in an ``info string`` in its answer to ``uci`` (before
any search, where an adapter shows no thinking line for it).
Details per depth (wall time, cycles) and the Oracle's choice for the root (its patterns, their
units, what was left out) go out as ``info string`` only after ``debug on``.

``UCI_Variant`` (``chess`` or ``antichess``, as Fairy-Stockfish and python-chess's UCI client
spell it) sets the rules of the positions that follow: ``position startpos`` is the variant's
starting position, a FEN is read in the variant and refused if it is impossible there
(antichess: castling rights, or a side to move whose opponent has no pieces left).

Bad input (a malformed FEN, an impossible position, an illegal move in ``position ... moves``,
a malformed number) is answered with an ``info string`` and changes nothing. Unknown tokens
before a command are skipped (UCI: ``joho debug on`` is ``debug on``); a line with no command
is answered with an ``info string``. ``register`` needs nothing: this engine is free. A board
that stops answering is reported the same way and the engine keeps running (``bestmove 0000``
ends a search that could not run).
"""

import queue
import sys
import threading

import chess

from hdl.search.features import SearchFeatures
from models.position import VARIANTS, PositionError, new_board, validate_board

from .driver import Limits, SearchDriver, score_text
from .library import not_leavable, parse_weights
from .link import LinkError
from .oracle import KNOWLEDGE, Oracle
from .pattern_weights import WEIGHTS

__all__ = ["UciEngine", "time_budget_ms"]

NAME = "SUPREM"
AUTHOR = "the SUPREM team"


COMMANDS = ("uci", "debug", "isready", "setoption", "register", "ucinewgame", "position", "go", "stop",
            "ponderhit", "quit")


def time_budget_ms(turn, args, overhead_ms):
    """Milliseconds to spend on a move under ``go wtime/btime/winc/binc/movestogo``."""
    left = args.get("wtime" if turn == chess.WHITE else "btime")
    if left is None:
        return None
    increment = args.get("winc" if turn == chess.WHITE else "binc", 0)
    moves = args.get("movestogo") or 30
    budget = left / moves + 0.75 * increment - overhead_ms
    return max(10.0, min(budget, left * 0.5 - overhead_ms))


class _Search:
    """One ``go``: its arguments, and the events the command thread sets while it runs."""

    def __init__(self, args, infinite, ponder, root_moves):
        self.args, self.infinite, self.pondering, self.root_moves = args, infinite, ponder, root_moves
        self.stop = threading.Event()           # stop: answer now
        self.changed = threading.Event()        # stop or ponderhit came


class UciEngine:
    """Speaks UCI on ``out`` for commands given to :meth:`handle` (``run`` reads stdin)."""

    def __init__(self, machine_factory, out=sys.stdout):
        self._machine_factory = machine_factory
        self._out = out
        self._lock = threading.Lock()
        self._driver = None
        self._game = chess.Board()
        self._jobs = queue.Queue()
        self._searches = []                     # the go's queued or running, oldest first
        self.debug = False
        self._worker = threading.Thread(target=self._work, daemon=True)
        self._worker.start()
        self._jobs.put(("open",))       # connect (or start the simulated board) at once
        self.options = {"Hash": 1, "Threads": 1, "Move Overhead": 30, "SimWallLimit": 0, "Ponder": False,
                        "RootLoop": SearchDriver.root_loop, "Chunker": SearchDriver.chunker,
                        "KpkDatabase": SearchDriver.kpk, "Knowledge": KNOWLEDGE[0], "KnowledgeWithout": "",
                        "KnowledgeWeights": "",
                        "UCI_Variant": "chess",
                        **SearchFeatures().fields()}
        # the options that take one of a list
        self._combos = {"Knowledge": KNOWLEDGE, "UCI_Variant": tuple(VARIANTS)}
        self._checks = {"Ponder", "RootLoop", "Chunker", "KpkDatabase", *SearchFeatures.names()}  # true or false

    def send(self, line):
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    # --- the command loop ---------------------------------------------------------------------
    def run(self, lines=sys.stdin):
        for line in lines:
            if not self.handle(line):
                break
        self._stop_searches()
        self._jobs.put(None)
        self._worker.join(timeout=10)
        self._drop_machine()

    def handle(self, line):
        """One command line; False after ``quit``."""
        words = line.split()
        skipped = 0
        while skipped < len(words) and words[skipped] not in COMMANDS:
            skipped += 1                        # UCI: skip unknown tokens, parse the rest
        if not words:
            return True
        if skipped == len(words):
            self.send(f"info string unknown command: {line.strip()}")
            return True
        command, args = words[skipped], words[skipped + 1:]
        if command == "uci":
            self.send(f"id name {NAME}")
            self.send(f"id author {AUTHOR}")
            self.send("option name Hash type spin default 1 min 1 max 1")
            self.send("option name Threads type spin default 1 min 1 max 1")
            self.send("option name Ponder type check default false")
            self.send("option name Move Overhead type spin default 30 min 0 max 5000")
            self.send("option name SimWallLimit type spin default 0 min 0 max 86400000")
            self.send(f"option name RootLoop type check default {'true' if SearchDriver.root_loop else 'false'}")
            self.send(f"option name Chunker type check default {'true' if SearchDriver.chunker else 'false'}")
            self.send(f"option name KpkDatabase type check default {'true' if SearchDriver.kpk else 'false'}")
            self.send(f"option name Knowledge type combo default {KNOWLEDGE[0]} "
                      + " ".join(f"var {kind}" for kind in KNOWLEDGE))
            self.send("option name KnowledgeWithout type string default <empty>")
            self.send("option name KnowledgeWeights type string default <empty>")
            self.send("option name UCI_Variant type combo default chess " + " ".join(f"var {v}" for v in VARIANTS))
            for name, on in SearchFeatures().fields().items():
                self.send(f"option name {name} type check default {'true' if on else 'false'}")
            self.send("info string time is the board's hardware time (its cycles at its clock; a simulated board "
                      "is far slower than a real one): SimWallLimit (ms) bounds wall time")
            self.send("uciok")
        elif command == "debug":
            if args[:1] in (["on"], ["off"]):
                self.debug = args[0] == "on"
            else:
                self.send("info string debug needs on or off")
        elif command == "isready":
            if self._busy():
                self.send("readyok")            # at once, mid-search
            else:
                self._jobs.put(("ready",))      # after the commands before it
        elif command == "setoption":
            self._set_option(args)
        elif command == "register":
            pass                                # nothing to register: no registration error was sent
        elif command == "ucinewgame":
            self._jobs.put(("newgame",))
        elif command == "position":
            self._position(args)
        elif command == "go":
            self._go(args)
        elif command == "stop":
            self._stop_searches()
        elif command == "ponderhit":
            self._ponderhit()
        elif command == "quit":
            return False
        return True

    def _busy(self):
        with self._lock:
            return bool(self._searches)

    def _set_option(self, args):
        text = " ".join(args)
        if not text.startswith("name "):
            self.send(f"info string malformed setoption: {text}")
            return
        body = text[5:]
        if body.endswith(" value"):             # an empty value (a string option cleared)
            body += " "
        name, _, value = body.partition(" value ")
        if name not in self.options:
            self.send(f"info string no option {name}")
            return
        if name in self._checks:
            if value.lower() not in ("true", "false"):
                self.send(f"info string option {name} is true or false, not {value}")
                return
            self.options[name] = value.lower() == "true"
            return
        if name == "KnowledgeWithout":         # pattern families or patterns root knowledge leaves out
            names = [] if value in ("", "<empty>") else [f.strip() for f in value.split(",")]
            if problem := not_leavable(names):
                self.send(f"info string option {name} (comma-separated): {problem}")
                return
            self.options[name] = ",".join(names)
            return
        if name == "KnowledgeWeights":         # pattern=weight,... in place of the fitted weights
            text = "" if value == "<empty>" else value
            try:
                parse_weights(text)
            except ValueError as error:
                self.send(f"info string option {name} (pattern=weight, comma-separated): {error}")
                return
            self.options[name] = text.strip()
            return
        if name in self._combos:
            if value not in self._combos[name]:
                self.send(f"info string option {name} is one of {', '.join(self._combos[name])}, not {value}")
                return
            self.options[name] = value
            return
        try:
            number = int(value)
        except ValueError:
            self.send(f"info string option {name} needs a number, not {value}")
            return
        if name in ("Hash", "Threads") and number != 1:
            fixed = "the table in block RAM" if name == "Hash" else "one searcher"
            self.send(f"info string {name} is fixed by the hardware ({fixed}); kept at 1")
            number = 1
        self.options[name] = max(0, number)

    def _position(self, args):
        if not args:
            self.send("info string position needs startpos or fen")
            return
        try:
            variant = self.options["UCI_Variant"]
            if args[0] == "startpos":
                game, rest = new_board(variant), args[1:]
            elif args[0] == "fen":
                fen_words = []
                rest = args[1:]
                while rest and rest[0] != "moves":
                    fen_words.append(rest.pop(0))
                game = new_board(variant, " ".join(fen_words))
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

    NUMBERS = ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate")
    #: The least value of each limit that has one: a ``go`` asking for less (``depth 0`` would
    #: otherwise read as no depth limit at all, a search without end) is told so and given it.
    LEAST = {"depth": 1, "nodes": 1, "movetime": 1, "movestogo": 1, "mate": 1}

    def _go(self, args):
        parsed, infinite, ponder, root_moves, i = {}, False, False, None, 0
        while i < len(args):
            word = args[i]
            if word == "infinite":
                infinite = True
            elif word == "ponder":
                ponder = True
            elif word == "searchmoves":
                root_moves = []
                while i + 1 < len(args) and args[i + 1] not in self.NUMBERS + ("infinite", "ponder"):
                    i += 1
                    try:
                        root_moves.append(chess.Move.from_uci(args[i]))
                    except ValueError:
                        self.send(f"info string go searchmoves: {args[i]} is not a move")
                        return
            elif word in self.NUMBERS:
                try:
                    parsed[word] = int(args[i + 1])
                except (IndexError, ValueError):
                    self.send(f"info string go {word} needs a number")
                    return
                if word in self.LEAST and parsed[word] < self.LEAST[word]:
                    self.send(f"info string go {word} {parsed[word]}: less than {self.LEAST[word]}, the least; "
                              f"searching with {word} {self.LEAST[word]}")
                    parsed[word] = self.LEAST[word]
                i += 1
            i += 1                              # anything else: an unknown token, ignored
        if self._busy():
            self.send("info string go while a search runs: that search is stopped first")
            self._stop_searches()
        search = _Search(parsed, infinite, ponder, root_moves)
        with self._lock:
            self._searches.append(search)
        self._jobs.put(("go", search))

    def _stop_searches(self):
        with self._lock:
            searches = list(self._searches)
        for search in searches:
            search.pondering = False            # a later ponderhit is not for it
            search.stop.set()
            search.changed.set()

    def _ponderhit(self):
        with self._lock:
            search = next((s for s in self._searches if s.pondering), None)
        if search is None:
            self.send("info string ponderhit without a pondering search")
            return
        search.pondering = False
        if self._driver is not None:
            self._driver.update_limits(self._limits(search))
        search.changed.set()

    # --- the worker: everything that talks to the board ----------------------------------------
    def _work(self):
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                if job[0] == "open":
                    self._ensure_machine()
                elif job[0] == "ready":
                    self.send("readyok")
                elif job[0] == "newgame":
                    if self._ensure_machine():
                        self._driver.machine.clear_hash()
                elif job[0] == "position":
                    self._game = job[1]
                elif job[0] == "go":
                    self._search(job[1])
            except (LinkError, OSError, RuntimeError) as error:
                self.send(f"info string the board failed: {error}")
                self._drop_machine()
                if job[0] == "go":
                    self._bestmove(job[1], "0000")
            finally:
                if job[0] == "go":
                    with self._lock:
                        if job[1] in self._searches:
                            self._searches.remove(job[1])

    def _bestmove(self, search, text):
        """Answer ``search``: it leaves the running searches first, so that a ``go`` the answer
        prompts is not taken for one during a search."""
        with self._lock:
            if search in self._searches:
                self._searches.remove(search)
        self.send(f"bestmove {text}")

    def _drop_machine(self):
        if self._driver is not None:
            try:
                self._driver.machine.client.close()
            except OSError:
                pass
        self._driver = None

    def _ensure_machine(self):
        if self._driver is None:
            self._driver = SearchDriver(self._machine_factory())
        return True

    def _limits(self, search):
        """The limits of a ``go`` (none while it ponders or is infinite)."""
        args, game = search.args, self._game
        if search.pondering or search.infinite:
            return Limits(depth=args.get("depth"))
        overhead = self.options["Move Overhead"]
        limits = Limits(depth=args.get("depth"), nodes=args.get("nodes"))
        if "mate" in args:
            limits.depth = min(63, 2 * args["mate"] - 1)
        if "movetime" in args:
            limits.movetime_ms = max(1, args["movetime"] - overhead)
        budget = time_budget_ms(game.turn, args, overhead)
        if budget is not None:              # aim at the budget; stop an iteration at most past it
            left = args.get("wtime" if game.turn == chess.WHITE else "btime")
            hard = max(budget, min(3 * budget, left * 0.5 - overhead))
            limits.target_ms = budget
            limits.wall_ms = hard
            limits.movetime_ms = hard if limits.movetime_ms is None else min(limits.movetime_ms, hard)
        if self.options["SimWallLimit"]:
            limits.wall_ms = min(limits.wall_ms or float("inf"), self.options["SimWallLimit"])
        return limits

    def _search(self, search):
        self._ensure_machine()
        game = self._game
        legal = list(game.legal_moves)
        if not legal:
            self.send("info string no legal move")
            self._bestmove(search, "0000")
            return
        if search.root_moves is not None and not any(m in legal for m in search.root_moves):
            self.send("info string go searchmoves: none of these moves is legal here; searching them all")
            search.root_moves = None

        told = []

        def report(it):
            if it.source:
                self.send(f"info string {it.source}")
            self.send(f"info depth {it.depth} score {score_text(it.score)} nodes {it.total_nodes} "
                      f"nps {it.nps()} time {int(it.hardware_ms)} pv {' '.join(m.uci() for m in it.pv)}")
            if self.debug and not it.source:
                if not told:                    # the Oracle's choice, once the search is under way
                    told.append(it)
                    for text in self._driver.allocation.explain():
                        self.send(f"info string oracle: {text}")
                self.send(f"info string depth {it.depth}: wall {int(it.wall_ms)} ms, {it.cycles} cycles")

        self._driver.features = SearchFeatures(**{name: self.options[name] for name in SearchFeatures.names()})
        self._driver.root_loop = self.options["RootLoop"]
        self._driver.chunker = self.options["Chunker"]
        self._driver.kpk = self.options["KpkDatabase"]
        knowledge = self.options["Knowledge"]
        without = tuple(self.options["KnowledgeWithout"].split(",")) if self.options["KnowledgeWithout"] else ()
        if knowledge != "root" and without:
            self.send(f"info string KnowledgeWithout applies to root knowledge only; {knowledge} has no families")
            without = ()
        changed = parse_weights(self.options["KnowledgeWeights"])
        if knowledge != "root" and changed:
            self.send(f"info string KnowledgeWeights applies to root knowledge only; {knowledge} weighs no patterns")
            changed = {}
        weights = {**WEIGHTS, **changed}
        oracle = self._driver.oracle
        if (oracle.knowledge, oracle.without, oracle.weights) != (knowledge, without, weights):
            self._driver.oracle = Oracle(self._driver.machine.eval_params, knowledge, without, weights)
        iterations = self._driver.analyse(game, self._limits(search), on_iteration=report, stop_event=search.stop,
                                          root_moves=search.root_moves)
        while (search.infinite or search.pondering) and not search.stop.is_set():
            search.changed.wait()               # UCI: no bestmove before stop (or ponderhit)
            search.changed.clear()
        nodes, cycles = self._driver.searched
        if nodes > (iterations[-1].total_nodes if iterations else 0):    # an iteration stopped unreported
            ms = cycles * 1000 / self._driver.clock_hz
            self.send(f"info nodes {nodes} nps {int(nodes * 1000 / ms) if ms else 0} time {int(ms)}")
        line = iterations[-1].pv if iterations else []
        best = line[0] if line and line[0] in legal else legal[0]
        after = game.copy()
        after.push(best)
        ponder = f" ponder {line[1].uci()}" if len(line) > 1 and line[1] in after.legal_moves else ""
        if self.debug and iterations:
            last = iterations[-1]
            self.send(f"info string {last.total_nodes} nodes, {last.total_cycles} cycles at "
                      f"{self._driver.clock_hz / 1e6:g} MHz, wall {int(last.wall_ms)} ms"
                      + ("" if last.complete else f"; depth {last.depth} stopped: its best move searched in full"))
        self._bestmove(search, f"{best.uci()}{ponder}")
