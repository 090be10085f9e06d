"""The Verilated evaluator (full ULX3S configuration, and the small iCE40 one) against the
bit-exact model: random tables, random make/unmake walks from the reference positions."""

import random

import chess
import pytest

from hdl.eval.tables import FULL, SMALL, TableKind
from models.evaluator import EvaluatorModel
from sim.eval_check import compare_walk, random_tables, walk_steps
from sim.eval_sim import VerilatedEvaluator
from sim.testing import reference_positions


@pytest.fixture(scope="module", params=[FULL, SMALL], ids=["full", "small"])
def evaluator(request):
    with VerilatedEvaluator(request.param) as hw:
        yield hw


def _load(hw, seed):
    store = random_tables(hw.params, seed)
    hw.write_store(store)
    return store


def test_walks_equal_model_after_every_make_and_unmake(evaluator):
    records = (reference_positions("random-positions.epd", limit=60)
               + reference_positions("special-positions.epd", limit=20))
    rng = random.Random(11)
    problems = []
    for number, record in enumerate(records):
        if number % 20 == 0:          # fresh random tables every 20 positions
            store = _load(evaluator, seed=number)
        evaluator.clear()
        model = EvaluatorModel(evaluator.params, store)
        problems += compare_walk(evaluator, model, record.board, 8, rng)
    assert not problems, "\n".join(problems[:10])


def test_value_valid_latency_cycles_after_the_last_halfmove(evaluator):
    store = _load(evaluator, seed=99)
    evaluator.clear()
    board = chess.Board()
    model = EvaluatorModel(evaluator.params, store)
    rng = random.Random(3)
    latencies = set()
    for label, halfmoves, side in walk_steps(board, 6, rng):
        evaluator.set_side(side)
        evaluator.apply(halfmoves)
        for h in halfmoves:
            model.apply(h)
        model.set_side(side)
        assert evaluator.value() == model.value(), label
        latencies.add(evaluator.settle_cycles)
    assert latencies == {evaluator.params.latency}


def test_checksums_read_back_every_table(evaluator):
    store = _load(evaluator, seed=5)
    for unit, kind in evaluator.params.tables():
        crc, cycles = evaluator.checksum(unit, kind)
        assert crc == store.checksum(unit, kind), f"unit {unit} {kind.name}"
        assert cycles <= evaluator.params.table_geometry(unit, kind)[0] + 8
    # A table that does not exist reads back as empty, and a changed entry changes the CRC.
    assert evaluator.checksum(31, TableKind.MAP_B)[0] == 0
    unit = evaluator.params.recognizer_unit(0)
    evaluator.write_table(unit, TableKind.MAP_COMBINE, [store[(unit, TableKind.MAP_COMBINE)][7] ^ 1], start=7)
    assert evaluator.checksum(unit, TableKind.MAP_COMBINE)[0] != store.checksum(unit, TableKind.MAP_COMBINE)


def test_a_store_sends_only_the_tables_that_differ(evaluator, monkeypatch):
    """``write_store`` sends what differs from the last store it sent: nothing for the same
    store, one table for a store that differs in one entry, and a table written since by
    ``write_table`` again (its checksum back to the store's)."""
    store = _load(evaluator, seed=7)
    sent = []
    send = evaluator._send
    monkeypatch.setattr(evaluator, "_send", lambda line: (sent.append(line.split()[:3]), send(line)))
    evaluator.write_store(store)
    assert sent == []
    unit = evaluator.params.recognizer_unit(0)
    other = random_tables(evaluator.params, 7)
    other.write(unit, TableKind.MAP_COMBINE, 7, store[(unit, TableKind.MAP_COMBINE)][7] ^ 1)
    evaluator.write_store(other)
    assert sent and {tuple(line) for line in sent} == {("W", str(unit), str(TableKind.MAP_COMBINE.value))}
    assert evaluator.checksum(unit, TableKind.MAP_COMBINE)[0] == other.checksum(unit, TableKind.MAP_COMBINE)
    del sent[:]
    evaluator.write_table(0, TableKind.DESCRIPTION, [0x1234], start=5)
    evaluator.write_store(other)
    assert {tuple(line) for line in sent[1:]} == {("W", "0", str(TableKind.DESCRIPTION.value))}
    assert evaluator.checksum(0, TableKind.DESCRIPTION)[0] == other.checksum(0, TableKind.DESCRIPTION)


def test_writes_past_a_table_end_are_ignored(evaluator):
    store = _load(evaluator, seed=6)
    evaluator.write_table(0, TableKind.DESCRIPTION, [0x1234], start=768)    # g has 768 entries
    evaluator.write_table(evaluator.params.units, TableKind.MAP_A, [1, 2, 3])  # no such unit
    assert evaluator.checksum(0, TableKind.DESCRIPTION)[0] == store.checksum(0, TableKind.DESCRIPTION)


def test_context_reaches_the_final_map(evaluator):
    """A global unit counts the pawns; a recognizer's final map reads the count back through all
    its context selectors (each a slice of the global output), so the value is the count."""
    from host.tables import Context, EvaluatorImage, GlobalState, Recognizer
    from models.position import setup_halfmoves
    params = evaluator.params
    pawns = GlobalState([("pawns", 5)], lambda piece, square: {"pawns": piece.piece_type == chess.PAWN},
                        lambda v: v["pawns"])
    offsets, position = [], 0
    for bits in params.context_bits:
        offsets.append(position)
        position += bits

    def final(summary, contexts):
        return sum(c << offset for c, offset in zip(contexts, offsets))

    image = EvaluatorImage(params)
    image.add_recognizer(Recognizer(description=lambda piece, square: {}, final=final,
                                    contexts=[Context(pawns, offset) for offset in offsets]))
    evaluator.write_store(image.store())
    for record in reference_positions("random-positions.epd", limit=40):
        board = record.board
        evaluator.clear()
        evaluator.apply(setup_halfmoves(board))
        want = len(board.pieces(chess.PAWN, chess.WHITE)) + len(board.pieces(chess.PAWN, chess.BLACK))
        # The selectors together see the low ``position`` bits of the count.
        assert evaluator.value() == want % (1 << position), board.fen()
