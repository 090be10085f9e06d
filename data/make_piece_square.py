"""Fit the Oracle's piece-square tables to Stockfish's choice between quiet moves:
``host/piece_square.py``.

    python data/make_piece_square.py [--games 1000] [--depth 7] [--seed 1] [--jobs 2] [--ridge 1]
                                     [--positions data/quiet-moves.jsonl.gz] [--fit-only]

Needs Stockfish (``apt-get install stockfish``) to make positions (the tests never run it), and
NumPy (installed with the tests' extras) to fit.

Positions: games from the balanced openings of ``openings.txt`` (one in turn per game), played
on by Stockfish at ``PLAY_NODES`` a move with one move in eight a seeded random legal one, so
the games leave the book and reach odd piece placements as well. From ply ``FIRST_PLY`` on,
about one position in ``1 / SAMPLE`` where the side to move is not in check has every quiet
move (no capture, no promotion, no check) scored by Stockfish at ``--depth`` (all of them as
principal variations); each such position is a JSON line of ``--positions`` (gzipped when its
name ends in ``.gz``): its EPD and each quiet move's score (centipawns, the side to move's
view). Each game has its own seeded random moves and starts from a cleared hash table, so the
file does not depend on ``--jobs``.

What a table is for in a shallow search is choosing between moves that win nothing: the fit
makes each quiet move's change of the table value (the piece's value on its new square less its
old, a castling's king and rook both; the side to move's view) follow Stockfish's score of the
move, both measured from the position's mean over its quiet moves, the scores' deviations
clipped to +-``CLIP`` (a quiet move that loses a piece to a combination says nothing about
squares). A position where a piece of the side to move is in danger (attacked by a cheaper
piece, or attacked and undefended) is left out — its best quiet move is an escape, which would
teach the tables that pieces belong at home — and so is a move that puts the moved piece in
danger. A table value is the blend ``phase * middlegame + (1 - phase) * endgame`` of two
tables, ``phase`` = ``host.analysis.game_phase_fraction`` (1 with every piece of the opening on
the board, 0 with none). Least squares with a ridge of ``--ridge`` per position count towards
the piece's material value ``PRIOR`` on every square (0 for the king): moves fix only the
differences between a piece's squares, the ridge its level (its material) and the squares it
rarely reaches. Pawns on the first and last ranks are no parameters (0). The result, rounded
to centipawns, is written as ``host/piece_square.py`` with how it was made; the fit's
agreement is printed.
"""

import argparse
import gzip
import json
import random
import sys
import threading
from pathlib import Path

import chess
import chess.engine

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.match import read_openings  # noqa: E402
from benchmarks.peers import engine_command  # noqa: E402
from host.analysis import PIECE_VALUES, game_phase_fraction  # noqa: E402

PLAY_NODES = 2000
RANDOM_MOVES = 0.125
FIRST_PLY = 8
MAX_PLIES = 200
SAMPLE = 1 / 6
CLIP = 150
#: Each piece's value on a square it seldom stands on: its material (the root analysis's), the king's 0.
PRIOR = {piece_type: 0 if piece_type == chess.KING else PIECE_VALUES[piece_type] for piece_type in chess.PIECE_TYPES}
OUT = HERE.parent / "host" / "piece_square.py"


def make_positions(path, games, depth, seed, jobs):
    """Play ``games`` games (``jobs`` Stockfish processes at once) and write the kept positions
    to ``path`` in the games' order."""
    openings = read_openings()

    def play(engine, game):
        return _play_game(engine, openings[game % len(openings)][1], random.Random(seed * 100003 + game), depth, game)

    found, name = play_games("stockfish", games, jobs, play)
    header = f"# Made by data/make_piece_square.py --games {games} --depth {depth} --seed {seed} with {name}"
    _write(path, "\n".join([header] + [line for game in sorted(found) for line in found[game]]) + "\n")


