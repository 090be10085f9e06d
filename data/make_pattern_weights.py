"""Weigh the Oracle's patterns against the fitted piece-square tables: ``host/pattern_weights.py``.

    python data/make_pattern_weights.py [--positions data/quiet-moves.jsonl.gz] [--ridge 10000]
                                        [--min-positions 300]

Needs NumPy (installed with the tests' extras); reads the positions ``data/make_piece_square.py``
made (each quiet move of a position scored by Stockfish), keeping the same positions and moves
as that fit (no piece of the side to move in danger, no move that puts its piece in danger).

The library's patterns (``host/library.py``) were valued by hand against a hand-made table; the
fitted tables (``host/piece_square.py``) now know much of what they say, and counted again it
misleads the search. Each position is its own root: every pattern of the library that is
relevant there is made for it, and each quiet move's change of the pattern's value (the side
to move's view, measured from the position's mean over its moves) is one column; the target is
what the fitted tables leave unexplained of Stockfish's score of the move (its deviation from
the position's mean, clipped as the tables' fit clips it, less the tables' own change). Least
squares with a ridge of ``--ridge`` towards 0 and no negative weight (a pattern that points
the wrong way is dropped and the rest fitted again, until none does): a pattern's weight is how
much of its hand value the data confirms beyond the tables.

A pattern whose value no quiet move changes (material patterns: the bishop pair, insufficient
material, trades; pawn structure, which only captures change) or changes in fewer than
``--min-positions`` positions is not weighed: the quiet moves cannot tell its worth, and it
keeps its hand values. The weights, rounded to hundredths, are written as
``host/pattern_weights.py`` with how they were made; the agreement with Stockfish's best quiet
move is printed for the tables alone, with the hand-valued patterns and with the weighed ones.

    python data/make_pattern_weights.py --results [data/result-positions.jsonl.gz] [--ridge 0.03]
                                        [--min-positions 1000] [--out host/pattern_weights.py]
    python data/make_pattern_weights.py --collect [PGN ...]

The second way weighs every pattern by the results of games (Texel's method), material patterns
and pawn structure included. ``--collect`` gathers the positions from PGN files (by default
every standard-chess game in ``benchmarks/results``, each distinct game once): from ply
``RESULT_FIRST_PLY`` on, each position not in check, not just after a capture, whose move in
the game is no capture or promotion and where no piece of the side to move is in danger (its
value is then no exchange away). Each is a JSON line of ``data/result-positions.jsonl.gz``: its
EPD, the mean result for White of the games it occurs in (1, 1/2, 0), how many, and the opening
(the first ``OPENING_PLIES`` moves) of the first such game, numbered in the order the openings are
first seen. Each position is its own root, as above; its value for White is the fitted
tables' plus each relevant pattern's times its weight, and the expected result is the logistic
``1 / (1 + exp(-(a * value * ln 10 / 400 + b)))``, with ``a`` and ``b`` fitted to the tables
alone. The weights (none negative, each pulled towards 1, its hand value, by a ridge of
``--ridge`` times the fit's mean curvature) minimise the squared error to the results (Gauss–
Newton). The positions of the openings numbered 0 mod 5 are held out, so that the fit on the
rest is judged on games it has not seen from their start (the
squared error with the tables alone, the hand values, today's weights and the new ones, all
printed), and the weights written are fitted on all the positions. A pattern relevant in fewer
than ``--min-positions`` positions is not weighed and keeps its hand values. The weights are
also printed as a ``--weights`` text, for a match to try them before they are written over the
shipped ones (``--out``).
"""

import argparse
import glob
import gzip
import json
import math
import sys
import textwrap
from pathlib import Path

import chess
import chess.pgn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from make_piece_square import CLIP, _read, _threatened, kept, read_positions  # noqa: E402

from benchmarks.match import POINTS  # noqa: E402
from host.analysis import analyse, game_phase_fraction  # noqa: E402
from host.library import LIBRARY  # noqa: E402
from host.patterns import MaterialPieceSquare  # noqa: E402

