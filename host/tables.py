"""Building evaluator tables from plain Python functions (what the Oracle's pattern compiler uses).

A pattern is written as functions over chess terms; this module turns them into the tables of
``hdl/eval/tables.py`` and refuses, with a :class:`TableError` saying what and by how much,
anything the hardware cannot hold.

- :class:`FirstOrder`: g(piece, square) -> value.
- :class:`GlobalState`: named fields counted per piece x square, and an 8-bit output of them.
- :class:`Recognizer`: fields per branch, a *summary* function per branch, a ``combine``
  function of the two summaries and a ``final`` function of the combined summary and up to three
  global contexts. Summaries are any hashable Python values: the compiler enumerates every
  state a map can see, numbers the distinct summaries, and checks they fit the next level's
  address bits (Hitech's maps were compiled the same way). States a pattern declares unreachable
  (``where``) and final values it returns as ``None`` are don't-cares.
- :class:`EvaluatorImage`: allocates units and assembles the :class:`~hdl.eval.tables.TableStore`
  to download.

Description functions get a ``chess.Piece`` and a square and return ``{field: amount}``;
amounts may be negative (taken modulo the field's width).
"""

from dataclasses import dataclass

import chess

from hdl.eval.tables import (
    HALF_BITS,
    PIECE_SQUARES,
    STATE_BITS,
    ExtSource,
    FieldLayout,
    TableKind,
    TableStore,
    config_words,
)

__all__ = ["TableError", "FirstOrder", "GlobalState", "Recognizer", "Context", "InstalledUnits",
           "EvaluatorImage", "PIECES", "output_step"]

#: Every (piece, square) a description table has an entry for, in index order.
PIECES = [(chess.Piece(kind, colour), square)
          for colour in (chess.WHITE, chess.BLACK) for kind in range(1, 7) for square in range(64)]
assert len(PIECES) == PIECE_SQUARES


class TableError(ValueError):
    """A pattern that the evaluator's tables cannot hold."""


def _description(layout, amounts):
    """The description table of ``amounts(piece, square) -> {field: amount}``."""
    entries = []
    for piece, square in PIECES:
        changes = amounts(piece, square) or {}
        unknown = set(changes) - set(layout.widths)
        if unknown:
            raise TableError(f"description of {piece.symbol()}@{chess.square_name(square)} "
                             f"names unknown fields {sorted(unknown)}")
        entries.append(layout.pack(**changes))
    return entries


def output_step(values):
    """``(shift, rounded)``: the least ``shift`` (0..7) at which ``values``, each rounded to a
    multiple of ``1 << shift`` (``rounded``), differ by at most ``127 << shift`` — so that every
    difference of two, and (with 0 among them) every value, is a recognizer's 8-bit signed
    output ``v << shift``."""
    for shift in range(8):
        rounded = [round(v / (1 << shift)) << shift for v in values]
        if max(rounded) - min(rounded) <= 127 << shift:
            return shift, rounded
    raise TableError(f"values {values} spread beyond a recognizer's output at any shift")


class FirstOrder:
    """A first-order table: ``value(piece, square)`` summed over the board (signed 16-bit)."""

    def __init__(self, value):
        self.entries = []
        for piece, square in PIECES:
            v = int(value(piece, square))
            if not -32768 <= v <= 32767:
                raise TableError(f"g({piece.symbol()}, {chess.square_name(square)}) = {v} is not a signed 16-bit value")
            self.entries.append(v & 0xFFFF)


class GlobalState:
    """A global-state unit: ``fields`` [(name, bits)], their ``description``, and an ``output``
    function of the field values giving 0..255 (``where`` marks reachable states)."""

    def __init__(self, fields, description, output, where=None):
        self.fields = list(fields)
        self.description = description
        self.output = output
        self.where = where

    def tables(self, params):
        used = sum(bits for _, bits in self.fields)
        if used > params.global_bits:
            raise TableError(f"global fields need {used} bits; the unit has {params.global_bits}")
        layout = FieldLayout(self.fields, params.global_bits)
        out = []
        for state in range(1 << params.global_bits):
            values = layout.unpack(state)
            if self.where is not None and not self.where(values):
                out.append(0)
                continue
            v = int(self.output(values))
            if not 0 <= v <= 255:
                raise TableError(f"global output {v} for {values} is not 0..255")
            out.append(v)
        return {TableKind.DESCRIPTION: _description(layout, self.description), TableKind.MAP_A: out,
                TableKind.CONFIG: config_words(params.global_config, field_tops=layout.tops)}


