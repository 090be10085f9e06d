"""The machinery behind ``suprem verify``: a hardware unit against its bit-exact model and
python-chess on every position of an EPD/FEN file.

Each ``*_checks`` function yields ``(record, differences)`` per position (an empty list when
the hardware agrees) and keeps its own tallies; the command line reads the file with
:func:`checked_positions`, prints what it is given and the summary. The checkers themselves
are ``movegen_check``, ``eval_check`` and ``search_check`` beside this module.
"""

import random
from concurrent.futures import Future, ProcessPoolExecutor

from hdl.movegen.layouts import VictimOrder
from hdl.search.features import SearchFeatures
from models.position import new_board

__all__ = ["checked_positions", "movegen_checks", "eval_checks", "SearchVerification"]


def checked_positions(path, limit=None, report=print, variant="chess"):
    """The readable, possible positions of an EPD/FEN file (boards of ``variant``), up to
    ``limit``; every line that is not is given to ``report`` and skipped. Returns ``(records,
    rejected)``; OSError if the file cannot be read."""
    from host.epd import EpdError, read_positions
    from models.position import PositionError, validate_board
    with open(path) as f:
        lines = f.read().splitlines()
    records, rejected = [], 0
    for record in read_positions(lines, variant):
        if limit is not None and len(records) >= limit:
            break
        if isinstance(record, EpdError):
            report(f"{path}: {record}")
            rejected += 1
            continue
        try:
            validate_board(record.board)
        except PositionError as error:
            report(f"{path}: line {record.line}: rejected: {error}")
            rejected += 1
            continue
        records.append(record)
    return records, rejected


def movegen_checks(records, victim_order=VictimOrder.MOST_VALUABLE, legal=True):
    """The Verilated generator's moves, order and keys against the model and python-chess (in
    each board's variant, with the capture order ``victim_order``; ``legal=False``: the
    lean generator)."""
    from .movegen_check import compare_position
    from .movegen_sim import VerilatedMovegen
    with VerilatedMovegen(legal=legal) as hw:
        for record in records:
            yield record, compare_position(hw, record.board, victim_order)


def eval_checks(records, params, *, seed=1, plies=8, tables_every=100):
    """Random tables (fresh every ``tables_every`` positions, each read back by checksum) and a
    random make/unmake walk of ``plies`` from every position: the Verilated evaluator's value
    after every step against the model's."""
    from models.evaluator import EvaluatorModel

    from .eval_check import compare_walk, random_tables
    from .eval_sim import VerilatedEvaluator
    rng = random.Random(seed)
    with VerilatedEvaluator(params) as hw:
        for number, record in enumerate(records):
            diffs = []
            if number % tables_every == 0:
                store = random_tables(params, rng.getrandbits(64))
                hw.write_store(store)
                for unit, kind in params.tables():
                    crc, _ = hw.checksum(unit, kind)
                    if crc != store.checksum(unit, kind):
                        diffs.append(f"unit {unit} {kind.name}: read back CRC {crc:#010x}, "
                                     f"downloaded {store.checksum(unit, kind):#010x}")
            hw.clear()
            yield record, diffs + compare_walk(hw, EvaluatorModel(params, store), record.board, plies, rng)


_REFERENCE = None


def _reference_worker_init(params, store):
    from models.search import ReferenceSearch
    global _REFERENCE
    _REFERENCE = ReferenceSearch(params, store)


def _reference_search(variant, fen, depth, features, victim_order):
    """The reference's result and principal variation for one position (in a worker)."""
    board = new_board(variant, fen)
    result = _REFERENCE.search(board, depth, features=features, victim_order=victim_order)
    return result, _REFERENCE.principal_variation(board)


class _InProcess:
    """A stand-in for a process pool that runs each job at once in this process."""

    def __init__(self, initializer, initargs):
        initializer(*initargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def submit(self, function, *args):
        future = Future()
        future.set_result(function(*args))
        return future


class SearchVerification:
    """The hardware search against the reference search on every position: value, best move,
    node count, principal variation, and the board and evaluator restored afterwards
    (:meth:`~sim.search_check.SearchPair.differences`). The reference runs in ``jobs`` worker
    processes (0: in this one) while ``machine`` (a Verilated machine or a board on the link)
    searches; both with ``features`` (a ``SearchFeatures``, all by default) and the capture
    order ``victim_order``, each position in its board's variant."""

    def __init__(self, machine, params, store, depth, jobs=1, features=None, victim_order=VictimOrder.MOST_VALUABLE):
        from .search_check import SearchPair
        if not 0 <= depth < 64:
            raise ValueError(f"search depth must be 0..63, not {depth}")
        self.pair, self.depth = SearchPair(machine, store), depth
        self.features = SearchFeatures() if features is None else features
        self.victim_order = victim_order
        self._pool = (ProcessPoolExecutor(max_workers=jobs, initializer=_reference_worker_init,
                                          initargs=(params, store))
                      if jobs > 0 else _InProcess(_reference_worker_init, (params, store)))
        self.nodes = self.cycles = 0

    def checks(self, records):
        with self._pool:
            pending = {r.line: self._pool.submit(_reference_search, r.board.uci_variant, r.board.fen(), self.depth,
                                                 self.features, self.victim_order)
                       for r in records}
            for record in records:
                hw = self.pair.search(record.board, self.depth, features=self.features, victim_order=self.victim_order)
                self.nodes += hw.nodes
                self.cycles += hw.cycles
                ref, ref_line = pending.pop(record.line).result()
                yield record, self.pair.differences(record.board, self.depth, hw, ref, ref_line)

    def summary(self):
        per_node = self.cycles / max(1, self.nodes)
        return f"hardware: {self.nodes} nodes in {self.cycles} cycles ({per_node:.1f} cycles per node)"