def play_games(engine_name, games, jobs, play):
    """``play(engine, game)`` for every game 0 .. ``games`` - 1, on ``jobs`` processes of the
    engine ``engine_name`` at once (one thread and 16 MB of hash each), printing progress;
    returns ``({game: what play returned (a list of lines)}, the engine's name)``."""
    found = {}                  # game -> its lines
    lock = threading.Lock()
    names = []

    def run(job):
        engine = chess.engine.SimpleEngine.popen_uci(engine_command(engine_name))
        engine.configure({"Threads": 1, "Hash": 16})
        names.append(engine.id.get("name"))
        try:
            for game in range(job, games, jobs):
                lines = play(engine, game)
                with lock:
                    found[game] = lines
                    if len(found) % 10 == 0:
                        print(f"{len(found)} games, {sum(map(len, found.values()))} positions", flush=True)
        finally:
            engine.quit()

    threads = [threading.Thread(target=run, args=(job,)) for job in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return found, names[0]


def _write(path, text):
    with (gzip.open(path, "wt") if str(path).endswith(".gz") else open(path, "w")) as f:
        f.write(text)


def _read(path):
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
        return f.read()


def _play_game(engine, start, rng, depth, game):
    """The kept positions' lines of one game from ``start``."""
    board, lines = start.copy(), []
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        if board.ply() >= FIRST_PLY and not board.is_check() and rng.random() < SAMPLE:
            quiet = [move for move in board.legal_moves if _quiet(board, move)]
            if len(quiet) >= 2:
                infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=500, root_moves=quiet,
                                       game=game)
                scores = {info["pv"][0]: info["score"].relative for info in infos if info.get("pv")}
                if all(not score.is_mate() for score in scores.values()) and len(scores) >= 2:
                    lines.append(json.dumps({"epd": board.epd(),
                                             "moves": {m.uci(): v.score() for m, v in scores.items()}}))
        if rng.random() < RANDOM_MOVES:
            move = rng.choice(list(board.legal_moves))
        else:
            move = engine.play(board, chess.engine.Limit(nodes=PLAY_NODES), game=game).move
        board.push(move)
    return lines


def _quiet(board, move):
    return not (board.is_capture(move) or move.promotion or board.gives_check(move))


def read_positions(path):
    """``[(board, {move: score})]`` from a positions file."""
    positions = []
    for line in _read(path).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        entry = json.loads(line)
        board = chess.Board(entry["epd"] + " 0 1")
        positions.append((board, {chess.Move.from_uci(uci): score for uci, score in entry["moves"].items()}))
    return positions


def _index(piece_type, square):
    return (piece_type - 1) * 64 + square


def _changes(board, move):
    """``[(piece type, square, sign)]``: the table entries a quiet move takes away (-1) and adds
    (+1), squares from the mover's view (White's, or mirrored for Black)."""
    def own(square):
        return square if board.turn == chess.WHITE else chess.square_mirror(square)

    piece_type = board.piece_type_at(move.from_square)
    changes = [(piece_type, own(move.from_square), -1), (piece_type, own(move.to_square), 1)]
    if board.is_castling(move):
        rook_from = chess.H1 if chess.square_file(move.to_square) == 6 else chess.A1
        rook_to = chess.F1 if rook_from == chess.H1 else chess.D1
        changes += [(chess.ROOK, rook_from, -1), (chess.ROOK, rook_to, 1)]
    return changes


#: Material for telling threats: a piece attacked by a cheaper one is in danger.
_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}


def _in_danger(board, square, colour):
    """Whether the piece of ``colour`` on ``square`` is attacked by a cheaper piece, or attacked
    and not defended."""
    attackers = board.attackers(not colour, square)
    if not attackers:
        return False
    cheapest = min(_VALUE[board.piece_type_at(a)] for a in attackers)
    return cheapest < _VALUE[board.piece_type_at(square)] or not board.attackers(colour, square)


def _threatened(board):
    """Whether a piece of the side to move besides the king is in danger: its best quiet move is
    then an escape, which says nothing about squares."""
    return any(_in_danger(board, square, board.turn) for square in chess.SquareSet(board.occupied_co[board.turn])
               if board.piece_type_at(square) != chess.KING)


def _safe(board, move):
    """Whether ``move`` leaves the moved piece out of danger (a king always is: moves are legal)."""
    after = board.copy(stack=False)
    after.push(move)
    return after.piece_type_at(move.to_square) == chess.KING or not _in_danger(after, move.to_square, board.turn)


def kept(positions):
    """The positions and moves the fits use: ``(board, {move: score})`` of each position where
    no piece of the side to move is in danger, its moves that put no piece in danger, where two
    or more are left."""
    for board, scores in positions:
        if _threatened(board):
            continue
        scores = {move: score for move, score in scores.items() if _safe(board, move)}
        if len(scores) >= 2:
            yield board, scores


