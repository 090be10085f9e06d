"""The Oracle's patterns screened against Stockfish along a match's games: which pattern makes
the machine's static value of real positions worse.

    python -m benchmarks.screen TRACES [--plies 6] [--within 400] [--steady 50] [--from-ply 12]

``TRACES`` is a file of ``python -m benchmarks.phases FILE.pgn ... --save TRACES``: each position
of each game with Stockfish's score of it. The quiet ones are kept: from ``--from-ply`` on, not in
check, no capture of the side to move winning material by static exchange (a recapture due),
scored within ``--within`` centipawns of level, and steady (the scores of the positions before
and after it within ``--steady`` of its own), so that what Stockfish sees there is mostly what
a static value can see. Each is valued as a search ``--plies`` deep values its
leaves: with the fitted table of ``material`` knowledge and the patterns of the library made
for the position that many plies earlier (the root; each pattern relevant at that root, at the
weight root knowledge installs it with, :func:`host.oracle.weighed`; whether they would all fit
the evaluator at once is not asked).

Printed: the root-mean-square difference, in centipawns (White's view), between Stockfish's
score and the table alone, the table with every relevant pattern at its hand value, and the
table with the patterns as root knowledge weighs them; each over the games of odd and of even
number. Then each pattern with the change in that difference (over all games) when it alone is
left out, and how many positions it gives a value other than 0. A pattern whose leaving out
makes the difference smaller disagrees with Stockfish where it acts: look at what it says there.
Last, each pattern's own scale (:func:`best_scale`): the factor on its installed value that makes
the difference smallest, fitted on the odd games and tried on the even ones, and the other way
round — below 1 it says too much, above 1 too little; when both halves agree, and the held-out
half gains, its weight is off.
The screen is a static one (a search sees more), and Stockfish's scores are a measurement,
not ground truth.
"""

import argparse
import math
import sys
from typing import NamedTuple

import chess

from host.analysis import analyse, game_phase_fraction, swap_off
from host.library import LIBRARY
from host.oracle import weighed
from host.pattern_weights import WEIGHTS
from host.patterns import MaterialPieceSquare

from .phases import MATE_SCORE, load_traces

__all__ = ["ScreenedPosition", "quiet_positions", "screened", "rms", "best_scale"]


class ScreenedPosition(NamedTuple):
    """A quiet position as the screen values it (White's view, centipawns)."""
    game: int                   #: its game's number in the file, from 1
    stockfish: int
    table: int                  #: the fitted table's value
    hand: dict                  #: pattern -> value at its hand value (relevant at the root)
    weighed: dict               #: pattern -> value as root knowledge installs it


def quiet_positions(traced, within=400, steady=50, from_ply=12):
    """``[(game number, ply index, FEN, Stockfish's score in White's view)]``: the quiet
    positions of ``traced`` (:func:`benchmarks.phases.load_traces`): not in check, no capture
    that wins material by static exchange (:func:`host.analysis.swap_off`), level and steady."""
    found = []
    for number, (trace, fens) in enumerate(traced, 1):
        sign = 1 if trace.machine_white else -1
        scores = trace.scores
        for ply in range(max(from_ply, 1), len(fens) - 1):
            score = scores[ply]
            if (abs(score) >= MATE_SCORE or abs(score) > within or abs(score - scores[ply - 1]) > steady
                    or abs(scores[ply + 1] - score) > steady):
                continue
            board = chess.Board(fens[ply])
            if board.is_check() or any(swap_off(board, square, board.turn) > 0
                                       for square in chess.SquareSet(board.occupied_co[not board.turn])):
                continue
            found.append((number, ply, fens[ply], sign * score))
    return found


