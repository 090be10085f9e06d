"""The engines the benchmarks measure the machine against, started as UCI engines through
python-chess: the machine itself (``suprem uci`` on a simulated board), sunfish (the PyPI
package, pinned in ``benchmarks/requirements-peers.txt``: ``.venv/bin/pip install --no-deps -r
benchmarks/requirements-peers.txt`` — sunfish pins python-chess 1.9.4 for its terminal UI,
which conflicts with ours, but plays UCI without it), Stockfish (Debian's package:
``apt-get install stockfish``; optionally weakened with ``UCI_LimitStrength``) and, for
antichess, Fairy-Stockfish (``apt-get install fairy-stockfish``; python-chess's client sets its
``UCI_Variant`` from the board). None of them is needed by the tests.

Where a search has a node budget, how fast sunfish runs changes none of its moves, only how
long a match takes: there sunfish runs on PyPy when Debian's ``pypy3`` is installed (``apt-get
install pypy3``; the same PyPI package, about 2.5 times faster: BENCHMARKS.md, 2026-11-29
sixth), else on the project's CPython. A comparison of wall time (``benchmarks.simspeed``) asks
for the CPython that ``pip`` installed it for, as a user runs it.
"""

import argparse
import importlib.util
import shutil
import sys
from pathlib import Path

import chess.engine

from hdl.search.features import SearchFeatures
from host.library import not_leavable, parse_weights
from host.oracle import KNOWLEDGE

from .provenance import ROOT

__all__ = ["ENGINES", "FASTEST", "open_engine", "engine_command", "machine_options", "ROOTS", "add_engine_arguments",
           "chosen_engines", "open_chosen", "pattern_families"]

ENGINES = ("suprem", "sunfish", "stockfish", "fairy-stockfish")
#: The chess engines the benchmarks run by default (Fairy-Stockfish is the antichess peer).
CHESS_ENGINES = ENGINES[:3]


def _beside_python(name):
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


#: ``engine_command``'s ``python`` for sunfish: PyPy where installed, else the project's CPython.
FASTEST = "fastest"


def engine_command(name, python=FASTEST):
    """The command line of an engine, or None when it is not installed. ``python``: for sunfish,
    the interpreter that runs it — ``FASTEST`` (PyPy if ``pypy3`` is installed), or None for its
    own command (the CPython it was installed for)."""
    if name == "suprem":
        return [sys.executable, "-m", "host.cli", "uci"]
    if name == "sunfish":
        found = _beside_python("sunfish-uci")
        if not found:
            return None
        module = importlib.util.find_spec("sunfish")
        pypy = shutil.which("pypy3") if python == FASTEST else None
        return [pypy, module.origin] if pypy and module else [found]
    if name in ("stockfish", "fairy-stockfish"):
        found = shutil.which(name) or shutil.which(name, path="/usr/games")
        return [found] if found else None
    raise ValueError(f"no engine {name!r} (there are {', '.join(ENGINES)})")


def open_engine(name, elo=None, python=FASTEST):
    """A started ``chess.engine.SimpleEngine``; ``elo`` weakens Stockfish (UCI_LimitStrength),
    ``python`` is :func:`engine_command`'s. A missing engine is a clear error naming how to
    install it. Where the machine's CHUNKER libraries are not built, it says so."""
    command = engine_command(name, python)
    if name == "suprem" and command is not None:
        _warn_unbuilt()
    if command is None:
        how = {"sunfish": "pip install --no-deps -r benchmarks/requirements-peers.txt",
               "stockfish": "apt-get install stockfish", "fairy-stockfish": "apt-get install fairy-stockfish"}[name]
        raise SystemExit(f"{name} is not installed ({how})")
    # The machine runs the code this process imported (``python -m`` finds it in the current
    # directory first), whatever directory the benchmark was started from.
    where = {"cwd": ROOT} if name == "suprem" else {}
    engine = chess.engine.SimpleEngine.popen_uci(command, timeout=600, **where)
    if elo is not None:
        if "UCI_LimitStrength" not in engine.options:
            engine.quit()
            raise SystemExit(f"{name} cannot limit its strength (no UCI_LimitStrength option)")
        engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo})
    return engine


def _warn_unbuilt():
    """Say where the machine's CHUNKER hand-off lacks libraries, so that games which reach
    CHUNKER's domain are known to differ from a prepared machine's."""
    from host.driver import chunker_unbuilt
    if (note := chunker_unbuilt()) is not None:
        print(f"benchmarks: the machine's {note}", file=sys.stderr, flush=True)


#: Who searches the root (``--root``): the board itself, or the host's root loop (host/root.py).
ROOTS = ("board", "host")


def machine_options(features, root=None, knowledge=None, without=(), weights=None):
    """The machine's UCI options for a feature set (a ``SearchFeatures``) and, if given, who
    searches the root (one of ``ROOTS``), the Oracle's knowledge (``host.oracle.KNOWLEDGE``),
    the pattern families it leaves out (``host.library.FAMILIES``) and the weights that replace
    the fitted ones (``{pattern: weight}``, :func:`host.library.parse_weights`)."""
    options = {name: bool(on) for name, on in features.fields().items()}
    if root is not None:
        options["RootLoop"] = root == "host"
    if knowledge is not None:
        options["Knowledge"] = knowledge
    if without:
        options["KnowledgeWithout"] = ",".join(without)
    if weights:
        options["KnowledgeWeights"] = ",".join(f"{name}={weight!r}" for name, weight in weights.items())
    return options


def pattern_families(text):
    """The pattern families, or single patterns by library name, a comma-separated argument names
    (an argparse type)."""
    named = tuple(f.strip() for f in text.split(",") if f.strip())
    if problem := not_leavable(named):
        raise argparse.ArgumentTypeError(problem)
    return named


def pattern_weights(text):
    """``{pattern: weight}`` from ``name=weight,...`` (an argparse type; :func:`host.library.parse_weights`)."""
    try:
        return parse_weights(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_engine_arguments(parser):
    """A benchmark's arguments for running several engines on the same positions: which engines
    (``--engines``, by default the chess engines), and the machine's search features, root, knowledge and
    the families its root knowledge leaves out."""
    parser.add_argument("--engines", default=",".join(CHESS_ENGINES))
    parser.add_argument("--features", type=SearchFeatures.parse, default=SearchFeatures(),
                        help="the machine's search features (all)")
    parser.add_argument("--root", choices=ROOTS, help="who searches the machine's root (the engine's default)")
    parser.add_argument("--knowledge", choices=KNOWLEDGE, help="the machine's Oracle knowledge (the default)")
    parser.add_argument("--without", type=pattern_families, default=(),
                        help="pattern families, or patterns by library name, the machine's root knowledge leaves out")
    parser.add_argument("--weights", type=pattern_weights, default={},
                        help="name=weight,...: weights in place of the fitted ones for the machine's root knowledge")


def chosen_engines(parser, args):
    """The engines ``--engines`` names, in order (a parser error for an unknown one)."""
    if args.without and args.knowledge != "root":
        parser.error("--without needs --knowledge root")
    if args.weights and args.knowledge != "root":
        parser.error("--weights needs --knowledge root")
    names = args.engines.split(",")
    for name in names:
        if name not in ENGINES:
            parser.error(f"no engine {name} (there are {', '.join(ENGINES)})")
    return names


def open_chosen(name, args):
    """:func:`open_engine`, the machine configured as ``add_engine_arguments``' arguments say."""
    engine = open_engine(name)
    if name == "suprem":
        engine.configure(machine_options(args.features, args.root, args.knowledge, args.without, args.weights))
    return engine