OUT = HERE.parent / "host" / "pattern_weights.py"
RESULT_POSITIONS = HERE / "result-positions.jsonl.gz"
RESULT_FIRST_PLY = 16
#: The games' openings, which the held-out positions are chosen by: their first moves.
OPENING_PLIES = 8
#: Every ``HELD_OUT``-th opening (by number) is held out of the fit that judges the weights.
HELD_OUT = 5


def columns(positions, library=LIBRARY):
    """``(names, rows, target, groups)`` for the fit: ``rows`` one per kept move, each the
    change of every library pattern relevant at its position (0 for the rest), ``target`` what
    the fitted tables leave of Stockfish's score, and ``groups`` ``[(first row, end, index of
    Stockfish's best move, the tables' changes)]`` per kept position, all centred on the
    position's mean."""
    import numpy as np

    names = list(library)
    index = {name: k for k, name in enumerate(names)}
    rows, target, groups = [], [], []
    for board, scores in kept(positions):
        analysis = analyse(board)
        made = [(index[name], entry.make(analysis, board)) for name, entry in library.items()
                if entry.relevance(analysis) > 0]
        table = MaterialPieceSquare(game_phase_fraction(board))
        sign = 1 if board.turn == chess.WHITE else -1
        before = [pattern.definition(board) for _, pattern in made]
        table_before = table.definition(board)
        block, changes = [], []
        for move in scores:
            after = board.copy(stack=False)
            after.push(move)
            row = np.zeros(len(names))
            for (k, pattern), value in zip(made, before):
                row[k] = sign * (pattern.definition(after) - value)
            block.append(row)
            changes.append(sign * (table.definition(after) - table_before))
        block, changes = np.array(block), np.array(changes, dtype=float)
        block -= block.mean(axis=0)
        changes -= changes.mean()
        mean = sum(scores.values()) / len(scores)
        deviations = [max(-CLIP, min(CLIP, score - mean)) for score in scores.values()]
        start = len(rows)
        rows.extend(block)
        target.extend(deviation - change for deviation, change in zip(deviations, changes))
        groups.append((start, len(rows), list(scores).index(max(scores, key=scores.get)), changes))
    return names, np.array(rows), np.array(target), groups


def fit(positions, ridge, min_positions, library=LIBRARY):
    """``(weights, unweighed, agreement)``: ``weights`` {name: weight >= 0} of the patterns the
    quiet moves tell apart in at least ``min_positions`` positions, ``unweighed`` the rest's
    names, ``agreement`` {"tables", "hand", "weighed": how often Stockfish's best quiet move is
    first}."""
    import numpy as np

    names, rows, target, groups = columns(positions, library)
    seen = np.zeros(len(names), dtype=int)
    for start, end, _, _ in groups:
        seen += (np.abs(rows[start:end]) > 1e-9).any(axis=0)
    active = [k for k in range(len(names)) if seen[k] >= min_positions]
    unweighed = [names[k] for k in range(len(names)) if seen[k] < min_positions]
    while True:
        part = rows[:, active]
        solution = np.linalg.solve(part.T @ part + ridge * np.eye(len(active)), part.T @ target)
        if not active or solution.min() >= 0:
            break
        active.pop(int(np.argmin(solution)))         # the most negative goes; fit the rest again
    weights = {name: 0.0 for name in names if name not in unweighed}
    weights.update({names[k]: round(float(w), 2) for k, w in zip(active, solution)})

    def agreement(vector):
        return sum(int(np.argmax(changes + rows[start:end] @ vector)) == best
                   for start, end, best, changes in groups) / len(groups)

    hand = np.ones(len(names))
    weighed = np.array([weights.get(name, 1.0) for name in names])
    return weights, unweighed, {"tables": agreement(np.zeros(len(names))), "hand": agreement(hand),
                                "weighed": agreement(weighed)}


