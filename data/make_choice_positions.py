"""Make the move-choice positions of ``benchmarks/choice.py``: ``choice-positions.jsonl``.

    python data/make_choice_positions.py [--count 240] [--seed 7] [--depth 10]

Needs Stockfish (``apt-get install stockfish``); the tests never run it. The positions come
from the games of ``benchmarks/results/*.pgn`` (the machine's matches against sunfish and
itself: ordinary middlegame and endgame positions, not chosen for a combination): every
position from ply 16 to 100 with at least ten pieces and the side to move not in check, shuffled
with ``--seed``, kept while Stockfish's best score at ``--depth`` is within ``BALANCE``
centipawns of level (the choice still matters), each with every legal move's score (up to
``MOVES`` of them as principal variations; a move not among them counts as the worst). A line:
``{"fen": ..., "scores": {uci: centipawns}}`` (the side to move's view, a mate as +-10000).
The scores are Stockfish's at that depth, with the version the file's first line names: a
measurement, not ground truth.
"""

import argparse
import glob
import json
import random
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.peers import engine_command  # noqa: E402

BALANCE = 300
MOVES = 60


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--out", default=str(HERE / "choice-positions.jsonl"))
    args = parser.parse_args(argv)
    candidates = []
    for name in sorted(glob.glob(str(HERE.parent / "benchmarks" / "results" / "*.pgn"))):
        with open(name) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    if 16 <= ply <= 100 and not board.is_check() and len(board.piece_map()) >= 10:
                        candidates.append(board.fen())
                    board.push(move)
    random.Random(args.seed).shuffle(candidates)
    candidates = list(dict.fromkeys(candidates))
    engine = chess.engine.SimpleEngine.popen_uci(engine_command("stockfish"))
    engine.configure({"Threads": 1, "Hash": 64})
    lines = [f"# Made by data/make_choice_positions.py --count {args.count} --seed {args.seed} --depth {args.depth} "
             f"with {engine.id.get('name')}"]
    try:
        for fen in candidates:
            board = chess.Board(fen)
            infos = engine.analyse(board, chess.engine.Limit(depth=args.depth),
                                   multipv=min(MOVES, board.legal_moves.count()))
            scores = {info["pv"][0].uci(): info["score"].relative.score(mate_score=10000) for info in infos}
            if abs(max(scores.values())) > BALANCE:
                continue
            lines.append(json.dumps({"fen": fen, "scores": scores}))
            if len(lines) > args.count:
                break
    finally:
        engine.quit()
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} positions written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
