"""Hardware perft on the Verilated machine: counts checked against the published ones, cycles
per leaf, and the projected speed at an Fmax.

    python -m benchmarks.perft [--depth N] [--max-leaves M] [--positions 2,5] [--fmax MHZ]
                               [--split-above L] [--jobs J] [--progress FILE] [--config small]
                               [--generator legal|lean]

Every standard position is run at depths 1..N, skipping a depth whose published count exceeds
M leaves. A count above L leaves is split by root move: the host makes each legal root move and
the hardware counts the perft of one ply less below it (``suprem perft --divide``); the parts
run in J processes, each with its own Verilated machine, and each finished part is appended to
the progress file, so an interrupted run resumes where it stopped. The total is the sum of the
parts; the root's own move generation is not in the cycle count.

Perft runs on the generator, the move maker and the controller only: its cycles do not depend
on the evaluator's configuration, and ``--config small`` builds the machine with the smallest
evaluator, whose simulation runs faster. ``--generator lean`` builds the machine with the
ULX3S-85F build's generator, which leaves pins to the search: a node whose children are leaves
and that has a pinned piece goes through its moves, making and testing the pinned pieces'. Cycles
are exact; wall-clock seconds are this machine's.
"""

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks import BOARD_CLOCK_MHZ
from hdl.eval.tables import CONFIGS
from sim.machine_sim import VerilatedMachine, machine_executable
from sim.testing import reference_positions

_worker_machine = None


def _part(config, legal_moves, fen, uci, depth):
    """The hardware perft of ``depth`` plies after the root move ``uci`` (in a worker process,
    which keeps its machine between parts): ``(leaves, cycles, wall seconds)``."""
    import chess
    global _worker_machine
    if _worker_machine is None:
        _worker_machine = VerilatedMachine(CONFIGS[config], legal_moves=legal_moves)
    board = chess.Board(fen)
    board.push_uci(uci)
    start = time.perf_counter()
    _worker_machine.set_position(board)
    leaves, cycles = _worker_machine.perft(depth)
    return leaves, cycles, time.perf_counter() - start


class Progress:
    """Finished parts of split perfts, one JSON object per line, keyed by generator (legal when
    not named), position, depth and root move; kept across runs."""

    def __init__(self, path):
        self.path, self.parts = path, {}
        if path and path.exists():
            for line in path.read_text().splitlines():
                if line.strip():
                    part = json.loads(line)
                    self.parts[self.key(part)] = part

    @staticmethod
    def key(part):
        return part.get("generator", "legal"), part["position"], part["depth"], part["move"]

    def add(self, part):
        self.parts[self.key(part)] = part
        if self.path:
            with self.path.open("a") as out:
                out.write(json.dumps(part) + "\n")


def split_perft(pool, config, generator, number, record, depth, progress):
    """``(leaves, cycles, wall)`` of a perft split by root move, parts run in ``pool``."""
    fen = record.board.fen()
    moves = sorted(move.uci() for move in record.board.legal_moves)
    pending = {}
    for uci in moves:
        if (generator, number, depth, uci) not in progress.parts:
            pending[uci] = pool.submit(_part, config, generator == "legal", fen, uci, depth - 1)
    for uci, future in pending.items():
        leaves, cycles, wall = future.result()
        progress.add({"generator": generator, "position": number, "depth": depth, "move": uci, "leaves": leaves,
                      "cycles": cycles, "wall": round(wall, 1)})
        print(f"  position {number} depth {depth}: {uci} {leaves:,} leaves, {cycles:,} cycles", flush=True)
    parts = [progress.parts[(generator, number, depth, uci)] for uci in moves]
    return (sum(p["leaves"] for p in parts), sum(p["cycles"] for p in parts), sum(p["wall"] for p in parts))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--max-leaves", type=int, default=20_000_000)
    parser.add_argument("--positions", help="standard positions to run, e.g. 2,5,6 (all)")
    parser.add_argument("--split-above", type=int, default=20_000_000, metavar="L",
                        help="split counts above L leaves by root move (20,000,000)")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the parts of split perfts (1)")
    parser.add_argument("--progress", type=Path, help="file of finished parts, appended to and resumed from")
    parser.add_argument("--config", choices=sorted(CONFIGS), default="full",
                        help="the evaluator the machine is built with (perft does not use it)")
    parser.add_argument("--generator", choices=("legal", "lean"), default="legal",
                        help="the machine's move generator (legal; the ULX3S-85F build's is lean)")
    parser.add_argument("--fmax", type=float, default=BOARD_CLOCK_MHZ,
                        help=f"MHz for the projection ({BOARD_CLOCK_MHZ}: the ULX3S-85F build's core clock)")
    args = parser.parse_args(argv)
    records = reference_positions("perft-standard.epd")
    chosen = {int(n) for n in args.positions.split(",")} if args.positions else set(range(1, len(records) + 1))
    legal_moves = args.generator == "legal"
    machine_executable(CONFIGS[args.config], legal_moves=legal_moves)     # build (once) before the workers start
    progress = Progress(args.progress)
    wrong = 0
    print("| position | depth | leaves | cycles | cycles per leaf | leaves/s at Fmax | wall s |")
    print("|---|---|---|---|---|---|---|")
    with (VerilatedMachine(CONFIGS[args.config], legal_moves=legal_moves) as hw,
          ProcessPoolExecutor(max(1, args.jobs)) as pool):
        for number, record in enumerate(records, 1):
            if number not in chosen:
                continue
            for depth in range(1, args.depth + 1):
                published = int(record.operations.get(f"D{depth}", 0))
                if not published or published > args.max_leaves:
                    continue
                if published > args.split_above and depth >= 2:
                    leaves, cycles, wall = split_perft(pool, args.config, args.generator, number, record, depth,
                                                       progress)
                else:
                    hw.set_position(record.board)
                    start = time.perf_counter()
                    leaves, cycles = hw.perft(depth)
                    wall = time.perf_counter() - start
                mark = "" if leaves == published else f" (published {published:,}: WRONG)"
                wrong += leaves != published
                print(f"| {number} | {depth} | {leaves:,}{mark} | {cycles:,} | {cycles / leaves:.1f} | "
                      f"{args.fmax * 1e6 * leaves / cycles:,.0f} | {wall:.1f} |", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