def collect_results(paths):
    """``([(epd, result, count, opening)], games)`` of the games in the PGN files ``paths``
    (standard chess with a result; ``games`` distinct ones, each counted once): the positions
    ``--collect`` keeps, identical ones merged (``result`` White's mean, ``count`` how many,
    ``opening`` the first one's opening's number)."""
    merged, games, openings = {}, set(), {}
    for path in paths:
        with open(path) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                result, board = POINTS.get(game.headers.get("Result")), game.board()
                if board.uci_variant != "chess" or result is None:
                    continue
                moves = list(game.mainline_moves())
                key = (game.headers.get("FEN"), tuple(moves))
                if key in games:
                    continue
                games.add(key)
                opening = openings.setdefault((key[0], key[1][:OPENING_PLIES]), len(openings))
                after_capture = False
                for move in moves:
                    if (board.ply() >= RESULT_FIRST_PLY and not after_capture and not board.is_check()
                            and not board.is_capture(move) and not move.promotion and not _threatened(board)):
                        entry = merged.setdefault(board.epd(), [0.0, 0, opening])
                        entry[0] += result
                        entry[1] += 1
                    after_capture = board.is_capture(move)
                    board.push(move)
    return [(epd, total / count, count, opening) for epd, (total, count, opening) in merged.items()], len(games)


def write_results(path, entries, header):
    with gzip.open(path, "wt") as f:
        f.write(f"# {header}\n")
        for epd, result, count, opening in entries:
            f.write(json.dumps({"epd": epd, "result": round(result, 4), "count": count, "opening": opening}) + "\n")


def read_results(path):
    """``[(board, result, count, opening)]`` from a ``--collect`` file."""
    return [(chess.Board(entry["epd"] + " 0 1"), entry["result"], entry["count"], entry["opening"])
            for entry in (json.loads(line) for line in _read(path).splitlines()
                          if line.strip() and not line.startswith("#"))]


def result_columns(positions, library=LIBRARY):
    """``(names, values, tables)``: ``values[i, k]`` the ``k``-th library pattern's value for
    White at position ``i`` made as its own root (0 where it is not relevant), ``tables[i]``
    the fitted tables' value there."""
    import numpy as np

    names = list(library)
    values, tables = np.zeros((len(positions), len(names))), np.zeros(len(positions))
    for i, (board, _, _, _) in enumerate(positions):
        analysis = analyse(board)
        for k, entry in enumerate(library.values()):
            if entry.relevance(analysis) > 0:
                values[i, k] = entry.make(analysis, board).definition(board)
        tables[i] = MaterialPieceSquare(game_phase_fraction(board)).definition(board)
    return names, values, tables


def _logistic(value):
    """The expected result of a position valued ``value`` (the logistic's argument)."""
    import numpy as np

    return 1 / (1 + np.exp(-value))


def _squared_error(results, counts, expected):
    """The ``counts``-weighted mean squared error of ``expected`` against ``results``."""
    return float((counts * (results - expected) ** 2).sum() / counts.sum())


def _gauss_newton(columns, offset, results, counts, start, signed=0, ridge=0.0, prior=None, steps=40):
    """The ``x`` that minimises the ``counts``-weighted squared error of ``results`` against
    ``1 / (1 + exp(-(offset + columns @ x)))``, from ``start``: ``x[k] >= 0`` for the first
    ``len(x) - signed`` parameters, which a ridge of ``ridge`` times their mean curvature pulls
    towards ``prior``; the last ``signed`` are free."""
    import numpy as np

    x = start.astype(float).copy()
    bounded = np.arange(len(x)) < len(x) - signed
    for _ in range(steps):
        expected = _logistic(offset + columns @ x)
        slope = columns * (expected * (1 - expected))[:, None]
        curvature = slope.T @ (slope * counts[:, None])
        pull = np.where(bounded, ridge * np.diag(curvature)[bounded].mean(), 0) if bounded.any() else 0 * x
        gradient = slope.T @ ((results - expected) * counts) - pull * (x - (x if prior is None else prior))
        x += np.linalg.solve(curvature + np.diag(pull) + 1e-9 * np.eye(len(x)), gradient)
        x[bounded] = np.maximum(x[bounded], 0)
    return x


