"""The evaluator's parameters, its table address map and the bit formats of its tables.

Everything the hardware, the bit-exact model (``models/evaluator.py``) and the host's table
builders (``host/tables.py``) must agree on lives here, once.

Units
-----
The evaluator is a set of *units*, numbered on the download port:

- unit 0, the **first-order unit**: one table g(piece, square) of signed 16-bit values;
- units 1 .. G, the **global-state units**: an accumulator and one map; their map outputs are
  the *context* of the recognizers' final level;
- units G+1 .. G+R, the **recognizers**: a 24-bit accumulator split into fields, two first-level
  maps (branches A and B), a combining map and a final map; the final map's 8-bit output,
  sign-extended and shifted left by the unit's shift, is its contribution to the value.

Address map of the download port
--------------------------------
A write carries :data:`TableAddress` ``{index: 13, table: TableKind, unit: 5}`` and 24 data
bits. Per unit, the tables are:

============  ==========================  ==================  =====================
table         first-order (unit 0)        global-state unit   recognizer
============  ==========================  ==================  =====================
DESCRIPTION   g: 768 x 16 (signed)        768 x global_bits   768 x 24
MAP_A         -                           2^global_bits x 8   2^branch_bits x 8
MAP_B         -                           -                   2^branch_bits x 8
MAP_COMBINE   -                           -                   2^combine_bits x 8
MAP_FINAL     -                           -                   2^final_bits x 8
CONFIG        -                           1 word              3 words
============  ==========================  ==================  =====================

Unit 31 is not the evaluator's: the machine sends its writes to the micro-store
(``hdl.top.MICROCODE_UNIT``, ``hdl.search.microsequencer.MicroStoreLoader``).

Description tables are indexed by :func:`piece_square_index` (768 = 12 pieces x 64 squares).
Writes to a table that does not exist, or past a table's end, are ignored; the host's table
builders refuse to make them. A table's checksum (:func:`table_checksum`) is the CRC-32 (as
``zlib.crc32``) of its entries, each written as 3 little-endian bytes.

Map addressing (bit 0 first)
----------------------------
- branch A: ``state[0 : branch_bits-1]``, then the external bit A;
  branch B: ``state[12 : 12+branch_bits-1]``, then the external bit B;
- combining map: the low ``combine_a`` bits of A's output, then the low ``combine_b`` of B's;
- final map: the low ``final_bits - sum(context_bits)`` bits of the combining map's output, then
  for each context selector k, ``context_bits[k]`` bits of the selected global unit's map
  output starting at the selector's offset (zero when the selector is off).

Recognizers come in up to two shapes (:class:`RecognizerShape`): the first ones wide (the
parameters' ``branch_bits``, ``combine_bits``, ``final_bits``), the last ``narrow`` ones with
``narrow_bits``' narrower maps, which cost fewer block RAMs — most patterns need few state bits.
"""

import zlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from amaranth.lib import data, enum

from ..encoding import PIECE_FIELDS, PieceType, pack, unpack

__all__ = [
    "EvaluatorParams", "RecognizerShape", "TableKind", "ExtSource", "ContextSelect",
    "TableAddress", "TableWrite", "TableSelect", "DATA_BITS", "INDEX_BITS", "UNIT_BITS",
    "STATE_BITS", "HALF_BITS", "PIECE_SQUARES", "piece_square_index", "FieldLayout",
    "config_words", "config_fields", "table_checksum", "TableStore", "FULL", "HITECH", "SMALL", "CONFIGS",
]

DATA_BITS = 24          # width of one download write's data
INDEX_BITS = 13         # no table has more than 8K entries (docs/architecture.md §5.2: maps of <= 13 address bits)
UNIT_BITS = 5
STATE_BITS = 24         # a recognizer's accumulator (Hitech: 24 bits)
HALF_BITS = 12          # the state bits each branch sees
PIECE_SQUARES = 768     # 12 piece codes x 64 squares
MAP_WIDTH = 8           # every map gives 8 bits


class TableKind(enum.Enum, shape=3):
    DESCRIPTION = 0     # per piece x square: the amount added on place, subtracted on remove
    MAP_A = 1           # recognizer branch A; a global unit's only map
    MAP_B = 2
    MAP_COMBINE = 3
    MAP_FINAL = 4
    CONFIG = 5          # words of RecognizerConfig / GlobalConfig


class ExtSource(enum.Enum, shape=1):
    """Where a branch's external (13th) address bit comes from."""
    ZERO = 0
    SIDE = 1            # the side to move (1 = black)

