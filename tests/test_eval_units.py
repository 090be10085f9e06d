"""Amaranth-simulator tests of the evaluator's small units and of a tiny whole evaluator,
each against plain Python (the bit-exact model for the whole)."""

import random
import zlib

import chess
import pytest

from hdl.eval.accumulator import FieldAccumulator
from hdl.eval.crc import Crc32
from hdl.eval.evaluator import Evaluator
from hdl.eval.tables import EvaluatorParams, TableKind, table_checksum
from hdl.eval.tree import AdderTree
from models.evaluator import EvaluatorModel, field_add, field_sub, signed
from models.position import transfers
from sim.eval_check import random_tables, table_writes, walk_steps
from sim.testing import play_halfmoves, simulate

#: Two wide recognizers and a narrow one.
TINY = EvaluatorParams(recognizers=3, globals=2, branch_bits=6, combine_bits=6, final_bits=7,
                       context_bits=(1, 2, 1), global_bits=6, narrow=1, narrow_bits=(5, 5, 6))


@pytest.mark.parametrize("width", [8, 24])
def test_field_accumulator_matches_per_field_arithmetic(width):
    """Each cycle zero, one or two amounts, added or subtracted field by field: the second
    after the first, as if a cycle apart."""
    dut = FieldAccumulator(width)
    rng = random.Random(width)
    mask = (1 << width) - 1

    async def bench(ctx):
        state = 0
        for step in range(600):
            tops = rng.getrandbits(width) | 1 << (width - 1)
            clear = rng.random() < 0.02
            ctx.set(dut.tops, tops)
            ctx.set(dut.clear, clear)
            want = state
            for k in range(2):
                amount = rng.getrandbits(width)
                place, valid = rng.random() < 0.5, rng.random() < 0.8
                ctx.set(dut.amount[k], amount)
                ctx.set(dut.place[k], place)
                ctx.set(dut.valid[k], valid)
                if valid:
                    want = (field_add if place else field_sub)(want, amount, tops, width) & mask
            if clear:
                want = 0
            assert ctx.get(dut.next) == want, f"step {step}: {state:#x} tops {tops:#x}"
            await ctx.tick()
            assert ctx.get(dut.state) == want
            state = want

    simulate(dut, bench)


def test_field_carries_stay_in_their_field():
    # Two 4-bit fields: 0xF + 1 in the low field wraps to 0 and leaves the high field alone.
    assert field_add(0x0F, 0x01, 0x88, 8) == 0x00
    assert field_sub(0x00, 0x01, 0x88, 8) == 0x0F
    assert field_add(0x0F, 0x01, 0x80, 8) == 0x10        # one 8-bit field: the carry crosses


def test_crc32_matches_zlib():
    dut = Crc32(24)
    rng = random.Random(7)
    words = [rng.getrandbits(24) for _ in range(50)]

    async def bench(ctx):
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        assert ctx.get(dut.crc) == 0
        ctx.set(dut.update, 1)
        for i, word in enumerate(words):
            ctx.set(dut.data, word)
            await ctx.tick()
            assert ctx.get(dut.crc) == table_checksum(words[:i + 1]), f"after {i + 1} words"
        assert ctx.get(dut.crc) == zlib.crc32(b"".join(w.to_bytes(3, "little") for w in words))

    simulate(dut, bench)


@pytest.mark.parametrize("count,stages", [(1, 0), (2, 1), (5, 0), (9, 2), (23, 1), (23, 3)])
def test_adder_tree_sums_with_its_latency(count, stages):
    dut = AdderTree(count, 16, stages)
    rng = random.Random(count * 10 + stages)
    vectors = [[rng.randrange(-32768, 32768) for _ in range(count)] for _ in range(20)]

    async def bench(ctx):
        for cycle in range(len(vectors) + stages):
            if cycle < len(vectors):
                for i, v in enumerate(vectors[cycle]):
                    ctx.set(dut.terms[i], v)
            if cycle >= stages:
                assert ctx.get(dut.total) == signed(sum(vectors[cycle - stages]), 16), f"vector {cycle - stages}"
            await (ctx.tick() if stages else ctx.delay(1e-8))

    simulate(dut, bench, clocked=stages > 0)


async def _write_tables(ctx, dut, store):
    ctx.set(dut.write.valid, 1)
    for unit, kind, index, value in table_writes(store):
        ctx.set(dut.write.payload, {"address": {"unit": unit, "table": kind, "index": index}, "data": value})
        await ctx.tick()
    ctx.set(dut.write.valid, 0)


async def _settle(ctx, dut):
    cycles = 0
    while not ctx.get(dut.valid):
        await ctx.tick()
        cycles += 1
    return cycles


async def _checksum(ctx, dut, unit, kind):
    ctx.set(dut.checksum_request.payload, {"unit": unit, "table": kind})
    ctx.set(dut.checksum_request.valid, 1)
    await ctx.tick()
    ctx.set(dut.checksum_request.valid, 0)
    for _ in range(20000):
        if ctx.get(dut.checksum.valid):
            return ctx.get(dut.checksum.payload)
        await ctx.tick()
    raise AssertionError("no checksum result")


async def _play_ahead(ctx, dut, halfmoves, pairs):
    """Play ``halfmoves`` as a bus that sends from a register does: each transfer announced on
    ``upcoming`` the cycle before it (the first after an idle cycle)."""
    bits = transfers(halfmoves, pairs)
    ctx.set(dut.halfmove.valid, 0)
    for k in range(len(bits) + 1):
        if k:
            ctx.set(dut.halfmove.valid, 1)
            ctx.set(dut.halfmove.payload.as_value(), bits[k - 1])
        ctx.set(dut.upcoming.as_value(), bits[k] if k < len(bits) else 0)
        await ctx.tick()
    ctx.set(dut.halfmove.valid, 0)


