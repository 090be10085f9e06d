"""Make a tactical or positional test suite from Stockfish self-play, the way ``tactics-dev.epd``
was made.

    python data/make_tactics.py [--kind tactical|positional] [--count 100] [--seed 1] [--nodes 300000]
                                [--out FILE]

Needs Stockfish (``apt-get install stockfish``); the tests never run it. Games start from the
balanced openings of ``openings.txt`` (one in turn per game) and go on with Stockfish's moves at
20,000 nodes, one move in ten a seeded random legal one, so the games leave the book and
stumble into positions with something to find. From ply 12 on, each position is analysed at
``--nodes`` with two principal variations; it is kept when the best move is clearly better
than the second — by at least ``GAP`` centipawns, a forced mate in at most five moves where
the second is none, or a move where the second is mated — and a shallow search (depth 2)
picks another move. At most two positions a game are kept, at least six plies apart, so one
game does not fill the suite.

``--kind positional`` keeps instead a quiet best move (no capture, check or promotion) in a
position still in the balance (the best line within ``BALANCE`` centipawns of level) that is
better than the second by at least ``QUIET_GAP`` centipawns, where the second is no capture
either and a depth-1 search picks another move: the knowledge to find, not a combination
(ids ``PD.NNN``, into ``positional-selfplay.epd``).

A line: ``FEN bm SAN; id "SP.NNN"; c0 "gap N cp";`` (or ``"mate N"``, ``"the second move is
mated in N"``), read by
``benchmarks/tactics.py`` like the development suite; the file is rewritten with each position
found, so a run cut short keeps what it found. The answers are Stockfish's, at the
node budget, with the version the run prints: a measurement, not ground truth. Runs are
reproducible only as far as Stockfish is (one thread, a fixed node budget: it is, for one
version).
"""

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.engine

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.match import read_openings  # noqa: E402
from benchmarks.peers import engine_command  # noqa: E402

GAP = 150           # centipawns between the best move and the second
MATE_MOVES = 5      # a forced mate in at most this many moves counts as clear
QUIET_GAP = 40      # centipawns, positional: between the quiet best move and the second
BALANCE = 250       # centipawns, positional: the best line's score at most this far from level
PLAY_NODES = 20000
RANDOM_MOVES = 0.1
FIRST_PLY = 12
MAX_PLIES = 160


def _clear(infos):
    """The gap text if the first line is clearly better than the second, else None."""
    if len(infos) < 2:
        return None
    best, second = infos[0]["score"].relative, infos[1]["score"].relative
    if best.is_mate():
        if 0 < best.mate() <= MATE_MOVES and not (second.is_mate() and second.mate() > 0):
            return f"mate {best.mate()}"
        return None
    if second.is_mate():
        return f"the second move is mated in {-second.mate()}" if second.mate() < 0 else None
    gap = best.score() - second.score()
    return f"gap {gap} cp" if gap >= GAP else None


def _quiet(board, infos):
    """The gap text if the first line is a quiet move, better than the second (no capture
    either) by ``QUIET_GAP`` in a position still in the balance, else None."""
    if len(infos) < 2:
        return None
    best, second = infos[0]["score"].relative, infos[1]["score"].relative
    if best.is_mate() or second.is_mate() or abs(best.score()) > BALANCE:
        return None
    move, other = infos[0]["pv"][0], infos[1]["pv"][0]
    if board.is_capture(move) or board.gives_check(move) or move.promotion or board.is_capture(other):
        return None
    gap = best.score() - second.score()
    return f"gap {gap} cp" if gap >= QUIET_GAP else None


#: Per kind: the ids' prefix, the file, the depth of the shallow search that must miss the move.
KINDS = {"tactical": ("SP", "tactics-selfplay.epd", 2), "positional": ("PD", "positional-selfplay.epd", 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=300000)
    parser.add_argument("--kind", choices=KINDS, default="tactical")
    parser.add_argument("--out", help="the file to write (tactics-selfplay.epd or positional-selfplay.epd here)")
    parser.add_argument("--prefix", help="the ids' prefix, for a second suite of a kind (its ids must differ from "
                                         "the first's); the kind's own by default")
    args = parser.parse_args(argv)
    prefix, name, shallow_depth = KINDS[args.kind]
    prefix = args.prefix or prefix
    args.out = args.out or str(HERE / name)
    rng = random.Random(args.seed)
    openings = read_openings()
    engine = chess.engine.SimpleEngine.popen_uci(engine_command("stockfish"))
    engine.configure({"Threads": 1, "Hash": 64})
    print(f"{engine.id.get('name')}: {args.count} positions, {args.nodes} nodes each", flush=True)
    lines, game_index = [], 0
    try:
        while len(lines) < args.count:
            name, start = openings[game_index % len(openings)]
            game_index += 1
            board = start.copy()
            kept, last_kept = 0, -100
            while not board.is_game_over() and board.ply() < MAX_PLIES and kept < 2 and len(lines) < args.count:
                if board.ply() >= FIRST_PLY and board.ply() - last_kept >= 6:
                    infos = engine.analyse(board, chess.engine.Limit(nodes=args.nodes), multipv=2)
                    gap = _clear(infos) if args.kind == "tactical" else _quiet(board, infos)
                    best = infos[0]["pv"][0]
                    if gap is not None:
                        shallow = engine.play(board, chess.engine.Limit(depth=shallow_depth)).move
                        if shallow != best:
                            kept, last_kept = kept + 1, board.ply()
                            lines.append(f'{board.epd()} bm {board.san(best)}; id "{prefix}.{len(lines) + 1:03d}"; '
                                         f'c0 "{gap}";')
                            print(lines[-1], f"(game {game_index}: {name})", flush=True)
                            Path(args.out).write_text("\n".join(lines) + "\n")     # kept if the run is cut short
                if rng.random() < RANDOM_MOVES:
                    move = rng.choice(list(board.legal_moves))
                else:
                    move = engine.play(board, chess.engine.Limit(nodes=PLAY_NODES)).move
                board.push(move)
    finally:
        engine.quit()
    print(f"{len(lines)} positions from {game_index} games written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
