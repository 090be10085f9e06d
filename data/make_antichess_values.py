"""Fit the Oracle's antichess knowledge to Fairy-Stockfish's scores of antichess positions:
``host/antichess_values.py``.

    python data/make_antichess_values.py [--games 600] [--nodes 50000] [--seed 1] [--jobs 2]
                                         [--ridge 1] [--positions data/antichess-scores.jsonl.gz]
                                         [--fit-only]

Needs Fairy-Stockfish (``apt-get install fairy-stockfish``) to make positions (the tests never
run it), and NumPy (installed with the tests' extras) to fit.

Positions: games from the antichess openings (``antichess-openings.txt``, one in turn per game),
played on by Fairy-Stockfish at ``PLAY_NODES`` a move with one move in eight a seeded random
legal one, so the games leave the book and reach odd placements as well. From ply
``FIRST_PLY`` on, about one position in ``1 / SAMPLE`` where the side to move has no capture
(a quiet root: its score is about the placement, not a capture sequence under way) is scored by
Fairy-Stockfish at ``--nodes``; each is a JSON line of ``--positions`` (gzipped when its name
ends in ``.gz``): its EPD, the score (centipawns, or moves to mate, the side to move's view),
and the EPDs of the ``ROOT_DISTANCE`` positions before it in its game (``before``, nearest
first).
Each game has its own seeded random moves and starts from a cleared hash table, so the file
does not depend on ``--jobs``.

The fit: every antichess pattern's value is linear in its parameters
(:data:`host.antichess.PARAMETERS`), so each parameter is a column — the value of the position
with that parameter 1 and the rest 0, White's view, with the patterns made at a root. A search
values its leaves with patterns frozen at its root, several plies back, so each position gives
a row for each root it could have been searched from: itself and each position of ``before``
(what freezing costs a pattern is in its fitted value). The target is the score from White's
view squashed to ``CLIP * tanh(score / CLIP)`` (a mate is +-``CLIP``): a lost position says the
placement is bad, not by how many pawns. Least squares with a ridge towards the hand values
:data:`host.antichess.HAND_VALUES` worth ``--ridge`` positions (each column's by its mean
square): enough to hold a parameter the positions hardly see, too little to move the rest. The
result, rounded to centipawns, is written as ``host/antichess_values.py`` with how it was made;
the fit's agreement (the share of positions whose sign it gets right, and its error) is printed
beside the hand values'.
"""

import argparse
import json
import math
import random
import sys
import textwrap
from pathlib import Path

import chess
import chess.engine

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from make_piece_square import _read, _write, play_games  # noqa: E402

from benchmarks.match import read_openings  # noqa: E402
from host.antichess import HAND_VALUES, PARAMETERS, parameter_columns  # noqa: E402
from models.position import new_board  # noqa: E402

PLAY_NODES = 2000
RANDOM_MOVES = 0.125
FIRST_PLY = 4
MAX_PLIES = 200
SAMPLE = 1 / 3
ROOT_DISTANCE = 6
CLIP = 400
OUT = HERE.parent / "host" / "antichess_values.py"


def make_positions(path, games, nodes, seed, jobs):
    """Play ``games`` games (``jobs`` Fairy-Stockfish processes at once) and write the kept
    positions to ``path`` in the games' order."""
    openings = read_openings(variant="antichess")

    def play(engine, game):
        return _play_game(engine, openings[game % len(openings)][1], random.Random(seed * 100003 + game), nodes, game)

    found, name = play_games("fairy-stockfish", games, jobs, play)
    header = f"# Made by data/make_antichess_values.py --games {games} --nodes {nodes} --seed {seed} with {name}"
    _write(path, "\n".join([header] + [line for game in sorted(found) for line in found[game]]) + "\n")


def _play_game(engine, start, rng, nodes, game):
    """The kept positions' lines of one game from ``start``."""
    board, lines = start.copy(), []
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        if board.ply() >= FIRST_PLY and not any(board.is_capture(m) for m in board.legal_moves) \
                and rng.random() < SAMPLE:
            score = engine.analyse(board, chess.engine.Limit(nodes=nodes), game=game)["score"].relative
            entry = {"epd": board.epd()}
            entry.update({"mate": score.mate()} if score.is_mate() else {"score": score.score()})
            history, entry["before"] = board.copy(), []
            while history.move_stack and len(entry["before"]) < ROOT_DISTANCE:
                history.pop()
                entry["before"].append(history.epd())
            lines.append(json.dumps(entry))
        if rng.random() < RANDOM_MOVES:
            move = rng.choice(list(board.legal_moves))
        else:
            move = engine.play(board, chess.engine.Limit(nodes=PLAY_NODES), game=game).move
        board.push(move)
    return lines