#: One of a recognizer's (up to three) context selectors for its final map.
ContextSelect = data.StructLayout({"enable": 1, "unit": 3, "offset": 3})

TableAddress = data.StructLayout({"index": INDEX_BITS, "table": TableKind, "unit": UNIT_BITS})

#: One write of the download port.
TableWrite = data.StructLayout({"address": TableAddress, "data": DATA_BITS})

#: A table named for a checksum read-back.
TableSelect = data.StructLayout({"table": TableKind, "unit": UNIT_BITS})


def piece_square_index(piece, square):
    """The description-table index of a piece code (1..6, 9..14) on a square, else None."""
    kind, black = PIECE_FIELDS[piece]
    if kind in (PieceType.EMPTY.value, PieceType.MARKER.value):
        return None
    return ((6 * black + kind - 1) << 6) | square


@dataclass(frozen=True)
class RecognizerShape:
    """The address widths of a recognizer's maps: ``branch_bits`` (the first-level maps: that
    many less one state bits and the external bit), ``combine_bits`` (split ``combine_a`` /
    ``combine_b`` between the branches' outputs), ``final_bits`` (``final_state_bits`` of the
    combining map's output, then ``context_bits``)."""
    branch_bits: int
    combine_bits: int
    final_bits: int
    context_bits: tuple

    @property
    def combine_a(self):
        return (self.combine_bits + 1) // 2

    @property
    def combine_b(self):
        return self.combine_bits // 2

    @property
    def final_state_bits(self):
        return self.final_bits - sum(self.context_bits)


