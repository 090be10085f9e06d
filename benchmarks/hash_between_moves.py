"""The transposition table between the moves of a game: kept, or cleared before each move.

    python -m benchmarks.hash_between_moves [--plies N] [--depth D] [--games G]

Each game is played by the machine against itself from a seeded opening (four random plies),
iterative deepening to depth D per move, with the table cleared before every move (so the
moves played do not depend on what the other policy left in the table). Then the same
positions are searched again in the same order with the table kept from move to move, as a
game engine keeps it. Printed: the nodes per game of each policy, and how many moves each
policy searched in fewer nodes. The Verilated machine (FULL evaluator, the `patterns` tables)
is driven directly; every search is deterministic, so the figures are exact.
"""

import argparse
import random

import chess

from hdl.eval.tables import FULL
from sim.machine_sim import VerilatedMachine
from sim.search_check import table_store


def deepen(machine, game, depth):
    """Iterative deepening to ``depth`` from ``game``; the nodes of all iterations and the move."""
    machine.set_board(game)
    nodes, move = 0, None
    for d in range(1, depth + 1):
        result = machine.search(d)
        nodes += result.nodes
        move = result.move
    return nodes, move


def play_game(machine, seed, plies, depth):
    game = chess.Board()
    rng = random.Random(seed)
    for _ in range(4):
        game.push(rng.choice(list(game.legal_moves)))
    positions, cleared = [], []
    while len(positions) < plies and not game.is_game_over(claim_draw=True):
        machine.clear_hash()
        nodes, move = deepen(machine, game, depth)
        positions.append(game.copy())
        cleared.append(nodes)
        game.push(move if move in game.legal_moves else next(iter(game.legal_moves)))
    return positions, cleared


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    totals = {"cleared": 0, "kept": 0}
    with VerilatedMachine(FULL) as machine:
        machine.write_store(table_store(FULL, "patterns"))
        for seed in range(args.games):
            positions, cleared = play_game(machine, seed, args.plies, args.depth)
            machine.clear_hash()
            kept = [deepen(machine, game, args.depth)[0] for game in positions]
            fewer = sum(k < c for k, c in zip(kept, cleared))
            half = len(positions) // 2
            print(f"game {seed}: {len(positions)} moves; nodes cleared {sum(cleared):,}, kept {sum(kept):,} "
                  f"({sum(kept) / sum(cleared):.3f}); kept needs fewer nodes in {fewer} moves; second half of the "
                  f"game: cleared {sum(cleared[half:]):,}, kept {sum(kept[half:]):,}", flush=True)
            totals["cleared"] += sum(cleared)
            totals["kept"] += sum(kept)
    print(f"all games, depth {args.depth}: cleared before each move {totals['cleared']:,} nodes, kept "
          f"{totals['kept']:,} ({totals['kept'] / totals['cleared']:.3f} of cleared)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