@dataclass(frozen=True)
class Context:
    """A final-level context: ``bits`` bits (set by the evaluator's shape) of a global unit's
    output from ``offset``."""
    unit: GlobalState
    offset: int = 0


class Recognizer:
    """A recognizer's tables from plain functions.

    ``fields_a`` / ``fields_b``: [(name, bits)] for each branch's half of the state;
    ``summary_a(values, ext)`` / ``summary_b``: any hashable summary of a branch's field values
    (``ext`` the external bit); ``combine(a, b)``: a hashable summary of both;
    ``final(summary, contexts)``: the value (contexts: one int per :class:`Context`), which must
    be ``v << shift`` for an 8-bit signed v, or None if unreachable.
    ``where_a`` / ``where_b`` mark reachable branch states.
    """

    def __init__(self, *, fields_a=(), fields_b=(), description, summary_a=None, summary_b=None,
                 combine=None, final, where_a=None, where_b=None, ext_a=ExtSource.ZERO, ext_b=ExtSource.ZERO,
                 contexts=(), shift=0):
        self.fields_a, self.fields_b = list(fields_a), list(fields_b)
        self.description = description
        self.summary_a = summary_a or (lambda values, ext: None)
        self.summary_b = summary_b or (lambda values, ext: None)
        self.combine = combine or (lambda a, b: (a, b))
        self.final = final
        self.where_a, self.where_b = where_a, where_b
        self.ext_a, self.ext_b = ext_a, ext_b
        self.contexts = list(contexts)
        self.shift = shift

    def state_layout(self, shape):
        """The accumulator's fields: branch A's from bit 0, branch B's from bit 12 (``shape``:
        the unit's :class:`~hdl.eval.tables.RecognizerShape`)."""
        room = shape.branch_bits - 1
        for name, fields in (("A", self.fields_a), ("B", self.fields_b)):
            used = sum(bits for _, bits in fields)
            if used > room:
                raise TableError(f"branch {name} fields need {used} bits; the maps see {room}")
        names = [n for n, _ in self.fields_a + self.fields_b]
        if len(set(names)) != len(names):
            raise TableError(f"field names repeat: {names}")
        gap = HALF_BITS - sum(bits for _, bits in self.fields_a)
        return FieldLayout(self.fields_a + [("_gap", gap)] + self.fields_b, STATE_BITS)

    def tables(self, params, shape, global_index):
        """Every table of the unit in a recognizer of ``shape`` (a
        :class:`~hdl.eval.tables.RecognizerShape` of ``params``); ``global_index(GlobalState)``
        numbers the global units."""
        if len(self.contexts) > len(shape.context_bits):
            raise TableError(f"{len(self.contexts)} contexts; the evaluator has {len(shape.context_bits)} selectors")
        if not 0 <= self.shift <= 7:
            raise TableError(f"shift {self.shift} is not 0..7")
        layout = self.state_layout(shape)
        map_a, summaries_a = self._branch(shape, layout, self.fields_a, 0, self.summary_a, self.where_a,
                                          self.ext_a, shape.combine_a, "A")
        map_b, summaries_b = self._branch(shape, layout, self.fields_b, HALF_BITS, self.summary_b,
                                          self.where_b, self.ext_b, shape.combine_b, "B")
        combine, codes = [], {}
        for address in range(1 << shape.combine_bits):
            a, b = address & ((1 << shape.combine_a) - 1), address >> shape.combine_a
            if a >= len(summaries_a) or b >= len(summaries_b):
                combine.append(0)       # no branch gives this code
                continue
            summary = self.combine(summaries_a[a], summaries_b[b])
            combine.append(self._code(codes, summary, shape.final_state_bits, "combined"))
        summaries = list(codes)         # dicts keep insertion order: index = code
        used = shape.context_bits[:len(self.contexts)]
        final = []
        for address in range(1 << shape.final_bits):
            code, rest = address & ((1 << shape.final_state_bits) - 1), address >> shape.final_state_bits
            contexts = []
            for bits in used:
                contexts.append(rest & ((1 << bits) - 1))
                rest >>= bits
            if code >= len(summaries) or rest:      # rest: the bits of selectors left off (always 0)
                final.append(0)
                continue
            value = self.final(summaries[code], tuple(contexts))
            final.append(self._output(value, summaries[code], contexts))
        off = {"enable": 0, "unit": 0, "offset": 0}
        return {TableKind.DESCRIPTION: _description(layout, self.description),
                TableKind.MAP_A: map_a, TableKind.MAP_B: map_b, TableKind.MAP_COMBINE: combine,
                TableKind.MAP_FINAL: final,
                TableKind.CONFIG: config_words(
                    params.recognizer_config, field_tops=layout.tops, ext_a=self.ext_a, ext_b=self.ext_b,
                    context=[{"enable": 1, "unit": global_index(c.unit), "offset": c.offset} for c in self.contexts]
                    + [off] * (len(shape.context_bits) - len(self.contexts)),
                    shift=self.shift)}

    def _branch(self, shape, layout, fields, offset, summary, where, ext, code_bits, name):
        """A first-level map, and its summaries in code order."""
        room = shape.branch_bits - 1
        own = {n for n, _ in fields}
        codes = {}
        table = []
        for ext_bit in (0, 1):
            for state in range(1 << room):
                values = {n: v for n, v in layout.unpack(state << offset).items() if n in own}
                if (ext == ExtSource.ZERO and ext_bit) or (where is not None and not where(values)):
                    table.append(0)     # never addressed
                    continue
                table.append(self._code(codes, summary(values, ext_bit), code_bits, f"branch {name}"))
        return table, list(codes)

    @staticmethod
    def _code(codes, summary, bits, what):
        if summary not in codes:
            if len(codes) == 1 << bits:
                raise TableError(f"the {what} summaries need more than {1 << bits} codes ({bits} bits)")
            codes[summary] = len(codes)
        return codes[summary]

    def _output(self, value, summary, contexts):
        if value is None:
            return 0
        value = int(value)
        step = 1 << self.shift
        if value % step or not -128 <= value // step <= 127:
            raise TableError(f"final value {value} (summary {summary!r}, contexts {contexts}) is not an "
                             f"8-bit signed value shifted left by {self.shift}")
        return (value // step) & 0xFF


def _signed16(word):
    return word - 0x10000 if word & 0x8000 else word


class InstalledUnits:
    """Stands in for an image to collect the units a pattern's ``install`` adds, in order."""

    def __init__(self):
        self.first_order_terms, self.recognizers = [], []

    def add_first_order(self, table):
        self.first_order_terms.append(table)

    def add_recognizer(self, unit):
        self.recognizers.append(unit)


class EvaluatorImage:
    """Everything to download to an evaluator: units placed as they are added (recognizers in
    the narrowest free unit their tables fit, global units where asked if free)."""

    def __init__(self, params, compiled=None):
        self.params = params
        self.first_order_terms = []
        self._first_order_sum = [0] * PIECE_SQUARES     # the terms' signed sum, entry by entry
        self.globals = []           # by global unit (None: free)
        self.recognizers = []       # by recognizer unit (None: free)
        # (id(unit), its shape, its contexts' global units' indices) -> its tables: a unit
        # compiles once per placement (the caller may share the cache between images; it must
        # keep the units alive while their entries stand)
        self.compiled_tables = {} if compiled is None else compiled

    def copy(self):
        """A copy to try more units on (the compiled tables are shared: a unit compiles once)."""
        copy = EvaluatorImage(self.params)
        copy.first_order_terms, copy.globals = list(self.first_order_terms), list(self.globals)
        copy._first_order_sum = self._first_order_sum
        copy.recognizers, copy.compiled_tables = list(self.recognizers), self.compiled_tables
        return copy

    def compiled(self, unit, shape=None):
        """``unit``'s tables (a global unit, or a recognizer of this image: in ``shape``, by
        default its unit's), compiled the first time they are asked for; ``TableError`` if they
        do not fit."""
        if isinstance(unit, GlobalState):
            key = (id(unit), None, ())
        else:
            shape = shape or self.params.shape(self.recognizers.index(unit))
            key = (id(unit), shape, tuple(self.globals.index(c.unit) for c in unit.contexts))
        if key not in self.compiled_tables:
            if isinstance(unit, GlobalState):
                self.compiled_tables[key] = unit.tables(self.params)
            else:
                self.compiled_tables[key] = unit.tables(self.params, shape, self.globals.index)
        return self.compiled_tables[key]

    def add_first_order(self, table):
        """Add a first-order table to the sum; refused (``TableError``) if an entry of the sum
        would leave the signed 16-bit range."""
        total = [a + _signed16(b) for a, b in zip(self._first_order_sum, table.entries)]
        for index, value in enumerate(total):
            if not -32768 <= value <= 32767:
                piece, square = PIECES[index]
                raise TableError(f"the first-order sum for {piece.symbol()} on {chess.square_name(square)} "
                                 f"is {value}: not a signed 16-bit value")
        self.first_order_terms.append(table)
        self._first_order_sum = total

    def add_global(self, unit, slot=None):
        """Place a global-state unit (once: a unit already placed stays where it is) in global
        unit ``slot`` if that is free, else in the first free one."""
        if unit not in self.globals:
            free = [k for k in range(self.params.globals) if k >= len(self.globals) or self.globals[k] is None]
            if not free:
                raise TableError(f"all {self.params.globals} global-state units are taken")
            k = slot if slot in free else free[0]
            self.globals += [None] * (k + 1 - len(self.globals))
            self.globals[k] = unit
        return unit

    def add_recognizer(self, unit, slots=None, prefer=None):
        """Place a recognizer, and the global units its contexts read (in the slots ``slots``
        gives them, a function of a global unit, if given), and compile it: in recognizer unit
        ``prefer`` if that is free and its tables fit it, else in the first free unit of the
        narrowest shape they fit (``TableError`` if none is free, or with the reason it fits
        none). Returns the unit's index."""
        p = self.params
        free = [k for k in range(p.recognizers) if k >= len(self.recognizers) or self.recognizers[k] is None]
        if not free:
            raise TableError(f"all {p.recognizers} recognizers are taken")
        placed = list(self.globals)     # restored if the recognizer fits nowhere
        for needed in [c.unit for c in unit.contexts]:
            self.add_global(needed, slots(needed) if slots else None)
        first = {}                  # shape -> its first free unit, narrowest (highest units) first
        for k in reversed(free):
            first[p.shape(k)] = k
        candidates = sorted(first.items(), key=lambda item: -item[1])
        if prefer in free:          # (a shape that does not fit there fits no unit of that shape)
            preferred = p.shape(prefer)
            candidates = [(preferred, prefer)] + [c for c in candidates if c[0] != preferred]
        error = None
        for shape, k in candidates:
            try:
                self.compiled(unit, shape)
            except TableError as e:
                error = e
                continue
            self.recognizers += [None] * (k + 1 - len(self.recognizers))
            self.recognizers[k] = unit
            return k
        self.globals = placed
        raise error

    def store(self):
        """The :class:`TableStore` holding every table (unused units all zero)."""
        p = self.params
        store = TableStore(p)
        store.load(0, TableKind.DESCRIPTION, [value & 0xFFFF for value in self._first_order_sum])
        for k, unit in enumerate(self.globals):
            if unit is None:
                continue
            for kind, entries in self.compiled(unit).items():
                store.load(p.global_unit(k), kind, entries)
        for k, unit in enumerate(self.recognizers):
            if unit is None:
                continue
            for kind, entries in self.compiled(unit).items():
                store.load(p.recognizer_unit(k), kind, entries)
        return store

