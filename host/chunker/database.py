"""The exact database of a CHUNKER domain: built once by retrograde analysis, cached, read by index.

:func:`build` compiles ``retro.cpp`` (the C++ compiler Verilator already needs) with the
domain's layout (:meth:`Domain.defines`; once per layout, the solver kept in the cache), runs
it with the domain's options (:meth:`Domain.arguments`: floors, a joint game), and stores its
value bytes compactly: one zlib block per pawn configuration (8,192 bytes: both sides to move,
every pair of king squares) behind a table of the blocks' offsets. The file is cached under
``$SUPREM_CACHE`` (or ``~/.cache/suprem``) by a hash of the solver's source, the layout and the
options, so a change of any builds it again; :func:`open_database` builds on first use. The
files of other keys stay: two checkouts of different solvers may share the cache (a match
played from a worktree of an older commit beside the main checkout's tests), and neither may
delete the libraries the other is using. Like every build in the cache, they go when unused
for a while (``suprem cache --prune DAYS``, :mod:`sim.cache`). A :class:`Database` reads a value
by decompressing the one block it lies in (the last few blocks are kept).

Format (little-endian): ``b"SUPREMDB"``, the domain's name as 48 bytes (NUL-padded), the number
of configurations ``C`` (uint64), then ``C + 1`` uint64 offsets from the file's start (block ``k``
spans ``offsets[k]:offsets[k + 1]``; empty for a configuration below the domain's floors, every
index of it invalid), then the blocks.
"""

import array
import contextlib
import contextvars
import functools
import hashlib
import json
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from .domain import DRAW, INVALID, LOSS, PAPER, STATES, capture_of, is_loss, is_win, plies

__all__ = ["build", "open_database", "database_path", "areas_path", "Database", "BuildReport", "preference",
           "verify", "NotBuilt", "built_only"]

SOURCE = Path(__file__).resolve().parent / "retro.cpp"
MAGIC = b"SUPREMDB"
NAME_BYTES = 48
BLOCK = STATES     # a configuration's value bytes, one block of the file
#: zlib's level for a configuration's block: 5 compresses 1.4 to 1.7 times as fast as 6 and
#: stores 3 to 13 % more (BENCHMARKS.md, 2026-12-07 seventh); level 10's tables are built in
#: the middle of a search.
COMPRESSION = 5
COMPILER_FLAGS = ["-O2", "-std=c++17"]
#: How many blocks a process keeps decompressed, of all its databases together (8 KB each: 256
#: MB at most): a search asks levels 5 to 8's libraries a dozen times a position. In a search of
#: 102,389 nodes (CH.001's ply 16, levels 1 to 9) 4,096 decompressed a block every 20 lookups
#: and this every 74, and the search took a quarter less time (BENCHMARKS.md, 2026-12-07 ninth).
BLOCKS_KEPT = 32_768


@dataclass
class BuildReport:
    """What a build did: the solver's counts (``indices``, ``invalid``, ``draws``, ``wins``,
    ``losses``, ``longest`` distance in plies), its ``seconds``, the whole build's ``total_seconds``
    (compiling and compressing too), the raw and stored ``bytes``."""

    counts: dict
    seconds: float
    total_seconds: float
    raw_bytes: int
    stored_bytes: int
    path: Path


def _cache_dir():
    from sim.verilator import cache_dir
    path = cache_dir() / "chunker"
    path.mkdir(parents=True, exist_ok=True)
    return path


@functools.cache
def _solver_key(domain):
    digest = hashlib.sha256(SOURCE.read_bytes())
    digest.update(json.dumps(domain.defines(), sort_keys=True).encode())
    digest.update(" ".join(COMPILER_FLAGS).encode())
    return digest.hexdigest()[:16]


@functools.cache
def _key(domain):
    digest = hashlib.sha256(_solver_key(domain).encode())
    digest.update(MAGIC + NAME_BYTES.to_bytes(2, "little"))     # the file's format
    digest.update(" ".join(domain.arguments()).encode())
    return digest.hexdigest()[:16]


def _solver(domain):
    """``retro.cpp`` compiled for ``domain``'s layout (:meth:`Domain.defines`), once per layout
    and kept in the cache: every floor and joint game of the layout runs it."""
    exe = _cache_dir() / f"retro-{_solver_key(domain)}"
    if not exe.exists():
        work = Path(tempfile.mkdtemp(prefix="chunker-", dir=_cache_dir()))
        try:
            defines = [f"-D{name}={value}" for name, value in domain.defines().items()]
            result = subprocess.run([_compiler(), *COMPILER_FLAGS, *defines, str(SOURCE), "-o", str(work / "retro")],
                                    capture_output=True, text=True)
            if result.returncode:
                raise RuntimeError(f"compiling {SOURCE.name} failed:\n{result.stderr[-4000:]}")
            (work / "retro").replace(exe)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    from sim.verilator import mark_used
    mark_used(exe)
    return exe