def fit(positions, ridge):
    """``(middlegame, endgame, agreement, used)``: tables {piece type: [64 values, a1..h8,
    White's view]}, how often the fitted tables put first the quiet move Stockfish scores best,
    and how many positions the fit used (those with no piece in danger and two safe moves)."""
    import numpy as np

    count = 6 * 64
    rows, target, groups = [], [], []
    for board, scores in kept(positions):
        phase = game_phase_fraction(board)
        mean = sum(scores.values()) / len(scores)
        start = len(rows)
        for move, score in scores.items():
            row = np.zeros(2 * count)
            for piece_type, square, sign in _changes(board, move):
                row[_index(piece_type, square)] += sign * phase
                row[count + _index(piece_type, square)] += sign * (1 - phase)
            rows.append(row)
            target.append(max(-CLIP, min(CLIP, score - mean)))
        block = np.array(rows[start:])
        rows[start:] = list(block - block.mean(axis=0))
        groups.append((start, len(rows), list(scores).index(max(scores, key=scores.get))))
    rows, target = np.array(rows), np.array(target)
    prior = np.zeros(2 * count)
    fixed = np.zeros(2 * count, dtype=bool)
    for piece_type in chess.PIECE_TYPES:
        for square in range(64):
            for half in (0, count):
                prior[half + _index(piece_type, square)] = PRIOR[piece_type]
                if piece_type == chess.PAWN and chess.square_rank(square) in (0, 7):
                    fixed[half + _index(piece_type, square)] = True
    weight = ridge * len(positions) / (2 * count)
    normal = rows.T @ rows + weight * np.eye(2 * count)
    right = rows.T @ target + weight * prior
    for index in np.flatnonzero(fixed):
        normal[index, :] = 0
        normal[:, index] = 0
        normal[index, index] = 1
        right[index] = 0
    solution = np.linalg.solve(normal, right)
    predicted = rows @ solution
    agree = sum(int(np.argmax(predicted[a:b])) == best for a, b, best in groups)
    tables = [{piece_type: [int(round(solution[half + _index(piece_type, square)])) for square in range(64)]
               for piece_type in chess.PIECE_TYPES} for half in (0, count)]
    return tables[0], tables[1], agree / len(groups), len(groups)


def write_module(middlegame, endgame, agreement, note):
    def table(tables):
        lines = []
        for piece_type in chess.PIECE_TYPES:
            lines.append(f"    chess.{chess.piece_name(piece_type).upper()}: (")
            values = tables[piece_type]
            for rank in range(8):
                lines.append("        " + ", ".join(f"{v:4d}" for v in values[8 * rank:8 * rank + 8]) + ",")
            lines.append("    ),")
        return "\n".join(lines)

    OUT.write_text(f'''"""The first-order table's piece values by square, fitted to Stockfish's scores of quiet moves
by ``data/make_piece_square.py`` (generated: do not edit; run the script again).

{note}

Each table holds a piece's value (material included, the king's 0 on average) on every square
from a1 to h8 (rank by rank) from White's view; Black's pieces read the mirrored square. The
first-order table at a root blends them by the root's phase (``host.patterns.MaterialPieceSquare``).
Over those positions the tables alone put Stockfish's best quiet move first in {100 * agreement:.0f} %.
"""

import chess

__all__ = ["MIDDLEGAME", "ENDGAME"]

#: With every piece of the opening on the board (phase 1).
MIDDLEGAME = {{
{table(middlegame)}
}}

#: With no piece besides pawns and kings (phase 0).
ENDGAME = {{
{table(endgame)}
}}
''')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=7, help="Stockfish's depth for the moves' scores")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="Stockfish processes at once")
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--positions", default=str(HERE / "quiet-moves.jsonl.gz"))
    parser.add_argument("--fit-only", action="store_true", help="fit the positions file as it is")
    args = parser.parse_args(argv)
    if not args.fit_only:
        make_positions(args.positions, args.games, args.depth, args.seed, args.jobs)
    positions = read_positions(args.positions)
    header = _read(args.positions).splitlines()[0].lstrip("# ")
    middlegame, endgame, agreement, used = fit(positions, args.ridge)
    note = (f"``data/{Path(args.positions).name}``: {len(positions):,} positions\n({header}),\n"
            f"{used:,} of them used (no piece of the side to move in danger); ``--ridge {args.ridge:g}``.")
    write_module(middlegame, endgame, agreement, note)
    print(f"{len(positions):,} positions, {used:,} used: Stockfish's best quiet move first {100 * agreement:.1f} %; "
          f"written to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
