"""Hardware perft on the Verilated machine: counts checked against the published ones, cycles
per leaf, and the projected speed at an Fmax.

    python -m benchmarks.perft [--depth N] [--max-leaves M] [--fmax MHZ]

Every standard position is run at depths 1..N, skipping a depth whose published count exceeds
M leaves (the simulation runs about 600,000 cycles/s). Cycles are exact; wall-clock seconds are
this machine's.
"""

import argparse
import sys
import time
from pathlib import Path

from host.epd import EpdRecord, read_positions
from sim.machine_sim import VerilatedMachine

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--max-leaves", type=int, default=20_000_000)
    parser.add_argument("--fmax", type=float, default=34.6, help="MHz for the projection (34.6: the machine top, routed)")
    args = parser.parse_args(argv)
    records = [r for r in read_positions((SHARED / "perft-standard.epd").read_text().splitlines())
               if isinstance(r, EpdRecord)]
    wrong = 0
    print("| position | depth | leaves | cycles | cycles per leaf | leaves/s at Fmax | wall s |")
    print("|---|---|---|---|---|---|---|")
    with VerilatedMachine() as hw:
        for number, record in enumerate(records, 1):
            for depth in range(1, args.depth + 1):
                published = int(record.operations.get(f"D{depth}", 0))
                if not published or published > args.max_leaves:
                    continue
                hw.set_board(record.board)
                start = time.perf_counter()
                leaves, cycles = hw.perft(depth)
                wall = time.perf_counter() - start
                mark = "" if leaves == published else f" (published {published}: WRONG)"
                wrong += leaves != published
                print(f"| {number} | {depth} | {leaves:,}{mark} | {cycles:,} | {cycles / leaves:.1f} | "
                      f"{args.fmax * 1e6 * leaves / cycles:,.0f} | {wall:.1f} |", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