@dataclass(frozen=True)
class EvaluatorParams:
    """The shape of an evaluator: how many units of each kind and how wide their maps are.

    Recognizers have the wide shape (``branch_bits``, ``combine_bits``, ``final_bits``) but for
    the last ``narrow`` of them, which have ``narrow_bits`` (branch, combine, final); all share
    ``context_bits``. Global units share one shape. ``tree_stages`` pipeline registers in the
    adder tree add that many cycles to the latency and take its adders out of the final map's
    path.
    """
    recognizers: int = 14
    globals: int = 8
    branch_bits: int = 13
    combine_bits: int = 13
    final_bits: int = 13
    context_bits: tuple = (2, 2, 2)
    global_bits: int = 13
    tree_stages: int = 0
    narrow: int = 0
    narrow_bits: tuple = (11, 11, 11)

    def __post_init__(self):
        def check(ok, what):
            if not ok:
                raise ValueError(f"EvaluatorParams: {what}")
        check(0 <= self.recognizers and 0 <= self.globals <= 8,
              f"0..8 global units and any number of recognizers, not {self.globals} and {self.recognizers}")
        check(1 + self.globals + self.recognizers <= 1 << UNIT_BITS,
              f"at most {(1 << UNIT_BITS) - 1} units, not {self.globals + self.recognizers}")
        check(0 <= self.narrow <= self.recognizers, f"0..{self.recognizers} narrow recognizers, not {self.narrow}")
        check(len(self.narrow_bits) == 3, f"narrow_bits is (branch, combine, final), not {self.narrow_bits}")
        widths = [("branch_bits", self.branch_bits), ("combine_bits", self.combine_bits),
                  ("final_bits", self.final_bits)]
        widths += [(f"narrow {name}", bits) for (name, _), bits in zip(widths, self.narrow_bits)]
        for name, bits in widths:
            check(2 <= bits <= INDEX_BITS, f"{name} must be 2..{INDEX_BITS}, not {bits}")
        check(max(self.branch_bits, self.narrow_bits[0]) - 1 <= HALF_BITS, f"branch_bits at most {HALF_BITS + 1}")
        check(1 <= self.global_bits <= 13, f"global_bits must be 1..13, not {self.global_bits}")
        check(len(self.context_bits) <= 3 and all(1 <= c <= 8 for c in self.context_bits),
              f"up to three context selectors of 1..8 bits, not {self.context_bits}")
        for final in (self.final_bits, self.narrow_bits[2]):
            check(sum(self.context_bits) < final,
                  f"context bits {self.context_bits} leave no room in a {final}-bit final map")
        check(self.tree_stages >= 0, "tree_stages must be >= 0")

    # --- derived geometry --------------------------------------------------------------------
    @property
    def units(self):
        return 1 + self.globals + self.recognizers

    def shape(self, k):
        """The :class:`RecognizerShape` of recognizer ``k`` (the last ``narrow`` are narrow)."""
        if not 0 <= k < self.recognizers:
            raise IndexError(f"no recognizer {k} (there are {self.recognizers})")
        return self._shapes[k >= self.recognizers - self.narrow]

    @cached_property
    def _shapes(self):
        """(the wide shape, the narrow shape)."""
        return (RecognizerShape(self.branch_bits, self.combine_bits, self.final_bits, self.context_bits),
                RecognizerShape(*self.narrow_bits, self.context_bits))

    @property
    def latency(self):
        """Cycles from a halfmove on the bus to the value that includes it on ``value``."""
        return 4 + self.tree_stages

    def global_unit(self, k):
        if not 0 <= k < self.globals:
            raise IndexError(f"no global unit {k} (there are {self.globals})")
        return 1 + k

    def recognizer_unit(self, k):
        if not 0 <= k < self.recognizers:
            raise IndexError(f"no recognizer {k} (there are {self.recognizers})")
        return 1 + self.globals + k

    def unit_kind(self, unit):
        """``"first-order"``, ``"global"``, ``"recognizer"`` or None for a unit number."""
        if unit == 0:
            return "first-order"
        if 1 <= unit <= self.globals:
            return "global"
        if self.globals < unit < self.units:
            return "recognizer"
        return None

    @cached_property
    def recognizer_config(self):
        return data.StructLayout({
            "field_tops": STATE_BITS,      # bit i set: bit i is the top bit of a field (no carry out)
            "ext_a": ExtSource,
            "ext_b": ExtSource,
            "context": data.ArrayLayout(ContextSelect, len(self.context_bits)),
            "shift": 3,                    # the output is sign-extended and shifted left by this
        })

    @cached_property
    def global_config(self):
        return data.StructLayout({"field_tops": self.global_bits})

    def table_geometry(self, unit, kind):
        """``(entries, bits per entry, signed)`` of a table, or None if it does not exist."""
        kind = TableKind(kind)
        unit_kind = self.unit_kind(unit)
        def words(layout):
            return (layout.size + DATA_BITS - 1) // DATA_BITS
        if unit_kind == "first-order":
            return (PIECE_SQUARES, 16, True) if kind == TableKind.DESCRIPTION else None
        if unit_kind == "global":
            return {TableKind.DESCRIPTION: (PIECE_SQUARES, self.global_bits, False),
                    TableKind.MAP_A: (1 << self.global_bits, MAP_WIDTH, False),
                    TableKind.CONFIG: (words(self.global_config), DATA_BITS, False)}.get(kind)
        if unit_kind == "recognizer":
            shape = self.shape(unit - 1 - self.globals)
            return {TableKind.DESCRIPTION: (PIECE_SQUARES, STATE_BITS, False),
                    TableKind.MAP_A: (1 << shape.branch_bits, MAP_WIDTH, False),
                    TableKind.MAP_B: (1 << shape.branch_bits, MAP_WIDTH, False),
                    TableKind.MAP_COMBINE: (1 << shape.combine_bits, MAP_WIDTH, False),
                    TableKind.MAP_FINAL: (1 << shape.final_bits, MAP_WIDTH, False),
                    TableKind.CONFIG: (words(self.recognizer_config), DATA_BITS, False)}.get(kind)
        return None

    def tables(self):
        """Every ``(unit, kind)`` that exists, in address order."""
        return [(unit, kind) for unit in range(self.units) for kind in TableKind
                if self.table_geometry(unit, kind) is not None]


#: The full configuration for the ULX3S-85F: 16 recognizers — 5 wide (13-bit branches, 12-bit
#: combining and final maps: 14 block RAMs each) for the patterns with four fields or more, 11
#: narrow (11-bit maps: 6 block RAMs each) — and 8 global units, in 161 of the 208 block RAMs,
#: leaving the rest to the search (BENCHMARKS.md has the arithmetic).
FULL = EvaluatorParams(recognizers=16, globals=8, branch_bits=13, combine_bits=12, final_bits=12,
                       context_bits=(2, 2, 1), global_bits=12, narrow=11, narrow_bits=(11, 11, 11))

#: Hitech's complement, 14 recognizers and 8 global units, with maps narrow enough to fit the
#: 85F (11-bit branches: the four-field patterns of host/patterns.py do not fit it).
HITECH = EvaluatorParams(recognizers=14, globals=8, branch_bits=12, combine_bits=11, final_bits=11,
                         context_bits=(2, 2, 1), global_bits=12)

#: A small configuration for an iCE40UP5K: two recognizers with 512-entry maps (one 4 Kb block
#: each) and one global unit, 24 of the 30 block RAMs.
SMALL = EvaluatorParams(recognizers=2, globals=1, branch_bits=9, combine_bits=9, final_bits=9,
                        context_bits=(2, 2), global_bits=8)

