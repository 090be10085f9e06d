"""The Oracle's time per root: analysis and choice with compilation, then the download to the
board, for each kind of knowledge.

    python -m benchmarks.oracle [--game PGN] [--positions N] [--knowledge phase,root,material] [--board]

The roots are those of a game, one after the other as the machine meets them (default: the
first game of a shipped match, ``benchmarks/results/``): every position where its player was
to move, up to N. For each root: the wall time of ``Oracle.allocate`` (the root analysis, the
patterns chosen and compiled) and, with ``--board``, of ``RemoteMachine.download`` on a
simulated board (only the tables whose checksums changed are sent: in a game most roots change
only the first-order table). Printed: mean and largest per root, and how many patterns and
recognizers the allocations used. The simulated board's link runs at its simulation's speed,
far below a real board's 1 Mbaud: its download times are an upper bound.
"""

import argparse
import contextlib
import sys
import time
from pathlib import Path

import chess
import chess.pgn

from hdl.eval.tables import FULL
from host.oracle import KNOWLEDGE, Oracle

GAME = Path(__file__).parent / "results" / "match-sunfish-10k-2026-11-24-eleven-features.pgn"


def game_roots(path):
    """The positions of the first game of the PGN file ``path`` where the player named SUPREM
    (else White) was to move, with the game's moves before them."""
    with open(path) as f:
        game = chess.pgn.read_game(f)
    colour = chess.BLACK if game.headers.get("Black") == "SUPREM" else chess.WHITE
    roots, board = [], game.board()
    for move in game.mainline_moves():
        if board.turn == colour:
            roots.append(board.copy())
        board.push(move)
    return roots


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default=str(GAME), help="a PGN file: its first game's roots")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--knowledge", default=",".join(KNOWLEDGE))
    parser.add_argument("--board", action="store_true", help="download to a simulated board too")
    args = parser.parse_args(argv)
    boards = game_roots(args.game)[:args.positions]
    if args.board:
        from sim.board_sim import open_machine
        opened = open_machine(eval_params=FULL)
    else:
        opened = contextlib.nullcontext()
    with opened as machine:
        for knowledge in args.knowledge.split(","):
            oracle = Oracle(FULL, knowledge)
            choose, send, patterns, recognizers = [], [], 0, 0
            for board in boards:
                start = time.perf_counter()
                allocation = oracle.allocate(board)
                choose.append(time.perf_counter() - start)
                patterns += len(allocation.chosen)
                recognizers += sum(name is not None for name in allocation.recognizers)
                if machine is not None:
                    start = time.perf_counter()
                    machine.set_position(board)
                    machine.download(allocation.store)
                    send.append(time.perf_counter() - start)
            line = (f"{knowledge:9} {len(boards)} roots: choose and compile {1000 * sum(choose) / len(choose):6.0f} ms "
                    f"mean, {1000 * max(choose):6.0f} ms largest; {patterns / len(boards):.1f} patterns, "
                    f"{recognizers / len(boards):.1f} recognizers per root")
            if send:
                line += f"; download {1000 * sum(send) / len(send):6.0f} ms mean, {1000 * max(send):6.0f} ms largest"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
