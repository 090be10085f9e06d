"""CHUNKER's chunk libraries: a king against one side's passed pawns, solved by retrograde enumeration.

A position of the domain parses into two chunks, each one side's pawns against the other side's
king (the paper's Kv3CPP; with fewer pawns once some are taken). A chunk played alone is a small
game: the *attacker* pushes a pawn, the *defender* moves the king (taking an undefended pawn if
it can); the attacker wins by a safe promotion (or a mate by the pawns), the defender by
stopping every pawn for ever. Its library gives every instance (the pawns' codes, the king's
square, who moves) the plies to the attacker's win under best play, or none, in four variants
by who may **pass** (spend the move elsewhere on the board, which the chunk does not see):

- ``AM``: alternating moves, neither passes;
- ``PCP``: the pawns' side may pass (its king moves elsewhere);
- ``KCP``: the king's side may pass (its pawns move elsewhere);
- ``BOTH``: either may.

A defender with no king move that is not in check may not be able to pass on the real board
(stalemate): the libraries count such an instance as held by the defender, so an attacker's win
in a library is a win whatever else the defender has. A mate by the pawns (the king in check with
no move) is the attacker's win. An unsafe promotion (the king takes the new queen) leaves the
attacker to move again with the pawn gone, as in the domain. The *tempo* library counts the
least count of passes to spare with which the pawns win, either side's (the moves a side makes
elsewhere; level 9's spare tempi, counted both ways). Each library is ``7 ** n * 64 * 2``
values (``n`` the chunk's pawns), built in pure Python in a second or so and kept per process;
tempo libraries, asked by the hundred, are kept in the cache on disk too (:func:`tempo_path`).
"""

import functools
import hashlib
import math
import os
import tempfile
from pathlib import Path

import chess
import numpy

from .database import _cache_dir
from .domain import CODES, Domain

__all__ = ["PASSES", "Chunk", "library", "tempo_library", "tempo_path", "NEVER"]

#: Who may pass in each variant: (attacker, defender).
PASSES = {"AM": (False, False), "PCP": (True, False), "KCP": (False, True), "BOTH": (True, True)}
#: The distance of an instance the defender holds.
NEVER = None
ATTACKER, DEFENDER = 0, 1


def _king_moves(square):
    return chess.BB_KING_ATTACKS[square]