def database_path(domain=PAPER):
    return _cache_dir() / f"{domain.name()}-{_key(domain)}.db"


def areas_path(domain):
    """Where the king areas of a ``defender_passes`` domain are kept (one uint64 per index)."""
    return database_path(domain).with_suffix(".areas")


def _compiler():
    for name in ("c++", "g++", "clang++"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no C++ compiler (c++, g++ or clang++) on PATH: the one Verilator uses builds the "
                       "CHUNKER database too")


def build(domain=PAPER, *, quiet=True, force=False):
    """Build ``domain``'s database (unless cached and not ``force``); returns a :class:`BuildReport`
    (``counts`` empty when it was cached)."""
    path = database_path(domain)
    if path.exists() and not force:
        from sim.verilator import mark_used
        mark_used(path)
        if domain.defender_passes:
            mark_used(areas_path(domain))
        return BuildReport({}, 0.0, 0.0, domain.size, path.stat().st_size, path)
    start = time.monotonic()
    if not quiet:
        print(f"suprem: building the CHUNKER database of {domain.name()} ({domain.size:,} positions; "
              "once, cached afterwards)...", file=sys.stderr, flush=True)
    exe = _solver(domain)
    work = Path(tempfile.mkdtemp(prefix="chunker-", dir=_cache_dir()))
    try:
        raw = work / "values.bin"
        areas = [str(work / "areas.bin")] if domain.defender_passes else []
        result = subprocess.run([str(exe), *domain.arguments(), str(raw), *areas], capture_output=True, text=True)
        if result.returncode:
            raise RuntimeError(f"the retrograde solver failed: {result.stderr.strip()}")
        counts = json.loads(result.stdout)
        staged = work / "values.db"
        _compress(domain, raw, staged)
        if areas:
            Path(areas[0]).replace(areas_path(domain))
        staged.replace(path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = BuildReport(counts, counts["seconds"], time.monotonic() - start, domain.size, path.stat().st_size, path)
    if not quiet:
        print(f"suprem: built {path.name}: {report.stored_bytes:,} bytes in {report.total_seconds:.0f} s",
              file=sys.stderr, flush=True)
    return report


def _compress(domain, raw, out):
    configs = domain.configs
    with open(raw, "rb") as source, open(out, "wb") as sink:
        name = domain.name().encode()
        if len(name) > NAME_BYTES:
            raise ValueError(f"the domain's name {domain.name()!r} is longer than a database's {NAME_BYTES} bytes")
        head = MAGIC + name.ljust(NAME_BYTES, b"\0") + struct.pack("<Q", configs)
        table = 8 * (configs + 1)
        sink.write(head + bytes(table))
        offsets = array.array("Q", [len(head) + table]) * (configs + 1)
        for config in domain.allowed_configs():     # (the others are not solved: an empty block)
            block = source.read(BLOCK)
            if len(block) != BLOCK:
                raise RuntimeError("the solver wrote fewer values than the domain has")
            offsets[config] = sink.tell()
            sink.write(zlib.compress(block, COMPRESSION))
            offsets[config + 1] = sink.tell()
        if source.read(1):
            raise RuntimeError("the solver wrote more values than the domain has")
        for config in range(1, configs + 1):        # an empty block starts where the one before ends
            offsets[config] = max(offsets[config], offsets[config - 1])
        if sys.byteorder != "little":
            offsets.byteswap()
        sink.seek(len(head))
        sink.write(offsets.tobytes())


class Database:
    """The values of ``domain``'s positions (``host.chunker.domain``'s value bytes), from ``path``."""

    def __init__(self, domain, path):
        self.domain, self.path = domain, Path(path)
        self._file = open(self.path, "rb")
        head = self._file.read(len(MAGIC) + NAME_BYTES + 8)
        name = head[len(MAGIC):len(MAGIC) + NAME_BYTES].rstrip(b"\0").decode()
        (configs,) = struct.unpack("<Q", head[-8:])
        if head[:len(MAGIC)] != MAGIC or name != domain.name() or configs != domain.configs:
            raise ValueError(f"{self.path} is not the database of {domain.name()}")
        self._offsets = array.array("Q", self._file.read(8 * (configs + 1)))   # (little-endian, as written)
        if sys.byteorder != "little":
            self._offsets.byteswap()
        self._areas = open(areas_path(domain), "rb") if domain.defender_passes else None

    def close(self):
        self._file.close()
        if self._areas:
            self._areas.close()

    def area_at(self, index):
        """The king area of an index (a ``defender_passes`` domain): the squares the attacker's king
        stands on in one strategy that wins it, over every defence, as a bitboard (0 where the
        attacker does not win)."""
        self._areas.seek(8 * index)
        return struct.unpack("<Q", self._areas.read(8))[0]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @functools.lru_cache(maxsize=BLOCKS_KEPT)  # noqa: B019 (one database per domain, kept for the process)
    def block(self, config):
        """The value bytes of one pawn configuration (8,192: both sides to move, every king pair)."""
        start, end = self._offsets[config], self._offsets[config + 1]
        if start == end:                            # a configuration below the domain's floors
            return bytes([INVALID]) * BLOCK
        self._file.seek(start)
        return zlib.decompress(self._file.read(end - start))

    def value_at(self, index):
        """The value byte of an index."""
        if not 0 <= index < self.domain.size:
            raise ValueError(f"index {index} outside 0..{self.domain.size - 1}")
        return self.block(index // BLOCK)[index % BLOCK]

    def value(self, board):
        """The value byte of a position of the domain (raises ``OutsideDomain`` otherwise)."""
        value = self.value_at(self.domain.index(board))
        if value == INVALID:
            raise ValueError(f"not a legal position: {board.fen()}")
        return value

    def outcome(self, step):
        """The value byte, for the side choosing it, of one of ``Domain.children``'s outcomes."""
        if step == "win":
            return 1
        plies_on, after = step
        value = self.value(after)
        if value == DRAW:
            return DRAW
        if plies_on == 2:                           # the unsafe promotion: the same side moves again
            return value + 2
        return LOSS + plies(value) + 1 if is_win(value) else plies(value) + 1

    def expected(self, board):
        """The value ``board`` must have given its children's values in this database (the
        minimax of one ply: python-chess's moves, the domain's rules); ``verify`` compares."""
        children = self.domain.children(board)
        if not children:
            return LOSS if board.is_check() else DRAW
        return max((self.outcome(step) for _, step in children), key=preference)

    def line(self, board, limit=200):
        """The principal line from ``board`` as moves (an unsafe promotion followed by its
        capture), each side choosing a win soonest, else a loss latest; it ends at the safe
        promotion or mate. A drawn position has no line."""
        board, moves = board.copy(stack=False), []
        while len(moves) < limit and self.value(board) != DRAW:
            children = self.domain.children(board)
            if not children:
                break
            move, step = max(children, key=lambda child: preference(self.outcome(child[1])))
            moves.append(move)
            if step == "win":
                break
            board.push(move)
            if step[0] == 2:
                moves.append(capture_of(board, move.to_square))
            board = step[1].copy(stack=False)
        return moves


def preference(value):
    """A key ordering value bytes from the side to move's view: a win sooner is bigger, then a
    draw, then a loss later."""
    if is_win(value):
        return 1000 - value
    if is_loss(value):
        return -1000 + plies(value)
    return 0


def verify(db, indices):
    """``[(index, stored, expected)]`` for each of ``indices`` where the database disagrees with
    one ply of minimax over its own values (or calls a non-position valid, or the reverse). A
    database with no such index anywhere is exact: its wins and losses are well-founded (each
    distance one more than a child's), so by induction on the distance each is the game's value,
    and a draw is a position with neither."""
    wrong = []
    for index in indices:
        stored, valid = db.value_at(index), db.domain.valid(index)
        if (stored == INVALID) != (not valid):
            wrong.append((index, stored, "valid" if valid else INVALID))
        elif valid:
            expected = db.expected(db.domain.board(index))
            if expected != stored:
                wrong.append((index, stored, expected))
    return wrong


class NotBuilt(LookupError):
    """A database asked for under :func:`built_only` that is not in the cache."""


#: None, or under :func:`built_only` the set of domains found not built there (``open_database``
#: builds nothing, and looks for each missing file once, not at every node of a search).
_MISSING = contextvars.ContextVar("chunker_missing", default=None)


@contextlib.contextmanager
def built_only():
    """Within this context (in this thread or task), :func:`open_database` raises
    :class:`NotBuilt` for a database the cache does not hold instead of building it: for callers
    that must not spend minutes, such as a search under a game clock."""
    token = _MISSING.set(set())
    try:
        yield
    finally:
        _MISSING.reset(token)


_opened = {}


def open_database(domain=PAPER, quiet=False):
    """The :class:`Database` of ``domain``, built on first use (under :func:`built_only`, raises
    :class:`NotBuilt` instead); kept open for the process."""
    db = _opened.get(domain)
    if db is None:
        missing = _MISSING.get()
        if missing is not None and (domain in missing or not database_path(domain).exists()):
            missing.add(domain)
            raise NotBuilt(f"CHUNKER's database of {domain.name()} is not built")
        db = _opened[domain] = Database(domain, build(domain, quiet=quiet).path)
    return db

