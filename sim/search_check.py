"""Hardware search against the reference search (models/search.py), position by position.

The tables the searches evaluate with come in named sets: ``material`` (material and piece-square
tables: the first-order unit only) and ``patterns`` (the same, plus a recognizer pattern set:
the pawn shelter, pawn structure and phase-scaled king safety — recognizers and global-state
units at work). ``random`` loads random tables of every kind (hostile values; the search must
still agree). ``antichess`` is the Oracle's antichess library (``host/antichess.py``), every
pattern made at the starting position.
"""

import random

from host.antichess import library_patterns
from host.patterns import KingSafety, MaterialPieceSquare, PawnStructure, ShelterRecognizer
from host.root import RootJob
from host.tables import EvaluatorImage
from models.evaluator import static_value
from models.position import MachinePosition, new_board
from models.search import ReferenceSearch
from models.zobrist import position_key

from .eval_check import random_tables

__all__ = ["TABLE_SETS", "table_store", "SearchPair"]

TABLE_SETS = ("material", "patterns", "random", "antichess")


def table_store(params, name, seed=1):
    """The ``TableStore`` of a named table set for an evaluator configuration."""
    if name == "random":
        return random_tables(params, random.Random(seed).getrandbits(64))
    image = EvaluatorImage(params)
    if name == "antichess":
        for pattern in library_patterns(new_board("antichess")):
            pattern.install(image)
        return image.store()
    MaterialPieceSquare().install(image)
    if name == "patterns":
        patterns = [ShelterRecognizer(), PawnStructure(), KingSafety()]
        if params.recognizers < 3 or params.globals < 3:
            patterns = patterns[:1]
        for pattern in patterns:
            pattern.install(image)
    elif name != "material":
        raise ValueError(f"no table set {name!r} (there are {', '.join(TABLE_SETS)})")
    return image.store()


class SearchPair:
    """A machine (Verilated, or a board behind its link) and the reference search with the same
    tables and transposition table size."""

    def __init__(self, machine, store):
        self.machine, self.store = machine, store
        self.reference = ReferenceSearch(machine.eval_params, store, hash_bits=machine.hash_bits)

    def search(self, board, depth, clear_table=True, root_move=None, **window):
        """The hardware's search, with this pair's tables loaded and (unless ``clear_table`` is
        false) an empty transposition table, as the reference starts with; ``window`` may hold
        ``alpha``, ``beta``, ``generation``, ``features`` and ``keep_killers``; ``root_move``
        (a legal move of ``board``) restricts the root to it."""
        if self.machine.store is not self.store:
            self.machine.write_store(self.store)
        self.machine.set_position(board)
        if clear_table:
            self.machine.clear_hash()
        return self.machine.search(depth, root_move=root_move, **window)

    def compare(self, board, depth, clear_table=True, **window):
        """``(hardware result, reference result, differences)`` for one search."""
        hw = self.search(board, depth, clear_table, **window)
        ref = self.reference.search(board, depth, clear_table=clear_table, **window)
        return hw, ref, self.differences(board, depth, hw, ref, self.reference.principal_variation(board))

    def differences(self, board, depth, hw, ref, ref_line):
        """What the hardware's search of ``board`` (just run) did otherwise than the reference's
        (``ref``, its principal variation ``ref_line``): value, best move, node count; the
        machine back on the position, to the last bit of its Zobrist key and its evaluator's
        value; and the principal variation read from its transposition table."""
        diffs = []
        for what, got, want in (("score", hw.score, ref.score), ("best move", hw.move, ref.move),
                                ("nodes", hw.nodes, ref.nodes)):
            if got != want:
                diffs.append(f"depth {depth}: {what}: hardware {_show(got)}, reference {_show(want)}")
        key, want = self.machine.key(), position_key(MachinePosition.from_board(board), 0 if board.turn else 1)
        if key != want:
            diffs.append(f"depth {depth}: the board is not restored: key {key:#018x}, want {want:#018x}")
        value, want = self.machine.evaluate(), static_value(self.store, board)
        if value != want:
            diffs.append(f"depth {depth}: the evaluator is not restored: static value {value}, want {want}")
        hw_line = self.machine.principal_variation(board)
        if hw_line != ref_line:
            diffs.append(f"depth {depth}: principal variation: hardware {' '.join(m.uci() for m in hw_line)}, "
                         f"reference {' '.join(m.uci() for m in ref_line)}")
        return diffs


def root_jobs(search, board, clear_first=True, **options):
    """A :class:`~host.root.RootLoop` search callback: each root move's job run by ``search``
    (a ``SearchPair``'s ``search`` or ``compare``'s first result, or a ``ReferenceSearch``'s
    ``search``) on ``board`` with ``options`` (features, generation), the transposition table
    cleared before the first job when ``clear_first``."""
    jobs = 0

    def job(move, depth, alpha, beta, keep_killers):
        nonlocal jobs
        jobs += 1
        result = search(board, depth, alpha=alpha, beta=beta, clear_table=clear_first and jobs == 1,
                        root_move=move, keep_killers=keep_killers, **options)
        return RootJob(result.score, result.nodes, getattr(result, "cycles", 0), False)
    return job


def _show(value):
    return value.uci() if hasattr(value, "uci") else value