def read_positions(path):
    """``[(board, score, roots)]`` from a positions file: antichess boards, their squashed scores
    (White's view), and the roots a search could have reached them from: the board itself and
    the positions up to ``ROOT_DISTANCE`` plies before it in its game."""
    text = _read(path)
    positions = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        entry = json.loads(line)
        board = new_board("antichess", entry["epd"] + " 0 1")
        if "mate" in entry:
            score = CLIP if entry["mate"] > 0 else -CLIP
        else:
            score = CLIP * math.tanh(entry["score"] / CLIP)
        roots = [board] + [new_board("antichess", epd + " 0 1") for epd in entry["before"]]
        positions.append((board, score if board.turn == chess.WHITE else -score, roots))
    return positions


def fit(positions, ridge):
    """``(values, report)``: the fitted {parameter: value} and lines comparing the fit with the
    hand values, over ``positions`` ``[(board, score, roots)]``: a row per root, the patterns made
    at the root and valued on the board (as the search values its leaves)."""
    import numpy as np

    rows, target = [], []
    for board, score, roots in positions:
        for root in roots:
            rows.append(parameter_columns(board, root))
            target.append(score)
    rows, target = np.array(rows, dtype=float), np.array(target)
    prior = np.array([HAND_VALUES[name] for name in PARAMETERS], dtype=float)
    scale = np.maximum(1.0, (rows ** 2).mean(axis=0))       # a column's typical square
    normal = rows.T @ rows + ridge * np.diag(scale)
    right = rows.T @ target + ridge * scale * prior
    solution = np.linalg.solve(normal, right)

    def agreement(values):
        predicted = rows @ values
        signs = np.mean(np.sign(predicted[target != 0]) == np.sign(target[target != 0]))
        error = math.sqrt(np.mean((predicted - target) ** 2))
        return signs, error

    to_move = PARAMETERS.index("to-move")
    alone = np.zeros(len(PARAMETERS))
    alone[to_move] = np.linalg.lstsq(rows[:, to_move:to_move + 1], target, rcond=None)[0][0]
    report = []
    for label, values in (("the side to move alone", alone), ("hand values", prior), ("fitted", solution)):
        signs, error = agreement(values)
        report.append(f"{label}: the sign of the score in {100 * signs:.1f} %, error {error:.0f} (rms, centipawns)")
    values = {name: int(round(v)) for name, v in zip(PARAMETERS, solution)}
    return values, report


def write_module(values, report, note):
    lines = "\n".join(f"    {name!r}: {value}," for name, value in values.items())
    about = textwrap.fill(f"{note} Over those positions, each valued from each of its roots: {'; '.join(report)}. "
                          "The parameters are :data:`host.antichess.PARAMETERS` (what each means is there), in "
                          "centipawns.", 95)
    OUT.write_text(f'''"""The Oracle's antichess values, fitted to Fairy-Stockfish's scores of antichess positions by
``data/make_antichess_values.py`` (generated: do not edit; run the script again).

{about}
"""

__all__ = ["VALUES"]

VALUES = {{
{lines}
}}
''')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--nodes", type=int, default=50000, help="Fairy-Stockfish's nodes for a position's score")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="Fairy-Stockfish processes at once")
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--positions", default=str(HERE / "antichess-scores.jsonl.gz"))
    parser.add_argument("--fit-only", action="store_true", help="fit the positions file as it is")
    args = parser.parse_args(argv)
    if not args.fit_only:
        make_positions(args.positions, args.games, args.nodes, args.seed, args.jobs)
    positions = read_positions(args.positions)
    header = _read(args.positions).splitlines()[0].lstrip("# ")
    values, report = fit(positions, args.ridge)
    note = f"``data/{Path(args.positions).name}``: {len(positions):,} positions ({header}); ``--ridge {args.ridge:g}``."
    write_module(values, report, note)
    print(f"{len(positions):,} positions; " + "; ".join(report) + f"; written to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
