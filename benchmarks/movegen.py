"""Move-generator figures for BENCHMARKS.md: cycles per move and query, simulation speed.

    python -m benchmarks.movegen [--limit N]

Cycles come from the Verilated generator (exact); cycles/s is wall-clock on this machine,
measured by a hardware perft running inside the native harness (no Python in the loop).
"""

import argparse
import time

from hdl.movegen.layouts import GenOp
from sim.movegen_sim import VerilatedMovegen
from sim.testing import reference_positions


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=2000)
    args = parser.parse_args(argv)
    records = reference_positions("random-positions.epd", args.limit)
    per_position = []
    moves_total = cycles_total = 0
    legal_cycles = []
    request_cycles = []          # NEXT issued as soon as the previous answer came
    with VerilatedMovegen() as hw:
        for record in records:
            hw.set_position(record.board)
            moves, cycles = hw.generate()
            if moves:
                per_position.append(cycles / len(moves))
                moves_total += len(moves)
                cycles_total += cycles
                request_cycles += [m.cycles for m in moves[1:]]
                legal_cycles.append(hw.request(GenOp.LEGAL, move=moves[0].word).cycles)
        print(f"positions {len(records)}, moves {moves_total}")
        print("cycles per emitted move (whole ply incl. the final 'exhausted'): "
              f"mean {cycles_total / moves_total:.2f}, "
              f"worst position {max(per_position):.2f}")
        print(f"NEXT after NEXT at one ply: {sum(request_cycles) / len(request_cycles):.2f} cycles per move "
              f"(worst {max(request_cycles)}); legality query {max(legal_cycles)} cycles")
        hw.set_position(next(r.board for r in reference_positions("perft-standard.epd") if "Pppp" in r.board.fen()))
        start = time.perf_counter()
        count, cycles = hw.perft(3)
        wall = time.perf_counter() - start
        print(f"hardware perft 3 (standard position 4): {count} leaves, {cycles} cycles, "
              f"{cycles / count:.1f} cycles/leaf; simulated {cycles / wall:,.0f} cycles/s")


if __name__ == "__main__":
    main()