@pytest.mark.parametrize("pairs, lookahead", [(False, False), (True, False), (True, True)],
                         ids=["single", "pairs", "pairs-lookahead"])
def test_tiny_evaluator_equals_model_on_walks(pairs, lookahead):
    """Random tables, random walks from two positions: value after every step equals the model,
    valid comes exactly ``latency`` cycles after the last transfer (a cycle less with the
    lookahead), checksums read back; built for ``pairs``, the halfmoves go two a transfer."""
    params = TINY
    dut = Evaluator(params, pairs=pairs, lookahead=lookahead)
    store = random_tables(params, seed=3)
    rng = random.Random(5)
    boards = [chess.Board(), chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")]

    async def bench(ctx):
        await _write_tables(ctx, dut, store)
        for unit, kind in [(0, TableKind.DESCRIPTION), (1, TableKind.MAP_A), (3, TableKind.CONFIG),
                           (4, TableKind.MAP_FINAL), (4, TableKind.DESCRIPTION), (5, TableKind.MAP_A),
                           (5, TableKind.MAP_FINAL), (9, TableKind.MAP_A)]:
            assert await _checksum(ctx, dut, unit, kind) == store.checksum(unit, kind), (unit, kind)
        for board in boards:
            model = EvaluatorModel(params, store)
            ctx.set(dut.clear, 1)
            await ctx.tick()
            ctx.set(dut.clear, 0)
            for label, halfmoves, side in walk_steps(board, 6, rng):
                # The side changes with the first halfmove, as the controller changes it.
                ctx.set(dut.side, side)
                model.set_side(side)
                if lookahead:
                    await _play_ahead(ctx, dut, halfmoves, pairs)
                else:
                    await play_halfmoves(ctx, dut.halfmove, halfmoves, pairs=pairs)
                for h in halfmoves:
                    model.apply(h)
                # Cycle t (the last transfer) is behind us: valid must come in cycle t + latency.
                cycles = 1 + await _settle(ctx, dut)
                assert ctx.get(dut.value) == model.value(), f"{board.fen()} after {label}"
                assert cycles == dut.latency, f"valid {cycles} cycles after the last transfer, not {dut.latency}"
                assert dut.latency == params.latency - lookahead

    simulate(dut, bench)


@pytest.mark.parametrize("changes,message", [
    ({"globals": 9}, "0..8 global units"),
    ({"recognizers": 30}, "at most 31 units"),
    ({"branch_bits": 14}, "branch_bits must be 2..13"),
    ({"final_bits": 6, "context_bits": (2, 2, 2)}, "leave no room"),
    ({"context_bits": (2, 2, 2, 2)}, "up to three context selectors"),
    ({"global_bits": 0}, "global_bits must be 1..13"),
    ({"tree_stages": -1}, "tree_stages must be >= 0"),
    ({"recognizers": 2, "narrow": 3}, "0..2 narrow recognizers"),
    ({"narrow_bits": (11, 11)}, r"narrow_bits is \(branch, combine, final\)"),
    ({"narrow": 1, "narrow_bits": (11, 11, 5)}, "leave no room in a 5-bit final map"),
])
def test_params_say_what_is_wrong(changes, message):
    with pytest.raises(ValueError, match=message):
        EvaluatorParams(**changes)


def test_address_map_geometry():
    p = EvaluatorParams()
    assert p.table_geometry(0, TableKind.DESCRIPTION) == (768, 16, True)
    assert p.table_geometry(0, TableKind.MAP_A) is None
    assert p.table_geometry(p.global_unit(0), TableKind.MAP_A) == (1 << p.global_bits, 8, False)
    assert p.table_geometry(p.recognizer_unit(0), TableKind.MAP_FINAL) == (1 << p.final_bits, 8, False)
    assert p.table_geometry(p.units, TableKind.DESCRIPTION) is None
    with pytest.raises(IndexError):
        p.recognizer_unit(p.recognizers)
    assert len(p.tables()) == 1 + 3 * p.globals + 6 * p.recognizers
    mixed = EvaluatorParams(recognizers=4, narrow=3, narrow_bits=(9, 10, 11))
    assert [mixed.shape(k).branch_bits for k in range(4)] == [13, 9, 9, 9]
    assert mixed.table_geometry(mixed.recognizer_unit(0), TableKind.MAP_A) == (1 << 13, 8, False)
    assert mixed.table_geometry(mixed.recognizer_unit(1), TableKind.MAP_COMBINE) == (1 << 10, 8, False)
    assert mixed.table_geometry(mixed.recognizer_unit(3), TableKind.MAP_FINAL) == (1 << 11, 8, False)
    assert mixed.shape(3).final_state_bits == 11 - sum(mixed.context_bits)


def test_a_table_write_waits_while_a_transfer_reads_the_tables():
    """The build leaves a read unspecified in a cycle its address is written: the download
    port is not ready while a transfer is offered, and is once it is gone."""
    dut = Evaluator(TINY, pairs=True, lookahead=True)

    async def bench(ctx):
        ctx.set(dut.write.valid, 1)
        assert ctx.get(dut.write.ready) == 1
        ctx.set(dut.halfmove.valid, 1)
        assert ctx.get(dut.write.ready) == 0
        await ctx.tick()
        ctx.set(dut.halfmove.valid, 0)
        assert ctx.get(dut.write.ready) == 1

    simulate(dut, bench)