#: The named configurations (``--config`` of the command line and the benchmarks).
CONFIGS = {"full": FULL, "hitech": HITECH, "small": SMALL}


class FieldLayout:
    """A split of an accumulator into named fields whose carries never cross.

    ``fields`` is a sequence of ``(name, width)`` from bit 0 up; ``gaps`` (name starting with
    ``_``) reserve bits. Gives the field-top mask the hardware needs and packs/unpacks values.
    """

    def __init__(self, fields, width=STATE_BITS, *, offset=0):
        self.width = width
        self.offsets = {}
        self.widths = {}
        position = offset
        for name, bits in fields:
            if bits < 0 or (bits == 0 and not name.startswith("_")):
                raise ValueError(f"field {name!r} must be at least 1 bit wide, not {bits}")
            if not name.startswith("_"):
                self.offsets[name] = position
                self.widths[name] = bits
            position += bits
        if position > width:
            raise ValueError(f"fields {[f for f, _ in fields]} need {position} bits, more than {width}")

    @property
    def tops(self):
        """The mask of each field's top bit (and of every unused bit)."""
        used = 0
        tops = 0
        for name, offset in self.offsets.items():
            tops |= 1 << (offset + self.widths[name] - 1)
            used |= ((1 << self.widths[name]) - 1) << offset
        return tops | (((1 << self.width) - 1) & ~used)

    def pack(self, **values):
        """Field values (taken modulo each field's width; negatives as two's complement)."""
        word = 0
        for name, value in values.items():
            word |= (value & ((1 << self.widths[name]) - 1)) << self.offsets[name]
        return word

    def unpack(self, word):
        return {name: (word >> offset) & ((1 << self.widths[name]) - 1) for name, offset in self.offsets.items()}


def config_words(layout, **fields):
    """A configuration register packed with ``layout``, as the CONFIG words that load it."""
    bits = pack(layout, **fields)
    return [(bits >> (DATA_BITS * i)) & ((1 << DATA_BITS) - 1) for i in range(-(-layout.size // DATA_BITS))]


def config_fields(layout, words):
    """The fields (a dict) of a configuration register loaded with CONFIG ``words``."""
    bits = sum(word << (DATA_BITS * i) for i, word in enumerate(words))
    return unpack(layout, bits & ((1 << layout.size) - 1))


def table_checksum(entries, bits=DATA_BITS):
    """CRC-32 (``zlib.crc32``) of table entries, each as 3 little-endian bytes of its low bits."""
    words = np.asarray(entries, dtype=np.int64) & ((1 << bits) - 1)
    return zlib.crc32(words.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes())


class TableStore:
    """The contents of every table of an evaluator, as the download port leaves them."""

    def __init__(self, params):
        self.params = params
        self.tables = {(unit, kind): [0] * params.table_geometry(unit, kind)[0]
                       for unit, kind in params.tables()}
        self._configs = {}
        #: counts the changes, so that users may cache what they derive from the tables
        self.generation = 0

    def write(self, unit, kind, index, data):
        """One download write; ignored (as by the hardware) if the table or entry does not exist."""
        table = self.tables.get((unit, TableKind(kind)))
        if table is not None and 0 <= index < len(table):
            bits = self.params.table_geometry(unit, kind)[1]
            table[index] = data & ((1 << bits) - 1)
            self._configs.pop(unit, None)
            self.generation += 1

    def load(self, unit, kind, entries):
        """Replace a whole table (entries taken modulo the entry width)."""
        key = (unit, TableKind(kind))
        size, bits, _ = self.params.table_geometry(*key)
        if len(entries) != size:
            raise ValueError(f"unit {unit} {key[1].name} has {size} entries, not {len(entries)}")
        mask = (1 << bits) - 1
        self.tables[key] = [e & mask for e in entries]
        self._configs.pop(unit, None)
        self.generation += 1

    def checksum(self, unit, kind):
        table = self.tables.get((unit, TableKind(kind)))
        return table_checksum(table or [])

    def __getitem__(self, key):
        return self.tables[key]

    def config(self, unit):
        """A unit's CONFIG words joined and unpacked (a dict of fields)."""
        if unit not in self._configs:
            self._configs[unit] = self._unpack_config(unit)
        return self._configs[unit]

    def _unpack_config(self, unit):
        kind = self.params.unit_kind(unit)
        layout = self.params.recognizer_config if kind == "recognizer" else self.params.global_config
        return config_fields(layout, self.tables[(unit, TableKind.CONFIG)])