def fit_results(positions, ridge, min_positions, library=LIBRARY, current=None):
    """``(weights, unweighed, errors)``: ``weights`` {name: weight >= 0} of the patterns
    relevant in at least ``min_positions`` positions, fitted to the results of all
    ``positions`` (``[(board, result, count, opening)]``); ``unweighed`` the rest's names (at
    their hand values); ``errors`` the held-out openings' squared error, each fitted on the others:
    with the tables alone ("tables"), the hand values ("hand"), ``current`` ({name: weight},
    unlisted at 1; "current") and the new weights ("weighed")."""
    import numpy as np

    names, values, tables = result_columns(positions, library)
    results = np.array([result for _, result, _, _ in positions])
    counts = np.array([count for _, _, count, _ in positions], dtype=float)
    held_out = np.array([opening % HELD_OUT == 0 for _, _, _, opening in positions])
    active = (values != 0).sum(axis=0) >= min_positions
    unweighed = [name for name, on in zip(names, active) if not on]
    unit = math.log(10) / 400
    ones = np.ones(len(positions))

    def scale_of(rows):
        """The tables' scale and bias (the logistic's ``a`` and ``b``) on ``rows``."""
        return _gauss_newton(np.column_stack([unit * tables, ones])[rows], 0, results[rows], counts[rows],
                             np.array([1.0, 0.0]), signed=2)

    def fitted(rows):
        """All the weights (the unweighed at 1) fitted on ``rows``, and the tables' scale they are fitted at."""
        scale, bias = scale_of(rows)
        offset = scale * unit * (tables + values[:, ~active].sum(axis=1))
        columns = np.column_stack([scale * unit * values[:, active], ones])
        x = _gauss_newton(columns[rows], offset[rows], results[rows], counts[rows],
                          np.append(np.ones(active.sum()), bias), signed=1, ridge=ridge,
                          prior=np.append(np.ones(active.sum()), 0.0))
        weights = np.ones(len(names))
        weights[active] = x[:-1]
        return weights, scale

    def error(weights, scale, rows):
        """The held-out error of ``weights`` at ``scale``, its bias fitted on ``rows``."""
        offset = scale * unit * (tables + values @ weights)
        bias, = _gauss_newton(ones[:, None][rows], offset[rows], results[rows], counts[rows], np.zeros(1), signed=1)
        return _squared_error(results[~rows], counts[~rows], _logistic(offset + bias)[~rows])

    rows = ~held_out
    weights, scale = fitted(rows)
    table_scale = scale_of(rows)[0]
    now = np.array([(current or {}).get(name, 1.0) for name in names])
    errors = {"tables": error(0 * now, table_scale, rows), "hand": error(1 + 0 * now, table_scale, rows),
              "current": error(now, table_scale, rows), "weighed": error(weights, scale, rows)}
    weights, _ = fitted(ones.astype(bool))
    return ({name: round(float(w), 2) for name, w, on in zip(names, weights, active) if on}, unweighed, errors)


def peer_error(positions, depth):
    """Stockfish's squared error on the held-out openings: its score at ``depth`` (White's view,
    mates at 3,000) through a logistic whose scale and bias are fitted on those positions themselves
    (which favours it), for what the games' results allow any evaluation to explain."""
    import chess.engine
    import numpy as np

    from benchmarks.peers import engine_command

    command = engine_command("stockfish")
    if command is None:
        raise SystemExit("Stockfish is not installed (apt-get install stockfish)")
    held = [(board, result, count) for board, result, count, opening in positions if opening % HELD_OUT == 0]
    with chess.engine.SimpleEngine.popen_uci(command) as engine:
        scores = np.array([engine.analyse(board, chess.engine.Limit(depth=depth))["score"].white().score(
            mate_score=3000) for board, _, _ in held], dtype=float)
    results = np.array([result for _, result, _ in held])
    counts = np.array([count for _, _, count in held], dtype=float)
    columns = np.column_stack([math.log(10) / 400 * scores, np.ones(len(held))])
    x = _gauss_newton(columns, 0, results, counts, np.array([1.0, 0.0]), signed=2)
    return _squared_error(results, counts, _logistic(columns @ x))


