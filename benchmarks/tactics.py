"""Tactical test positions at fixed node budgets: how many each engine solves.

    python -m benchmarks.tactics [--file data/tactics-dev.epd ...] [--nodes 10000,100000]
                                 [--engines suprem,sunfish,stockfish] [--features SET]
                                 [--root board|host] [--knowledge root|material|phase]
                                 [--without FAMILY,...] [--weights PATTERN=W,...]

A position is solved when the engine's move, after a search of the budget (``go nodes``), is
one of the position's ``bm`` moves (or none of its ``am`` moves). Every engine runs on the same
positions and budgets in the same run; the machine on a simulated board (the same node counts
as on a real one), with the search features ``--features`` chooses (``all``, ``-singular``...:
the UCI check options); ``--root`` says who searches the root (the board, or the host's root
loop: the UCI option ``RootLoop``), ``--knowledge`` the Oracle's knowledge and ``--without``
the pattern families its root knowledge leaves out, ``--weights`` the weights that replace
the fitted ones for some of its patterns (``king-safety=0.5,passed-pawns=0.2``: the UCI option
``KnowledgeWeights``). ``--file`` may be given more than once
(each suite's counts, then their sum). Printed: a line per position and budget, then the
solved counts, and (the machine among the engines) which code it ran
(``benchmarks.provenance``).
"""

import argparse
import sys

import chess
import chess.engine

from host.epd import EpdError, read_positions
from sim.testing import DATA

from .peers import add_engine_arguments, chosen_engines, open_chosen
from .provenance import code_line


def _moves(board, text):
    return {board.parse_san(san) for san in text.replace(",", " ").split()} if text else set()


def solved(board, operations, move):
    """Whether ``move`` solves the position: one of its ``bm``, or none of its ``am``."""
    best, avoid = _moves(board, operations.get("bm")), _moves(board, operations.get("am"))
    return move in best if best else move not in avoid


def read_suite(path):
    """The positions of an EPD suite, each with its answer (``bm`` or ``am``) in legal moves;
    raises ValueError naming the file and line of the first that is not."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as error:
        raise ValueError(f"{path}: {error.strerror}") from None
    records = []
    for record in read_positions(lines):
        if isinstance(record, EpdError):
            raise ValueError(f"{path}: {record}")
        try:
            answers = [_moves(record.board, record.operations.get(key)) for key in ("bm", "am")]
        except ValueError as error:
            raise ValueError(f"{path}: line {record.line}: an answer that is no legal move ({error})") from None
        if not any(answers):
            raise ValueError(f"{path}: line {record.line}: no bm or am operation to judge a move by")
        records.append(record)
    if not records:
        raise ValueError(f"{path}: no positions")
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", action="append", help="an EPD suite (repeatable; data/tactics-dev.epd)")
    parser.add_argument("--nodes", default="10000,100000", help="budgets, comma-separated")
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    budgets = [int(n) for n in args.nodes.split(",")]
    names = chosen_engines(parser, args)
    # Which code: read before the engines start (the checkout may move on during a long run).
    code = code_line() if "suprem" in names else None
    suites = {}
    for path in args.file or [str(DATA / "tactics-dev.epd")]:
        try:
            suites[path] = read_suite(path)
        except ValueError as error:
            parser.error(str(error))
    counts = {(path, name, nodes): 0 for path in suites for name in names for nodes in budgets}
    for name in names:
        engine = open_chosen(name, args)
        try:
            for path, records in suites.items():
                for record in records:
                    for nodes in budgets:
                        result = engine.play(record.board, chess.engine.Limit(nodes=nodes), game=object())
                        ok = solved(record.board, record.operations, result.move)
                        counts[path, name, nodes] += ok
                        label = str(record.operations.get("id", record.line)).strip('"')
                        played = record.board.san(result.move) if result.move else "-"
                        print(f"{name:9} {nodes:>7} nodes  {label}: {played} {'solved' if ok else 'not solved'}",
                              flush=True)
        finally:
            engine.quit()
    for path, records in suites.items():
        print(f"{len(records)} positions of {path}")
        for nodes in budgets:
            print(f"{nodes:>7} nodes per position: "
                  + ", ".join(f"{name} {counts[path, name, nodes]}" for name in names))
    if len(suites) > 1:
        print(f"{sum(map(len, suites.values()))} positions in all")
        for nodes in budgets:
            print(f"{nodes:>7} nodes per position: "
                  + ", ".join(f"{name} {sum(counts[path, name, nodes] for path in suites)}" for name in names))
    if code:
        print(code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
