"""Checking the evaluator: random tables, random make/unmake walks, hardware against the model.

``random_tables`` fills every table of an evaluator with seeded random contents (field splits,
external bits, context selectors and shifts included), ``walk`` makes and unmakes random legal
moves from a position, and ``compare_walk`` drives a hardware evaluator and the model through
the same walk, comparing the value after every make and every unmake. ``definition_mismatches``
and ``hardware_mismatches`` check a pattern's compiled tables against its plain definition.
"""

import random

import chess

from hdl.eval.tables import STATE_BITS, ExtSource, TableKind, TableStore, config_words
from models.position import inverse, move_halfmoves, setup_halfmoves

__all__ = ["random_tables", "random_config", "table_writes", "walk_steps", "compare_walk", "definition_mismatches",
           "hardware_mismatches"]


def _random_tops(rng, width):
    """A random split into fields (each bit a field top with probability 1/4; the top bit always)."""
    tops = 1 << (width - 1)
    for bit in range(width - 1):
        if rng.random() < 0.25:
            tops |= 1 << bit
    return tops


def random_config(params, unit, rng):
    """Random CONFIG words for a unit. Context selectors may name a global unit past the last
    one (the hardware and the model read 0 from it)."""
    if params.unit_kind(unit) == "global":
        return config_words(params.global_config, field_tops=_random_tops(rng, params.global_bits))
    return config_words(params.recognizer_config, field_tops=_random_tops(rng, STATE_BITS),
                        ext_a=rng.choice(list(ExtSource)), ext_b=rng.choice(list(ExtSource)),
                        context=[{"enable": rng.random() < 0.8, "unit": rng.randrange(8), "offset": rng.randrange(8)}
                                 for _ in params.context_bits],
                        shift=rng.randrange(8))


def random_tables(params, seed):
    """A ``TableStore`` with every table filled at random from ``seed``.

    Description entries are small in most fields so accumulators both carry within fields and
    wrap; first-order values span the whole signed 16-bit range now and then.
    """
    rng = random.Random(seed)
    store = TableStore(params)
    for unit, kind in params.tables():
        entries, bits, _ = params.table_geometry(unit, kind)
        if kind == TableKind.CONFIG:
            values = random_config(params, unit, rng)
        elif kind == TableKind.DESCRIPTION and unit == 0:
            values = [rng.randrange(-300, 300) if rng.random() < 0.95 else rng.randrange(-32768, 32768)
                      for _ in range(entries)]
        else:
            values = [rng.getrandbits(bits) for _ in range(entries)]
        store.load(unit, kind, values)
    return store


def table_writes(store):
    """Every entry of ``store`` as ``(unit, kind, index, data)`` download writes."""
    for (unit, kind), entries in store.tables.items():
        for index, value in enumerate(entries):
            yield unit, kind, index, value


def walk_steps(board, plies, rng):
    """A random walk of up to ``plies`` legal moves from ``board`` and back.

    Yields ``(label, halfmoves, side)``: the setup first, then each make, then each unmake in
    reverse; ``side`` is the side to move after the step (1 = black).
    """
    board = board.copy(stack=False)
    yield "setup", setup_halfmoves(board), 0 if board.turn else 1
    made = []
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        halfmoves = move_halfmoves(board, move)
        board.push(move)
        made.append((move, halfmoves))
        yield f"make {move.uci()}", halfmoves, 0 if board.turn else 1
    for move, halfmoves in reversed(made):
        board.pop()
        yield f"unmake {move.uci()}", inverse(halfmoves), 0 if board.turn else 1


def compare_walk(hw, model, board, plies, rng):
    """Drive ``hw`` (anything with ``apply``/``set_side``/``value``) and ``model`` through a
    walk; returns a list of mismatch descriptions (empty when they agree throughout), and
    checks the value after unwinding equals the value after setup."""
    problems = []
    start = None
    for label, halfmoves, side in walk_steps(board, plies, rng):
        for h in halfmoves:
            model.apply(h)
        model.set_side(side)
        hw.apply(halfmoves)
        hw.set_side(side)
        want, got = model.value(), hw.value()
        if got != want:
            problems.append(f"{board.fen()}: after {label}: hardware {got}, model {want}")
        if start is None:
            start = got
    if got != start:
        problems.append(f"{board.fen()}: unwinding ended at {got}, not the start value {start}")
    return problems


def definition_mismatches(pattern, store, boards, rng, walks=150, plies=8):
    """Where the evaluator model with ``store`` loaded differs from ``pattern.definition``: on
    each of ``boards``, and after every step of a random walk from the first ``walks`` of them.
    Returns ``(mismatches, values)``: descriptions, and the set of values the definition took on
    the boards (a pattern that is constant there tests nothing)."""
    from models.evaluator import EvaluatorModel
    problems, values = [], set()
    for board in boards:
        model = EvaluatorModel(store.params, store)
        for h in setup_halfmoves(board):
            model.apply(h)
        model.set_side(0 if board.turn else 1)
        want = pattern.definition(board)
        values.add(want)
        if model.value() != want:
            problems.append(f"{board.fen()}: model {model.value()}, definition {want}")
    for board in boards[:walks]:
        model = EvaluatorModel(store.params, store)
        played = board.copy(stack=False)
        for label, halfmoves, side in walk_steps(board, plies, rng):
            for h in halfmoves:
                model.apply(h)
            model.set_side(side)
            if label.startswith("make"):
                played.push(chess.Move.from_uci(label.split()[1]))
            elif label.startswith("unmake"):
                played.pop()
            if model.value() != pattern.definition(played):
                problems.append(f"after {label} from {board.fen()}: model {model.value()}, "
                                f"definition {pattern.definition(played)}")
    return problems, values


def hardware_mismatches(hw, pattern, store, boards):
    """Where a Verilated evaluator (``hw``) with ``store`` downloaded differs from
    ``pattern.definition`` on ``boards``."""
    hw.write_store(store)
    problems = []
    for board in boards:
        hw.clear()
        hw.apply(setup_halfmoves(board))
        hw.set_side(0 if board.turn else 1)
        got, want = hw.value(), pattern.definition(board)
        if got != want:
            problems.append(f"{board.fen()}: hardware {got}, definition {want}")
    return problems
