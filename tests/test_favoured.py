"""The favoured squares (hdl/search/favoured.py) in the Amaranth simulator against the reference
search's model of them (``models.search.CutoffCounts``): seeded random cutoffs, many on a few
squares so that counts reach their maximum and every count is halved, clears and loads; after
each load the favoured squares equal the model's, per side."""

import random

from hdl.search.favoured import FavouredSquares
from models.search import CutoffCounts
from sim.testing import simulate


def test_the_counts_and_the_squares_loaded_equal_the_model():
    dut = FavouredSquares()
    rng = random.Random(21)
    problems, loads, favoured_seen, halvings = [], 0, 0, 0

    async def bench(ctx):
        nonlocal loads, favoured_seen, halvings
        model = CutoffCounts()
        hot = [(rng.randrange(2), rng.randrange(64)) for _ in range(6)]
        for step in range(3000):
            action = rng.random()
            if action < 0.002:
                ctx.set(dut.clear, 1)
                await ctx.tick()
                ctx.set(dut.clear, 0)
                model = CutoffCounts()
            elif action < 0.04:
                use = rng.randrange(4) != 0
                ctx.set(dut.load.valid, 1)
                ctx.set(dut.load.payload, use)
                await ctx.tick()
                ctx.set(dut.load.valid, 0)
                loads += 1
                want = [model.favoured(side) if use else 0 for side in (0, 1)]
                got = [ctx.get(dut.favoured[side]) for side in (0, 1)]
                favoured_seen += any(want)
                if got != want:
                    problems.append(f"step {step}: favoured {[hex(g) for g in got]}, model {[hex(w) for w in want]}")
            else:
                side, square = rng.choice(hot) if rng.random() < 0.7 else (rng.randrange(2), rng.randrange(64))
                halvings += model.counts[side][square] == 15
                ctx.set(dut.cutoff.valid, 1)
                ctx.set(dut.cutoff.payload, {"side": side, "square": square})
                await ctx.tick()
                ctx.set(dut.cutoff.valid, 0)
                model.count(side, square)

    simulate(dut, bench)
    assert not problems, "\n".join(problems[:5])
    assert loads > 50 and favoured_seen > 20 and halvings > 5, (loads, favoured_seen, halvings)
