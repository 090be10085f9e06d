"""The Strategic Test Suite at a fixed node budget: positional knowledge, on positions nobody on
this project chose.

    python -m benchmarks.sts [--nodes 10000] [--per-theme N] [--file data/sts.epd]
                             [--engines suprem,sunfish,stockfish] [--features SET]
                             [--root board|host] [--knowledge root|material|phase] [--without FAMILY,...]
                             [--weights PATTERN=W,...] [--moves FILE] [--against FILE]

The STS (Swaminathan N. and Dann Corbit's fifteen themes of a hundred positions:
undermining, open files and diagonals, knight outposts, square vacancy, bishop against
knight, recapturing, simplification, the advance of the a-, b- and c-pawns, the centre, the
seventh rank, king activity...) as ``data/sts.epd`` ships it: Ferdinand Mosca's version 6
(STS-Rating), each position's ten best moves scored by Stockfish 15 in points from 1 to 100
(the best 100), kept where the best move is at least 10 cp better than the second (1,188
positions). Each engine searches each position for ``--nodes`` (``go nodes``, a new game each
time) and scores the points of the move it plays (0 for a move not among the ten). Printed per
engine: its points as a percentage of the most it could score, and how often it played the
best move, over all the positions and theme by theme (last, which code the machine ran:
``benchmarks.provenance``); every engine runs in the same run, the
machine on a simulated board with ``--features``, ``--root``, ``--knowledge``, ``--without`` and
``--weights`` as in ``benchmarks.tactics``. ``--per-theme N`` takes the first N positions of each theme.
``--moves FILE`` writes each engine's move position by position with the points it falls short
of the best (``benchmarks.choice``'s file, points in place of centipawns), and ``--against FILE``
compares this run with an earlier one's: the moves that differ, and the points a position
gained with their 95 % interval, the positions paired (on the whole suite a change of about a
point in a hundred is within reach of chance).
"""

import argparse
import re
import sys
from typing import NamedTuple

import chess
import chess.engine

from sim.testing import DATA

from .choice import compare_moves, read_moves, write_moves
from .peers import add_engine_arguments, chosen_engines, open_chosen
from .provenance import code_line

__all__ = ["StsPosition", "read_sts", "STS_FILE"]

STS_FILE = DATA / "sts.epd"

#: The most points a move scores.
BEST = 100

_THEME = re.compile(r"STS\(v(\d+)\.\d+\) (.+)\.\d+$")


class StsPosition(NamedTuple):
    """A position of the suite: its ``board``, ``theme`` (1–15), ``name`` (its ``id``) and the
    ``points`` of its scored moves."""
    board: chess.Board
    theme: int
    name: str
    points: dict                #: chess.Move -> points (1..100)

    def score(self, move):
        """The points ``move`` scores here (0 for a move not among the scored ones)."""
        return self.points.get(move, 0)


def read_sts(path=STS_FILE):
    """``([StsPosition], {theme: its name})`` from an STS file (the moves in ``c9``, their points
    in ``c8``, the theme in ``id``). Raises ValueError naming the line that is not one."""
    positions, names = [], {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                board, operations = chess.Board.from_epd(line)
                theme, name = _THEME.match(operations["id"]).groups()
                moves = [chess.Move.from_uci(move) for move in operations["c9"].split()]
                points = [int(value) for value in operations["c8"].split()]
                if len(moves) != len(points) or not moves or not all(m in board.legal_moves for m in moves) \
                        or max(points) != BEST or not all(1 <= p <= BEST for p in points):
                    raise ValueError
            except (ValueError, KeyError, AttributeError, TypeError):
                raise ValueError(f"{path}:{number}: not a position of the suite (c8 points, c9 legal moves, "
                                 f"an STS id)") from None
            names.setdefault(int(theme), name)
            positions.append(StsPosition(board, int(theme), operations["id"], dict(zip(moves, points))))
    return positions, names


def first_of_each_theme(positions, count):
    """The first ``count`` positions of each theme, in the file's order (all with ``count`` None)."""
    taken = {}
    kept = []
    for position in positions:
        if count is None or taken.get(position.theme, 0) < count:
            taken[position.theme] = taken.get(position.theme, 0) + 1
            kept.append(position)
    return kept


def _line(label, scored):
    points, best, most = sum(scored), sum(p == BEST for p in scored), BEST * len(scored)
    return (f"{label:50.50} {points:7d} of {most:7d} points ({100 * points / most:5.1f} %), "
            f"best move {best:4d} of {len(scored)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(STS_FILE))
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--per-theme", type=int, help="only the first N positions of each theme")
    parser.add_argument("--moves", help="write each move and the points it falls short of the best, position "
                                        "by position, to this file")
    parser.add_argument("--against", help="an earlier run's --moves file: compare position by position")
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    names = chosen_engines(parser, args)
    # Which code: read before the engines start (the checkout may move on during a long run).
    code = code_line() if "suprem" in names else None
    try:
        positions, themes = read_sts(args.file)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    try:
        before = read_moves(args.against) if args.against else {}
    except (OSError, ValueError) as error:
        parser.error(f"--against: {error}")
    played = {}
    positions = first_of_each_theme(positions, args.per_theme)
    print(f"{len(positions)} positions of {args.file}, {args.nodes} nodes a move", flush=True)
    for name in names:
        engine = open_chosen(name, args)
        scored = {}                 # theme -> the points of each move played
        try:
            for number, position in enumerate(positions):
                move = engine.play(position.board, chess.engine.Limit(nodes=args.nodes), game=number).move
                scored.setdefault(position.theme, []).append(position.score(move))
                played[name, position.board.fen()] = (move.uci(), BEST - position.score(move))
        finally:
            engine.quit()
        print(_line(f"{name} (all {len(positions)})", [s for theme in sorted(scored) for s in scored[theme]]))
        for theme in sorted(scored):
            print(_line(f"  {theme:2d} {themes[theme]}", scored[theme]), flush=True)
    if args.moves:
        write_moves(args.moves, played)
    for name, c in sorted(compare_moves(played, before).items()):
        gained = 0.0 - c.mean           # the points a position gained (losses fell); never "-0.00"
        print(f"{name} against {args.against}: {c.differ} of {c.both} moves differ, {c.better} score more, "
              f"{c.worse} less; {gained:+.2f} points a position (95 %: {gained - c.interval:+.2f} to "
              f"{gained + c.interval:+.2f})")
    if code:
        print(code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