def screened(traced, plies=6, **quiet):
    """Each quiet position of ``traced`` valued (:class:`ScreenedPosition`), the patterns made for
    the position ``plies`` plies earlier (the game's first position after a move at the earliest)."""
    made = {}
    result = []
    for number, ply, fen, score in quiet_positions(traced, **quiet):
        root_ply = max(0, ply - plies)
        if (number, root_ply) not in made:       # each root's patterns made and weighed once
            root = chess.Board(traced[number - 1][1][root_ply])
            analysis = analyse(root)
            patterns = {name: entry.make(analysis, root) for name, entry in LIBRARY.items()
                        if entry.relevance(analysis) > 0}
            made[number, root_ply] = (MaterialPieceSquare(game_phase_fraction(root)),
                                      {name: (pattern, weighed(pattern, WEIGHTS.get(name, 1.0))[0])
                                       for name, pattern in patterns.items()})
        table, patterns = made[number, root_ply]
        board = chess.Board(fen)
        hand = {name: pattern.definition(board) for name, (pattern, _) in patterns.items()}
        installed = {name: weighted.definition(board) if weighted is not None else 0
                     for name, (_, weighted) in patterns.items()}
        result.append(ScreenedPosition(number, score, table.definition(board), hand, installed))
    return result


def rms(positions, values):
    """The root-mean-square of Stockfish's score less ``values(position)`` over ``positions``."""
    if not positions:
        return float("nan")
    return math.sqrt(sum((p.stockfish - values(p)) ** 2 for p in positions) / len(positions))


def _installed(position, scale=None):
    """The table and the patterns as installed, one pattern's value times a factor:
    ``scale`` is ``(name, factor)`` or None."""
    if scale is None:
        return position.table + sum(position.weighed.values())
    name, factor = scale
    return position.table + sum(v * factor if n == name else v for n, v in position.weighed.items())


def best_scale(positions, name):
    """The factor on pattern ``name``'s installed value that makes the rms over ``positions``
    smallest (least squares along that one value, the others as installed); 1.0 where it is
    always 0."""
    along = sum(p.weighed.get(name, 0) ** 2 for p in positions)
    if not along:
        return 1.0
    return 1.0 + sum((p.stockfish - _installed(p)) * p.weighed.get(name, 0) for p in positions) / along


def _not_negative(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0: {text}")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("traces", help="a file of benchmarks.phases --save")
    parser.add_argument("--plies", type=_not_negative, default=6, help="how far back the root is (6)")
    parser.add_argument("--within", type=_not_negative, default=400, help="the scores kept, from level (400 cp)")
    parser.add_argument("--steady", type=_not_negative, default=50, help="the most a score moves over a ply (50 cp)")
    parser.add_argument("--from-ply", type=_not_negative, default=12, help="the first position kept (12)")
    args = parser.parse_args(argv)
    try:
        traced = load_traces(args.traces)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    positions = screened(traced, args.plies, within=args.within, steady=args.steady, from_ply=args.from_ply)
    if not positions:
        parser.error(f"{args.traces}: no quiet position")
    odd = [p for p in positions if p.game % 2]
    even = [p for p in positions if not p.game % 2]
    print(f"{len(positions)} quiet positions of {len(traced)} games, each valued with the patterns made "
          f"{args.plies} plies earlier; rms against Stockfish in cp (odd games / even games):")
    rows = (("the fitted table alone", lambda p: p.table),
            ("the table and the patterns at their hand values", lambda p: p.table + sum(p.hand.values())),
            ("the table and the patterns as root knowledge weighs them", _installed))
    for label, values in rows:
        print(f"  {label:58s} {rms(odd, values):7.1f} {rms(even, values):7.1f}")
    whole = rms(positions, _installed)
    print("each pattern left out (the change of the rms over all games; positions where it is not 0):")
    changes = []
    for name in LIBRARY:
        acting = sum(1 for p in positions if p.weighed.get(name))
        if not acting:
            continue
        without = rms(positions, lambda p, left=(name, 0): _installed(p, left))
        changes.append((without - whole, name, acting))
    for change, name, acting in sorted(changes):
        print(f"  {name:28s} {change:+6.2f} on {acting}")
    print("each pattern's own scale, fitted on one half of the games, and the change of the other half's rms with it:")
    print(f"  {'':28s} {'odd':>6s} {'even':>7s}   {'even':>6s} {'odd':>7s}")
    halves = [(odd, even, rms(even, _installed)), (even, odd, rms(odd, _installed))]
    for _, name, _ in sorted(changes):
        cells = []
        for fitted, held, as_installed in halves:
            factor = best_scale(fitted, name)
            scaled = rms(held, lambda p, scale=(name, factor): _installed(p, scale))
            cells.append(f"{factor:6.2f} {scaled - as_installed:+7.2f}")
        print(f"  {name:28s} {'   '.join(cells)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
