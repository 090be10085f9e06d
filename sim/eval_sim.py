"""The Verilated evaluator, driven through its native harness (sim/harness/evaluator.cpp).

:class:`VerilatedEvaluator` builds (once, cached) the evaluator of a given
:class:`~hdl.eval.tables.EvaluatorParams` and talks to it over pipes in the shared encodings,
so tests and the CLI compare it with ``models.evaluator`` directly.
"""

import hashlib

from hdl.encoding import Halfmove as HalfmoveLayout
from hdl.eval.evaluator import Evaluator
from hdl.eval.tables import FULL, TableKind, TableSelect, TableWrite

from .verilator import HARNESS, HarnessProcess, build_harness, verilog_for

__all__ = ["VerilatedEvaluator", "evaluator_executable", "TablePort", "TABLE_LAYOUTS", "params_variant"]

#: The layouts of the table-download and checksum ports (sim/harness/tables.h).
TABLE_LAYOUTS = {"tablewrite": TableWrite, "tableselect": TableSelect}
LAYOUTS = {"halfmove": HalfmoveLayout, **TABLE_LAYOUTS}

_WRITES_PER_LINE = 1024


def params_variant(params):
    """A short name for an evaluator configuration, for build caches."""
    return "-" + hashlib.sha256(repr(params).encode()).hexdigest()[:8]


def evaluator_executable(params=FULL, quiet=False):
    verilog = verilog_for("evaluator", lambda: Evaluator(params), variant=params_variant(params), packages=("eval",),
                          registered_reset=True)
    return build_harness("evaluator", verilog, HARNESS / "evaluator.cpp", LAYOUTS, quiet=quiet)


class TablePort:
    """The table-download and checksum commands of a harness with the evaluator's ports.

    ``write_store`` downloads only the tables that differ from what the last ``write_store``
    left (every table the first time): loading one pattern's tables after another's sends the
    few that differ, not the whole store. A table written since with ``write_table`` counts as
    differing."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._held = {}     # (unit, kind) -> the entries the last write_store left in that table

    def write_table(self, unit, kind, entries, start=0):
        """Download ``entries`` to consecutive indices of one table."""
        self._send_table(unit, kind, entries, start)
        self._held.pop((unit, TableKind(kind)), None)

    def write_store(self, store):
        """Download the tables of a ``models.evaluator.TableStore`` that differ from the
        hardware's (as far as this port wrote them)."""
        for (unit, kind), entries in store.tables.items():
            if self._held.get((unit, kind)) != entries:
                self._send_table(unit, kind, entries)
                self._held[(unit, kind)] = list(entries)

    def _send_table(self, unit, kind, entries, start=0):
        kind = TableKind(kind).value
        entries = list(entries)
        for offset in range(0, len(entries), _WRITES_PER_LINE):
            chunk = entries[offset:offset + _WRITES_PER_LINE]
            self._send(f"W {unit} {kind} {start + offset} " + " ".join(str(e & 0xFFFFFF) for e in chunk))

    def checksum(self, unit, kind):
        """``(crc, cycles)`` of one table as the hardware reads it back."""
        self._send(f"crc {unit} {TableKind(kind).value}")
        crc, cycles = self._read()
        return int(crc), int(cycles)


class VerilatedEvaluator(TablePort, HarnessProcess):
    """A running Verilated evaluator. Use as a context manager, or call :meth:`close`."""

    what = "evaluator"

    def __init__(self, params=FULL, executable=None):
        super().__init__(executable or evaluator_executable(params))
        self.params = params
        #: cycles from the last input to ``valid``, as of the last :meth:`value`
        self.settle_cycles = None

    # --- inputs ------------------------------------------------------------------------------
    def reset(self):
        self._send("reset")
        self._held.clear()      # (the tables are memories, which reset keeps; nothing assumed)

    def set_side(self, side):
        self._send(f"side {side}")

    def clear(self):
        self._send("clear")

    # --- outputs -----------------------------------------------------------------------------
    def value(self):
        """The value once valid; :attr:`settle_cycles` is set to how long that took."""
        self._send("value")
        value, cycles = self._read()
        self.settle_cycles = int(cycles)
        return int(value)

    def spin(self, halfmoves):
        """Play ``halfmoves`` halfmoves inside the harness (no Python in the loop); the cycles taken."""
        self._send(f"spin {halfmoves}")
        return int(self._read()[0])

    def cycles(self):
        self._send("cycles")
        return int(self._read()[0])
