"""The transposition table between the moves of a game: cleared, kept, or kept and aged.

    python -m benchmarks.hash_between_moves [--plies N] [--depth D] [--games G]

Each game is played by the machine against itself from a seeded opening (four random plies),
iterative deepening to depth D per move, with the table cleared before every move (so the
moves played do not depend on what a policy left in the table). Then the same positions are
searched again, in the same order, under each policy:

* ``cleared``: the table emptied before every move;
* ``kept``: the table kept from move to move, every search of the same generation (so deep
  entries of earlier moves are replaced only by deeper ones: they pile up);
* ``aged``: kept, each move's searches a new generation (what the host does: entries of
  earlier moves answer probes but give way to the current search's stores).

Printed per game and in all: the nodes of each policy (every iteration of every move), and
over the second half of each game, where stale entries have had time to pile up. The
Verilated machine (FULL evaluator, the ``patterns`` tables) is driven directly; every search is
deterministic, so the figures are exact.
"""

import argparse
import random

import chess

from hdl.eval.tables import FULL
from sim.machine_sim import VerilatedMachine
from sim.search_check import table_store

POLICIES = ("cleared", "kept", "aged")


def deepen(machine, game, depth, generation=0):
    """Iterative deepening to ``depth`` from ``game``; the nodes of all iterations and the move."""
    machine.set_position(game)
    nodes, move = 0, None
    for d in range(1, depth + 1):
        result = machine.search(d, generation=generation)
        nodes += result.nodes
        move = result.move
    return nodes, move


def play_game(machine, seed, plies, depth):
    """The positions of a game the machine plays against itself (the table cleared each move)."""
    game = chess.Board()
    rng = random.Random(seed)
    for _ in range(4):
        game.push(rng.choice(list(game.legal_moves)))
    positions = []
    while len(positions) < plies and not game.is_game_over(claim_draw=True):
        machine.clear_hash()
        _, move = deepen(machine, game, depth)
        positions.append(game.copy())
        game.push(move if move in game.legal_moves else next(iter(game.legal_moves)))
    return positions


def replay(machine, positions, depth, policy):
    """The nodes per move of searching ``positions`` in order under ``policy``."""
    machine.clear_hash()
    nodes = []
    for number, game in enumerate(positions):
        if policy == "cleared":
            machine.clear_hash()
        nodes.append(deepen(machine, game, depth, generation=number if policy == "aged" else 0)[0])
    return nodes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=30)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    totals = {policy: [0, 0] for policy in POLICIES}        # all moves, second half
    with VerilatedMachine(FULL) as machine:
        machine.write_store(table_store(FULL, "patterns"))
        for seed in range(args.games):
            positions = play_game(machine, seed, args.plies, args.depth)
            half = len(positions) // 2
            line = []
            for policy in POLICIES:
                nodes = replay(machine, positions, args.depth, policy)
                totals[policy][0] += sum(nodes)
                totals[policy][1] += sum(nodes[half:])
                line.append(f"{policy} {sum(nodes):,} (second half {sum(nodes[half:]):,})")
            print(f"game {seed}, {len(positions)} moves: " + "; ".join(line), flush=True)
    base = totals["cleared"]
    print(f"all games, depth {args.depth}, nodes: " + "; ".join(
        f"{policy} {all_:,} ({all_ / base[0]:.3f} of cleared), second halves {late:,} ({late / base[1]:.3f})"
        for policy, (all_, late) in totals.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