def write_module(weights, unweighed, note, why_unweighed, out=OUT):
    listed = "\n".join(f"    {name!r}: {weight:.2f}," for name, weight in weights.items())
    text = "\n\n".join(textwrap.fill(paragraph, 95, break_on_hyphens=False) for paragraph in (
        "How much of each pattern's hand value the Oracle's ``root`` knowledge installs, weighed against "
        "the fitted piece-square tables by ``data/make_pattern_weights.py`` (generated: do not edit; run "
        "the script again).",
        note,
        "A pattern's values are scaled by its weight: a first-order pattern's entries rounded to "
        "centipawns, a recognizer's outputs to its final map's step (a weight of 0 leaves a pattern out, "
        "and a recognizer is left out below ``host.oracle.RECOGNIZER_WEIGHT``). Patterns not listed are "
        f"not weighed ({why_unweighed}: {', '.join(unweighed) or 'none'}) and keep their hand values."))
    Path(out).write_text(f'''"""{text}
"""

__all__ = ["WEIGHTS"]

WEIGHTS = {{
{listed}
}}
''')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--positions", default=str(HERE / "quiet-moves.jsonl.gz"),
                      help="weigh by Stockfish's quiet moves (this file's)")
    mode.add_argument("--results", nargs="?", const=str(RESULT_POSITIONS),
                      help="weigh by the results of games (this --collect file's)")
    mode.add_argument("--collect", nargs="*", metavar="PGN",
                      help="gather the positions of these games' results (every standard-chess game of "
                           "benchmarks/results) into data/result-positions.jsonl.gz")
    parser.add_argument("--ridge", type=float, help="10000 for the quiet moves, 0.03 for the results")
    parser.add_argument("--min-positions", type=int, help="300 for the quiet moves, 1000 for the results")
    parser.add_argument("--out", default=str(OUT), help="the module written (host/pattern_weights.py)")
    parser.add_argument("--stockfish-depth", type=int, metavar="D",
                        help="with --results: also Stockfish's error on the held-out openings at depth D")
    args = parser.parse_args(argv)
    if args.collect is not None:
        paths = args.collect or sorted(glob.glob(str(HERE.parent / "benchmarks" / "results" / "*.pgn")))
        entries, games = collect_results(paths)
        header = (f"Made by data/make_pattern_weights.py --collect from {len(paths)} PGN files, {games} games "
                  f"in all, {len(entries)} positions")
        write_results(RESULT_POSITIONS, entries, header)
        print(f"{header}: written to {RESULT_POSITIONS}")
        return 0
    if args.results:
        from host.pattern_weights import WEIGHTS

        ridge = 0.03 if args.ridge is None else args.ridge
        min_positions = 1000 if args.min_positions is None else args.min_positions
        positions = read_results(args.results)
        header = _read(args.results).splitlines()[0].lstrip("# ")
        weights, unweighed, errors = fit_results(positions, ridge, min_positions, current=WEIGHTS)
        note = (f"``data/{Path(args.results).name}`` ({header}): each pattern weighed by the games' results; "
                f"``--ridge {ridge:g} --min-positions {min_positions}``. The squared error on the held-out "
                f"openings' positions (one opening in {HELD_OUT}): {errors['tables']:.5f} with the tables alone, "
                f"{errors['hand']:.5f} with the patterns at their hand values, {errors['current']:.5f} with the "
                f"weights before, "
                f"{errors['weighed']:.5f} weighed.")
        if args.stockfish_depth:
            note += (f" Stockfish at depth {args.stockfish_depth}, its scale fitted on the held-out positions: "
                     f"{peer_error(positions, args.stockfish_depth):.5f}.")
        why = "relevant in too few positions"
    else:
        ridge = 10000.0 if args.ridge is None else args.ridge
        min_positions = 300 if args.min_positions is None else args.min_positions
        positions = read_positions(args.positions)
        header = _read(args.positions).splitlines()[0].lstrip("# ")
        weights, unweighed, agreement = fit(positions, ridge, min_positions)
        note = (f"``data/{Path(args.positions).name}`` ({header}), the positions and moves the tables' fit uses; "
                f"``--ridge {ridge:g} --min-positions {min_positions}``. Stockfish's best quiet move first: "
                f"{100 * agreement['tables']:.1f} % with the tables alone, {100 * agreement['hand']:.1f} % with "
                f"the patterns at their hand values, {100 * agreement['weighed']:.1f} % weighed.")
        why = "the quiet moves do not tell them apart"
    write_module(weights, unweighed, note, why, args.out)
    print(note)
    print("as --weights: " + ",".join(f"{name}={weight:g}" for name, weight in weights.items()))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
