"""Bit-exact model of the evaluator (hdl/eval/): same tables, same halfmoves -> same value.

The model is the specification, written plainly: accumulators are added to field by field,
maps are lists indexed by the addresses ``hdl/eval/tables.py`` describes, and the value is the
first-order sum plus every recognizer's shifted output, wrapped to signed 16 bits.
"""

from functools import cache

from hdl.encoding import HalfmoveOp
from hdl.eval.tables import HALF_BITS, STATE_BITS, ExtSource, TableKind, TableStore, piece_square_index

from .position import setup_halfmoves

__all__ = ["EvaluatorModel", "evaluated", "static_value", "field_add", "field_sub", "signed"]


def signed(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


@cache
def _fields(tops, width):
    """``(offset, mask)`` of each field of an accumulator whose field-top mask is ``tops``."""
    fields, start = [], 0
    for bit in range(width):
        if (tops >> bit) & 1 or bit == width - 1:
            fields.append((start, (1 << (bit + 1 - start)) - 1))
            start = bit + 1
    return tuple(fields)


def _per_field(a, b, tops, width, sign):
    out = 0
    for offset, mask in _fields(tops, width):
        out |= ((((a >> offset) & mask) + sign * ((b >> offset) & mask)) & mask) << offset
    return out


def field_add(a, b, tops, width=STATE_BITS):
    """``a + b`` in each field separately (carries never leave a field)."""
    return _per_field(a, b, tops, width, +1)


def field_sub(a, b, tops, width=STATE_BITS):
    """``a - b`` in each field separately (borrows never leave a field)."""
    return _per_field(a, b, tops, width, -1)


class EvaluatorModel:
    """The evaluator's state (first-order sum, accumulators, side) and its value."""

    def __init__(self, params, store=None):
        self.params = params
        self.store = store or TableStore(params)
        self.side = 0
        self._cached_generation = None
        self.clear()

    def clear(self):
        self.first_order = 0
        self.global_state = [0] * self.params.globals
        self.recognizer_state = [0] * self.params.recognizers

    # --- inputs ------------------------------------------------------------------------------
    def write(self, unit, kind, index, data):
        self.store.write(unit, kind, index, data)

    def apply(self, halfmove):
        """One halfmove (``models.position.Halfmove``); empty squares and markers do nothing."""
        index = piece_square_index(halfmove.piece, halfmove.square)
        if index is None:
            return
        place = halfmove.op == HalfmoveOp.PLACE
        g = signed(self.store[(0, TableKind.DESCRIPTION)][index], 16)
        self.first_order = signed(self.first_order + (g if place else -g), 16)
        update = field_add if place else field_sub
        global_units, recognizer_units, _ = self._units()
        for k, description, tops in global_units:
            amount = description[index]
            if amount:      # (adding 0 to every field changes nothing)
                self.global_state[k] = update(self.global_state[k], amount, tops, self.params.global_bits)
        for k, description, tops in recognizer_units:
            amount = description[index]
            if amount:
                self.recognizer_state[k] = update(self.recognizer_state[k], amount, tops)

    def _units(self):
        """Per global unit and recognizer ``(k, description table, field tops)``, and the
        recognizers whose final map is not all zero (the others add 0 to the value); cached
        until the tables change."""
        if self._cached_generation != self.store.generation:
            p, store = self.params, self.store
            self._cached = (
                [(k, store[(p.global_unit(k), TableKind.DESCRIPTION)], store.config(p.global_unit(k))["field_tops"])
                 for k in range(p.globals)],
                [(k, store[(p.recognizer_unit(k), TableKind.DESCRIPTION)],
                  store.config(p.recognizer_unit(k))["field_tops"]) for k in range(p.recognizers)],
                [k for k in range(p.recognizers) if any(store[(p.recognizer_unit(k), TableKind.MAP_FINAL)])],
            )
            self._cached_generation = store.generation
        return self._cached

    def set_side(self, side):
        self.side = side

    # --- outputs -----------------------------------------------------------------------------
    def global_output(self, k):
        return self.store[(self.params.global_unit(k), TableKind.MAP_A)][self.global_state[k]]

    def recognizer_output(self, k):
        """The recognizer's contribution to the value (its final map output, shifted)."""
        p, store = self.params, self.store
        unit = p.recognizer_unit(k)
        config = store.config(unit)
        state = self.recognizer_state[k]
        shape = p.shape(k)
        low = shape.branch_bits - 1
        half_a = state & ((1 << low) - 1)
        half_b = (state >> HALF_BITS) & ((1 << low) - 1)
        ext_a = self.side if config["ext_a"] == ExtSource.SIDE.value else 0
        ext_b = self.side if config["ext_b"] == ExtSource.SIDE.value else 0
        out_a = store[(unit, TableKind.MAP_A)][half_a | ext_a << low]
        out_b = store[(unit, TableKind.MAP_B)][half_b | ext_b << low]
        combined = store[(unit, TableKind.MAP_COMBINE)][
            (out_a & ((1 << shape.combine_a) - 1)) | (out_b & ((1 << shape.combine_b) - 1)) << shape.combine_a]
        address = combined & ((1 << shape.final_state_bits) - 1)
        position = shape.final_state_bits
        for select, bits in zip(config["context"], shape.context_bits):
            if select["enable"] and select["unit"] < p.globals:
                address |= ((self.global_output(select["unit"]) >> select["offset"]) & ((1 << bits) - 1)) << position
            position += bits
        out = store[(unit, TableKind.MAP_FINAL)][address]
        return signed(signed(out, 8) << config["shift"], 16)

    def value(self):
        total = self.first_order + sum(self.recognizer_output(k) for k in self._units()[2])
        return signed(total, 16)


def evaluated(store, board):
    """An evaluator model holding a python-chess position (the side to move set) under the tables
    of ``store``."""
    model = EvaluatorModel(store.params, store)
    for halfmove in setup_halfmoves(board):
        model.apply(halfmove)
    model.set_side(0 if board.turn else 1)
    return model


def static_value(store, board):
    """The evaluator's value of a python-chess position (White's view) under the tables of
    ``store`` — what the machine's EVALUATE answers."""
    return evaluated(store, board).value()