class Chunk:
    """The chunk of ``colour``'s pawns on ``files`` against the other king: its instances'
    indices ``(codes * 64 + king) * 2 + turn`` (``codes`` the pawns' codes as base-7 digits in
    ``files``' order, ``turn`` 0 when the attacker moves)."""

    def __init__(self, colour, files):
        self.colour, self.files = colour, tuple(files)
        self.size = CODES ** len(self.files) * 64 * 2
        self._configurations = {}

    def square(self, k, code):
        return Domain.pawn_square(self.colour, self.files[k], code)

    def decode(self, codes_index):
        codes = []
        for _ in self.files:
            codes_index, code = divmod(codes_index, CODES)
            codes.append(code)
        return codes

    def index(self, codes, king, turn):
        """The instance of the pawns' ``codes`` (a sequence, in ``files``' order), the king on
        ``king`` and ``turn`` (``ATTACKER`` or ``DEFENDER``) to move."""
        return self.at(self.encode(codes), king, turn)

    @staticmethod
    def at(codes_index, king, turn):
        """The instance of the pawns' configuration ``codes_index`` (:meth:`encode`'s), the king
        on ``king`` and ``turn`` to move."""
        return (codes_index * 64 + king) * 2 + turn

    def encode(self, codes):
        index = 0
        for code in reversed(codes):
            index = index * CODES + code
        return index

    def pawn_attacks(self, codes):
        bb = 0
        for k, code in enumerate(codes):
            if code:
                bb |= chess.BB_PAWN_ATTACKS[self.colour][self.square(k, code)]
        return bb

    def _configuration(self, codes_index):
        """``(codes, pawns, attacks, pushes)`` of a configuration of the pawns, made once per
        chunk: their codes, their squares (square -> k), the squares they attack, and per pawn
        ``(k, code, front, beyond)`` (the squares of its step and of its double step)."""
        found = self._configurations.get(codes_index)
        if found is None:
            codes = self.decode(codes_index)
            pawns = {self.square(k, code): k for k, code in enumerate(codes) if code}
            step = 8 if self.colour == chess.WHITE else -8
            pushes = [(k, code, self.square(k, code) + step, self.square(k, code) + 2 * step)
                      for k, code in enumerate(codes) if code]
            found = self._configurations[codes_index] = codes, pawns, self.pawn_attacks(codes), pushes
        return found

    def in_check(self, index):
        """Whether the instance's king stands attacked by the pawns."""
        rest = index // 2
        return bool(self._configuration(rest // 64)[2] >> (rest % 64) & 1)

    def moves(self, index, attacker_passes, defender_passes):
        """``(kind, moves)``: ``kind`` ``"moves"`` with ``[(plies, child index or "win")]`` (a pass
        is a child too), ``"mate"`` (the defender is mated) or ``"held"`` (no move: the attacker
        is stuck, or the defender stalemated)."""
        turn, rest = index % 2, index // 2
        king, codes_index = rest % 64, rest // 64
        codes, pawns, attacks, pushes = self._configuration(codes_index)
        if king in pawns:
            return "invalid", []
        children = []
        if turn == ATTACKER:
            for k, code, front, beyond in pushes:
                if front == king:
                    continue
                place = CODES ** k
                if code == 6:                   # promotes
                    taken = (chess.BB_SQUARES[king] & chess.BB_KING_ATTACKS[front]) and \
                        not attacks & chess.BB_SQUARES[front]
                    if not taken:
                        children.append((1, "win"))
                    else:
                        children.append((2, self.at(codes_index - code * place, front, ATTACKER)))
                    continue
                children.append((1, self.at(codes_index + place, king, DEFENDER)))
                if code == 1 and beyond != king:            # the double step: code 1 to 3
                    children.append((1, self.at(codes_index + 2 * place, king, DEFENDER)))
            if attacker_passes and pushes:
                children.append((1, index + 1))
            return ("moves", children) if children else ("held", [])
        in_check = self.in_check(index)
        for to in chess.scan_forward(_king_moves(king) & ~attacks):
            taken = pawns.get(to)
            after = codes_index if taken is None else codes_index - codes[taken] * CODES ** taken
            children.append((1, self.at(after, to, ATTACKER)))
        if defender_passes and not in_check and children:
            children.append((1, index - 1))
        if not children:
            return ("mate", []) if in_check else ("held", [])
        return "moves", children


@functools.cache
def library(colour, files, variant, *, confined=None, refuge=0):
    """``[plies or None]`` per instance of the chunk of ``colour``'s pawns on ``files`` (a
    tuple) in ``variant`` (a key of :data:`PASSES`): the plies to the attacker's win, counted
    from the instance (0 for a mate), or ``None`` where the defender holds (and for the
    impossible instances, the king on a pawn).

    Two rules for the defender's king, each a set of squares (a 64-bit mask), for level 9
    (``host.chunker.schemas.zugzwang``): ``confined``, the king must move every turn it has and
    keep to these squares — with no such move it loses, as if mated (an instance with the king
    elsewhere is held: no game of the rule starts there); ``refuge``, the defender holds as soon
    as its king stands on one of these squares, unless the attacker then promotes safely at
    once (so a win lets it step there only to be outrun), and where every move it has, not in
    check, steps there (on the board none of them may be legal: a stalemate)."""
    played, parents, promotes, checked = _graph(colour, files, variant)     # its passes are moves of the game
    return _RuledGame(played, parents, promotes, checked, confined, refuge).layer()


#: How many tempo libraries a process keeps (a refuge takes in the other side's pawns' paths):
#: level 9 asks 428 of the paper's domain (404 refuges, 24 regions), each solved in about 0.4 s
#: or read from the cache in a hundredth of that, each distinct value one tuple (about 0.35 MB).
TEMPO_LIBRARIES = 1024


@functools.lru_cache(maxsize=TEMPO_LIBRARIES)
def tempo_library(colour, files, *, confined=None, refuge=0):
    """``[(tempi, plies) or None]`` per instance of the chunk of ``colour``'s pawns on ``files``
    (``confined`` and ``refuge`` as in :func:`library`): its spare tempi, counted both ways
    (level 9's). ``tempi`` is the least count ``t`` of moves to spare elsewhere on the board with
    which the attacker wins: ``t`` > 0 passes the attacker may make, ``t`` < 0 passes the
    defender may (not in check, and with a move: a king with none may be stalemated on the
    board); ``-math.inf`` where it wins whatever the defender's passes. ``plies`` bounds the
    plies of such a win, which with more to spare wins no later. ``None`` where no count up to
    :data:`MOST_TEMPI` wins, and a count down to ``-MOST_TEMPI`` is the least asked. At 0 it is
    the ``AM`` library's win, at ``-math.inf`` the ``KCP`` library's, without end the ``PCP``
    library's (but for the rules' stalemates: here a defender with no move but a pass has
    none, and an attacker may pass with its pawns stuck: the move is made elsewhere). Solved
    once and kept in the cache (:func:`tempo_path`), then read."""
    path = tempo_path(colour, files, confined, refuge)
    if path.exists():
        from sim.verilator import mark_used
        mark_used(path)                             # its last use, which the cache's pruning goes by
        return _read_tempi(path)
    _write_tempi(path, _solve_tempi(colour, files, confined, refuge))
    return _read_tempi(path)                        # as every later process has it: each value one tuple


def tempo_path(colour, files, confined=None, refuge=0):
    """Where the cache keeps a tempo library: by a hash of this module's source (which solves
    it) and the library's arguments, so a change of either solves it again."""
    digest = hashlib.sha256(_source_key().encode())
    digest.update(repr((bool(colour), tuple(files), confined, refuge)).encode())
    return _cache_dir() / f"tempi-{digest.hexdigest()[:16]}.npz"


@functools.cache
def _source_key():
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


#: A tempo library on disk (``numpy.savez``): ``values``, its distinct values, each an int16
#: ``(tempi, plies)`` (:data:`NEVER` as ``(0, _NO_PLIES)``, tempi without end, ``-math.inf``, as
#: ``_ANY_TEMPI``), and ``at``, each instance's value as an index into them.
_NO_PLIES, _ANY_TEMPI = -1, numpy.iinfo(numpy.int16).min


def _write_tempi(path, value):
    at = {}                                         # each distinct value: its index
    for entry in value:
        at.setdefault(entry, len(at))
    rows = [(0, _NO_PLIES) if entry is NEVER else (_ANY_TEMPI if entry[0] == -math.inf else entry[0], entry[1])
            for entry in at]
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as file:    # whole, or not at all
        numpy.savez(file, values=numpy.array(rows, dtype=numpy.int16),
                    at=numpy.array([at[entry] for entry in value], dtype=numpy.uint16))
    os.replace(file.name, path)


def _read_tempi(path):
    """A tempo library from :func:`_write_tempi`'s file, each distinct value one tuple."""
    with numpy.load(path) as stored:
        values = [NEVER if plies == _NO_PLIES else (-math.inf if tempi == _ANY_TEMPI else tempi, plies)
                  for tempi, plies in stored["values"].tolist()]
        return [values[index] for index in stored["at"].tolist()]


def _solve_tempi(colour, files, confined, refuge):
    """:func:`tempo_library`'s values, solved."""
    played, parents, promotes, checked = _graph(colour, files, "AM")
    game = _RuledGame(played, parents, promotes, checked, confined, refuge)
    unlimited = game.layer(defender_to=_RuledGame.AT_WILL)
    value = [NEVER if distance is None else (-math.inf, distance) for distance in unlimited]
    game.settle(unlimited)
    at = {0: game.layer()}                          # per count: its distances
    for tempi in range(1, MOST_TEMPI + 1):         # more to spare: more wins
        at[tempi] = game.layer(attacker_to=at[tempi - 1])
        if game.same_wins(at[tempi], at[tempi - 1]):
            del at[tempi]
            break
    for tempi in range(-1, -MOST_TEMPI - 1, -1):    # the defender's passes: fewer wins
        if game.same_wins(at[tempi + 1], unlimited):
            break
        at[tempi] = game.layer(defender_to=at[tempi + 1])
    least_first = sorted(at.items())
    for index in game.rest:
        value[index] = next(((tempi, distances[index]) for tempi, distances in least_first
                             if distances[index] is not None), NEVER)
    return value


#: The most passes counted either way in :func:`tempo_library` (three pawns have at most 15 moves).
MOST_TEMPI = 16


class _RuledGame:
    """A chunk's game (``played``: ``Chunk.moves`` of each instance, a variant's passes among
    them) under level 9's rules (``confined``, ``refuge``: :func:`library`), solved by
    :meth:`layer`, one retrograde pass (Dijkstra's: the attacker takes its move settled first,
    the defender waits for all of its moves and takes their greatest), beside no count of
    passes (the libraries) or beside one (the tempo library, over the ``AM`` game), where a pass
    reaches the same instance with the other side to move in the count one nearer 0, already
    solved. For the tempo library the wins at every count (those against passes at will) are
    solved first and settled (:meth:`settle`): they keep the plies of that win (the same strategy
    wins with fewer passes, no later), and each later count visits only the rest."""

    #: :meth:`layer`'s ``defender_to`` for a defender that passes at will (the same count).
    AT_WILL = "at will"

    def __init__(self, played, parents, promotes, checked, confined, refuge):
        size = len(played)
        self.parents, self.promotes, self.checked = parents, promotes, checked
        self.kinds = [None] * size          # per instance: its kind under the rules, or None (no game)
        self.moves = [0] * size             # how many moves the rules allow it
        for index, ruled in enumerate(_ruled(played, checked, confined, refuge)):
            if ruled is not None:
                self.kinds[index], self.moves[index] = ruled[0], len(ruled[1])
        self.settled = [None] * size        # the wins at every count, once known: their plies
        self.rest = [index for index in range(size) if self.kinds[index] is not None]
        self.first = {}                     # per instance of the rest: (plies, count) of its settled moves

    def settle(self, distances):
        """Take the wins of ``distances`` (those at every count) as known: each later layer
        starts from them and visits only the rest."""
        self.settled = distances
        self.rest = [index for index in self.rest if distances[index] is None]
        self.first = dict.fromkeys(self.rest, (0, 0))
        for index, distance in enumerate(distances):
            if distance is None:
                continue
            for parent, plies in self.parents[index]:
                if parent in self.first and self.kinds[parent] == "moves":
                    best, count = self.first[parent]
                    if parent % 2 == ATTACKER:
                        best = distance + plies if not count else min(best, distance + plies)
                    else:
                        best = max(best, distance + plies)
                    self.first[parent] = best, count + 1

    def same_wins(self, one, other):
        """Whether two layers' distances win the same instances of the rest."""
        return all((one[index] is None) == (other[index] is None) for index in self.rest)

    def layer(self, attacker_to=None, defender_to=None):
        """The plies of the attacker's fastest win of each instance beside a count of passes
        to spare, or ``None``: ``attacker_to`` the distances of the count the attacker's pass
        leaves (``None``: it may not pass), ``defender_to`` those the defender's pass leaves
        (or :data:`AT_WILL`)."""
        kinds, moves, checked = self.kinds, self.moves, self.checked
        distance = list(self.settled)
        remaining, latest, frontier = {}, {}, {}
        at_will = defender_to is self.AT_WILL
        for index in self.rest:
            kind = kinds[index]
            if kind == "mate":
                frontier.setdefault(0, []).append(index)
                continue
            best, known = self.first.get(index, (0, 0))
            if index % 2 == ATTACKER:
                if self.promotes[index]:
                    frontier.setdefault(1, []).append(index)
                if known and kind == "moves":
                    frontier.setdefault(best, []).append(index)
                if attacker_to is not None and kind != "refuge" and attacker_to[index + 1] is not None:
                    frontier.setdefault(attacker_to[index + 1] + 1, []).append(index)
            elif kind == "moves":
                remaining[index], latest[index] = moves[index] - known, best
                if defender_to is not None and not checked[index]:     # its pass must lose too
                    if at_will:
                        remaining[index] += 1
                    elif defender_to[index - 1] is None:
                        remaining[index] += 1       # a move that never loses: never settles
                    else:
                        latest[index] = max(best, defender_to[index - 1] + 1)
                if not remaining[index]:
                    frontier.setdefault(latest[index], []).append(index)
            # a defender "held" never settles: no count of its moves is kept, nothing enters the frontier
        while frontier:
            plies = min(frontier)
            for index in frontier.pop(plies):
                if distance[index] is not None:
                    continue
                distance[index] = plies
                edges = self.parents[index]
                if at_will and index % 2 == ATTACKER and index + 1 in remaining and not checked[index + 1]:
                    edges = edges + [(index + 1, 1)]
                for parent, step in edges:
                    if distance[parent] is not None or kinds[parent] != "moves":
                        continue
                    if parent % 2 == ATTACKER:
                        frontier.setdefault(plies + step, []).append(parent)
                    elif parent in remaining:
                        remaining[parent] -= 1
                        latest[parent] = max(latest[parent], plies + step)
                        if remaining[parent] == 0:
                            frontier.setdefault(latest[parent], []).append(parent)
        return distance


@functools.cache
def _graph(colour, files, variant):
    """The chunk's game in ``variant``, made once for the libraries of every rule (level 9 asks
    for many refuges): ``Chunk.moves`` of every instance, and each instance's parents as
    ``(parent, plies)``, whether each promotes safely, and whether each has the king in check."""
    chunk, (attacker_passes, defender_passes) = Chunk(colour, files), PASSES[variant]
    played = [chunk.moves(index, attacker_passes, defender_passes) for index in range(chunk.size)]
    parents = [[] for _ in range(chunk.size)]
    promotes = [False] * chunk.size
    checked = [chunk.in_check(index) for index in range(chunk.size)]
    for index, (kind, children) in enumerate(played):
        if kind == "moves":
            for plies, child in children:
                if child == "win":
                    promotes[index] = True
                else:
                    parents[child].append((index, plies))
    if any(promotes[DEFENDER::2]):
        raise AssertionError("the defender never promotes")
    return played, parents, promotes, checked


def _ruled(played, checked, confined, refuge):
    """Per instance of a chunk's game (``played``: ``Chunk.moves`` of each) ``(kind, children)``
    under level 9's rules (``confined``, ``refuge``: :func:`library`), or ``None`` where no game
    of the rules stands (the king outside ``confined``, or in the ``refuge`` with the defender to
    move, or on a pawn). ``kind`` is ``Chunk.moves``'s, or ``"refuge"``: the defender's king in
    the refuge, where only a safe promotion at once (the children left) still wins."""
    ruled = [None] * len(played)
    for index, (kind, children) in enumerate(played):
        king, turn = index // 2 % 64, index % 2
        if kind == "invalid" or confined is not None and not confined >> king & 1 or \
                refuge >> king & 1 and turn == DEFENDER:
            continue
        if refuge >> king & 1:
            children = [(plies, child) for plies, child in children if child == "win"]
            kind = "refuge"
        elif confined is not None and turn == DEFENDER:
            children = [(plies, child) for plies, child in children if confined >> child // 2 % 64 & 1]
            kind = kind if children else "mate"
        elif refuge and turn == DEFENDER and kind == "moves" and not checked[index] and \
                all(refuge >> child // 2 % 64 & 1 for _, child in children):
            kind = "held"       # every move steps into the refuge, where the board may allow none
        ruled[index] = kind, children
    return ruled

