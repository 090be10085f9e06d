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
"""

import argparse
import sys
import textwrap
from pathlib import Path

import chess

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from make_piece_square import CLIP, _read, kept, read_positions  # noqa: E402

from host.analysis import analyse, game_phase_fraction  # noqa: E402
from host.library import LIBRARY  # noqa: E402
from host.patterns import MaterialPieceSquare  # noqa: E402

OUT = HERE.parent / "host" / "pattern_weights.py"


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


def write_module(weights, unweighed, note):
    listed = "\n".join(f"    {name!r}: {weight:.2f}," for name, weight in weights.items())
    text = "\n\n".join(textwrap.fill(paragraph, 95, break_on_hyphens=False) for paragraph in (
        "How much of each pattern's hand value the Oracle's ``root`` knowledge installs, weighed against "
        "the fitted piece-square tables by ``data/make_pattern_weights.py`` (generated: do not edit; run "
        "the script again).",
        note,
        "A pattern's values are scaled by its weight: a first-order pattern's entries rounded to "
        "centipawns, a recognizer's outputs to its final map's step (a weight of 0 leaves a pattern out, "
        "and a recognizer is left out below ``host.oracle.RECOGNIZER_WEIGHT``). Patterns not listed are "
        "not weighed (the quiet moves do not "
        f"tell them apart: {', '.join(unweighed)}) and keep their hand values."))
    OUT.write_text(f'''"""{text}
"""

__all__ = ["WEIGHTS"]

WEIGHTS = {{
{listed}
}}
''')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", default=str(HERE / "quiet-moves.jsonl.gz"))
    parser.add_argument("--ridge", type=float, default=10000.0)
    parser.add_argument("--min-positions", type=int, default=300)
    args = parser.parse_args(argv)
    positions = read_positions(args.positions)
    header = _read(args.positions).splitlines()[0].lstrip("# ")
    weights, unweighed, agreement = fit(positions, args.ridge, args.min_positions)
    note = (f"``data/{Path(args.positions).name}`` ({header}), the positions and moves the tables' fit uses; "
            f"``--ridge {args.ridge:g} --min-positions {args.min_positions}``. Stockfish's best quiet move first: "
            f"{100 * agreement['tables']:.1f} % with the tables alone, {100 * agreement['hand']:.1f} % with the "
            f"patterns at their hand values, {100 * agreement['weighed']:.1f} % weighed.")
    write_module(weights, unweighed, note)
    print(note)
    print(f"written to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
