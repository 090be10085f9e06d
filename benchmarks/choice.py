"""Move choice at a fixed node budget: how far each engine's move falls short of Stockfish's best.

    python -m benchmarks.choice [--file data/choice-positions.jsonl ...] [--nodes 10000] [--count N]
                                [--engines suprem,sunfish,stockfish] [--features SET]
                                [--root board|host] [--knowledge root|material|phase]
                                [--without FAMILY,...] [--weights PATTERN=W,...] [--moves FILE] [--against FILE]

Each position of the file (``data/make_choice_positions.py``: ordinary positions from the
machine's games, every legal move scored by Stockfish) is given to each engine for a search of
the budget (``go nodes``, a new game each time); the move it plays loses the difference between
the best move's score and its own (at most ``LOSS_CAP`` centipawns, a move the file has no score
for counting as that). Printed per engine: the mean loss in centipawns, and how many moves are
within ``CLOSE`` centipawns of the best — the position-by-position view of what a match
measures in games, with far less noise per hour — and last which code the machine ran
(``benchmarks.provenance``). ``--file`` may be given more than once: the
figures over all the files, then each file's (``--file data/ending-positions.jsonl --file
data/ending-positions-2.jsonl`` judges the endings on two independent draws; ``--count`` takes
the first N of each). Stockfish's loss is measured against its own
deeper scores and flatters it. Every engine runs in the same run; the machine on a simulated
board (the same node counts as a real board's), with ``--features``, ``--root``,
``--knowledge``, ``--without`` and ``--weights`` as in ``benchmarks.tactics``.

``--moves FILE`` writes each engine's move and loss position by position (a JSON line each:
engine, fen, move, loss), and ``--against FILE`` compares this run with an earlier run's
``--moves`` file position by position: how many of each engine's moves differ, how many of those
lose less and how many more, their loss summed before and now, and the mean change of the loss
per position with its 95 % interval (the positions paired) — a change to the machine's
knowledge or search measured where it acts.
"""

import argparse
import json
import math
import sys
from typing import NamedTuple

import chess
import chess.engine

from sim.testing import DATA

from .peers import add_engine_arguments, chosen_engines, open_chosen
from .provenance import code_line

__all__ = ["read_choices", "move_loss", "read_moves", "write_moves", "compare_moves", "Compared"]

LOSS_CAP = 300
CLOSE = 30


def read_choices(path):
    """``[(board, {move: score})]`` from a move-choice file."""
    out = []
    for line in open(path).read().splitlines():
        if line.strip() and not line.startswith("#"):
            entry = json.loads(line)
            out.append((chess.Board(entry["fen"]), {chess.Move.from_uci(m): s for m, s in entry["scores"].items()}))
    return out


def move_loss(scores, move):
    """Centipawns ``move`` loses against the best of ``scores`` (``LOSS_CAP`` at most, and for a
    move without a score)."""
    best = max(scores.values())
    return min(LOSS_CAP, best - scores[move]) if move in scores else LOSS_CAP


def read_moves(path):
    """A ``--moves`` file: ``{(engine, fen): (move, loss)}``. Raises ValueError naming the line
    that is not one."""
    moves = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                entry = json.loads(line)
                moves[entry["engine"], entry["fen"]] = (entry["move"], entry["loss"])
            except (ValueError, KeyError, TypeError):
                raise ValueError(f"{path}:{number}: not a line of a --moves file") from None
    return moves


def write_moves(path, played):
    """Write a ``--moves`` file: ``played`` is ``{(engine, fen): (move, loss)}`` (:func:`read_moves`)."""
    with open(path, "w") as f:
        for (name, fen), (move, loss) in played.items():
            f.write(json.dumps({"engine": name, "fen": fen, "move": move, "loss": loss}) + "\n")


class Compared(NamedTuple):
    """Two runs' moves compared position by position (:func:`compare_moves`), for one engine."""
    differ: int                 #: positions where the moves differ
    better: int                 #: ... and the move now loses less
    worse: int                  #: ... and more
    lost_before: int            #: the loss summed over the moves that differ, before
    lost_now: int               #: ... and now
    both: int                   #: the positions both runs played
    mean: float                 #: the loss now less before, per position of both
    interval: float             #: its 95 % interval's half-width (the positions paired)


def compare_moves(now, before):
    """Position by position, the moves of two runs (:func:`read_moves`) that differ, over the
    positions both runs played: ``{engine: Compared}``."""
    differences = {}
    for (engine, fen), (move, loss) in now.items():
        if (engine, fen) in before:
            old_move, old_loss = before[engine, fen]
            differences.setdefault(engine, []).append((move != old_move, old_loss, loss))
    result = {}
    for engine, rows in differences.items():
        changed = [(old, new) for differ, old, new in rows if differ]
        deltas = [new - old for _, old, new in rows]
        mean = sum(deltas) / len(deltas)
        spread = math.sqrt(sum((d - mean) ** 2 for d in deltas) / (len(deltas) - 1)) if len(deltas) > 1 else 0.0
        result[engine] = Compared(len(changed), sum(new < old for old, new in changed),
                                  sum(new > old for old, new in changed), sum(old for old, _ in changed),
                                  sum(new for _, new in changed), len(rows), mean,
                                  1.96 * spread / math.sqrt(len(deltas)))
    return result


def _losses(losses):
    return (f"mean loss {sum(losses) / len(losses):5.1f} cp, {sum(loss <= CLOSE for loss in losses)} of "
            f"{len(losses)} within {CLOSE} cp")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", action="append",
                        help="a move-choice file (repeatable: each file's figures, then all of them; "
                             "data/choice-positions.jsonl)")
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--count", type=int, help="only the first N positions")
    parser.add_argument("--moves", help="write each move and its loss, position by position, to this file")
    parser.add_argument("--against", help="an earlier run's --moves file: compare position by position")
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    names = chosen_engines(parser, args)
    # Which code: read before the engines start (the checkout may move on during a long run).
    code = code_line() if "suprem" in names else None
    files = args.file or [str(DATA / "choice-positions.jsonl")]
    choices = [(path, board, scores) for path in files for board, scores in read_choices(path)[:args.count]]
    try:
        before = read_moves(args.against) if args.against else None
    except (OSError, ValueError) as error:
        parser.error(f"--against: {error}")
    played = {}
    for name in names:
        engine = open_chosen(name, args)
        losses = {path: [] for path in files}
        try:
            for number, (path, board, scores) in enumerate(choices):
                move = engine.play(board, chess.engine.Limit(nodes=args.nodes), game=number).move
                losses[path].append(move_loss(scores, move))
                played[name, board.fen()] = (move.uci(), losses[path][-1])
        finally:
            engine.quit()
        every = [loss for path in files for loss in losses[path]]
        print(f"{name:9} {args.nodes:>7} nodes: {_losses(every)}", flush=True)
        for path in files if len(files) > 1 else []:
            print(f"{name:9} {path}: {_losses(losses[path])}", flush=True)
    if args.moves:
        write_moves(args.moves, played)
    for name, c in sorted(compare_moves(played, before or {}).items()):
        print(f"{name:9} against {args.against}: {c.differ} of {c.both} moves differ, {c.better} lose less, "
              f"{c.worse} more; their loss {c.lost_before} cp before, {c.lost_now} cp now; "
              f"{c.mean:+.1f} cp a position (95 %: {c.mean - c.interval:+.1f} to {c.mean + c.interval:+.1f})")
    if code:
        print(code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
