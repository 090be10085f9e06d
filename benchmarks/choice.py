"""Move choice at a fixed node budget: how far each engine's move falls short of Stockfish's best.

    python -m benchmarks.choice [--file data/choice-positions.jsonl] [--nodes 10000] [--count N]
                                [--engines suprem,sunfish,stockfish] [--features SET]
                                [--root board|host] [--knowledge root|material|phase]
                                [--without FAMILY,...]

Each position of the file (``data/make_choice_positions.py``: ordinary positions from the
machine's games, every legal move scored by Stockfish) is given to each engine for a search of
the budget (``go nodes``, a new game each time); the move it plays loses the difference between
the best move's score and its own (at most ``LOSS_CAP`` centipawns, a move the file has no score
for counting as that). Printed per engine: the mean loss in centipawns, and how many moves are
within ``CLOSE`` centipawns of the best — the position-by-position view of what a match
measures in games, with far less noise per hour. Stockfish's loss is measured against its own
deeper scores and flatters it. Every engine runs in the same run; the machine on a simulated
board (the same node counts as a real board's), with ``--features``, ``--root``,
``--knowledge`` and ``--without`` as in ``benchmarks.tactics``.
"""

import argparse
import json
import sys

import chess
import chess.engine

from sim.testing import DATA

from .peers import add_engine_arguments, chosen_engines, open_chosen

__all__ = ["read_choices", "move_loss"]

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(DATA / "choice-positions.jsonl"))
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--count", type=int, help="only the first N positions")
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    names = chosen_engines(parser, args)
    choices = read_choices(args.file)[:args.count]
    for name in names:
        engine = open_chosen(name, args)
        losses = []
        try:
            for number, (board, scores) in enumerate(choices):
                move = engine.play(board, chess.engine.Limit(nodes=args.nodes), game=number).move
                losses.append(move_loss(scores, move))
        finally:
            engine.quit()
        print(f"{name:9} {args.nodes:>7} nodes: mean loss {sum(losses) / len(losses):5.1f} cp, "
              f"{sum(loss <= CLOSE for loss in losses)} of {len(losses)} within {CLOSE} cp", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
