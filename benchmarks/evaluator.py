"""Evaluator figures for BENCHMARKS.md: latency by unit count, download and read-back cycles,
simulation speed; optionally the block RAM arithmetic of each configuration.

    python -m benchmarks.evaluator [--positions N]

Cycles come from the Verilated evaluator (exact): random tables, random make/unmake walks
from the reference positions, the value checked against the model after every step. Cycles/s is
wall-clock on this machine, a halfmove every cycle played inside the native harness.
"""

import argparse
import random
import time
from dataclasses import replace

from hdl.eval.tables import FULL, HITECH, SMALL, TableKind
from models.evaluator import EvaluatorModel
from sim.eval_check import compare_walk, random_tables
from sim.eval_sim import VerilatedEvaluator
from sim.testing import reference_positions

CONFIGS = {
    "2 recognizers": replace(FULL, recognizers=2),
    "8 recognizers": replace(FULL, recognizers=8),
    "full (10 + 8 global)": FULL,
    "full, adder tree pipelined": replace(FULL, tree_stages=1),
    "Hitech's 14 + 8, narrow maps": HITECH,
    "small (iCE40)": SMALL,
}


def block_rams(params):
    """ECP5 DP16KD blocks (18 Kb, at most 9 bits wide per 2K entries) the tables need."""
    def blocks(entries, bits):
        per_block = {1: 16384, 2: 8192, 4: 4096, 9: 2048, 18: 1024, 36: 512}
        width = min(w for w in per_block if w >= min(bits, 36))
        lanes = -(-bits // width)
        return lanes * -(-entries // per_block[width])
    return sum(blocks(*params.table_geometry(unit, kind)[:2]) for unit, kind in params.tables()
               if kind != TableKind.CONFIG)


def measure(name, params, boards, rng):
    with VerilatedEvaluator(params) as hw:
        store = random_tables(params, rng.getrandbits(32))
        start = hw.cycles()
        hw.write_store(store)
        download = hw.cycles() - start
        sweep = sum(hw.checksum(unit, kind)[1] for unit, kind in params.tables())
        latencies, problems = set(), []
        for board in boards:
            hw.clear()
            model = EvaluatorModel(params, store)
            problems += compare_walk(hw, model, board, 8, rng)
            latencies.add(hw.settle_cycles)
        hw.value()
        start_time = time.perf_counter()
        cycles = hw.spin(2_000_000)
        wall = time.perf_counter() - start_time
    print(f"| {name} | {params.recognizers} + {params.globals} | {params.latency} | "
          f"{'/'.join(map(str, sorted(latencies)))} | {download:,} | {sweep:,} | {block_rams(params)} | "
          f"{len(problems)} |", flush=True)
    return cycles / wall


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=200)
    args = parser.parse_args(argv)
    records = reference_positions("random-positions.epd", args.positions)
    boards = [r.board for r in records]
    rng = random.Random(1)
    print(f"{len(boards)} positions, 8-ply walks out and back, value checked after every step")
    print("| configuration | recognizers + global | latency (design) | cycles to valid (measured) | "
          "download cycles | read-back cycles (all tables) | DP16KD for tables | mismatches |")
    print("|---|---|---|---|---|---|---|---|")
    speeds = {name: measure(name, params, boards, rng) for name, params in CONFIGS.items()}
    for name, speed in speeds.items():
        print(f"simulated {name}: {speed:,.0f} cycles/s (a halfmove every cycle, inside the harness)")


if __name__ == "__main__":
    main()
