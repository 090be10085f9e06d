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
attacker to move again with the pawn gone, as in the domain. The *tempo* library counts, in
``PCP``, the fewest passes with which the pawns win (the moves their side must spend elsewhere;
level 9's spare tempi). Each library is ``7 ** n * 64 * 2`` values (``n`` the chunk's pawns),
built in pure Python in a second or so and kept per process.
"""

import functools

import chess

from .domain import CODES, Domain

__all__ = ["PASSES", "Chunk", "library", "tempo_library", "NEVER"]

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
    return [None if value is None else value[1]
            for value in _retrograde(colour, files, variant, confined, refuge, counted=False)]


@functools.lru_cache(maxsize=256)    # a refuge takes in the other side's pawns' paths: many refuges in a game
def tempo_library(colour, files, *, confined=None, refuge=0):
    """``[(passes, plies) or None]`` per instance of the chunk of ``colour``'s pawns on ``files``
    in ``PCP`` (the pawns' side may pass; ``confined`` and ``refuge`` as in :func:`library`):
    ``passes``, the fewest passes with which the attacker wins (its *tempi*: the moves it must
    spend elsewhere on the board), and ``plies``, a bound on the plies of a win that passes no
    more often; ``None`` where the defender holds however often the attacker passes. With no
    pass to spend (``passes`` 0) it is the ``AM`` library's win; with any number, ``PCP``'s."""
    return _retrograde(colour, files, "PCP", confined, refuge, counted=True)


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


def _retrograde(colour, files, variant, confined, refuge, counted):
    """The retrograde pass of :func:`library` and :func:`tempo_library`: per instance ``(passes,
    plies)`` or ``None``, settled in increasing order (Dijkstra's over a game: the attacker takes
    its child settled first, the defender waits for all of its children and takes their
    greatest). ``counted``: an attacker's pass costs a pass, and a position's value is the
    fewest passes first (the defender's is its children's greatest passes and greatest plies:
    a bound on both, which only grows towards the root); else every value's passes are 0. An
    instance the rules leave out (the king outside ``confined``, or in the ``refuge`` with the
    defender to move) never settles, so no move leads through it."""
    played, parents, promotes, checked = _graph(colour, files, variant)
    size = len(played)
    value = [NEVER] * size
    remaining = [0] * size
    live = [False] * size           # whether the instance's moves other than a promotion count
    frontier = {}
    for index in range(size):
        king, turn = index // 2 % 64, index % 2
        if confined is not None and not confined >> king & 1 or refuge >> king & 1 and turn == DEFENDER:
            continue
        kind, children = played[index]
        if refuge >> king & 1:                      # only a safe promotion at once still wins
            children = [(plies, child) for plies, child in children if child == "win"]
            kind = "moves" if children else "held"
        elif confined is not None and turn == DEFENDER:
            children = [(plies, child) for plies, child in children if confined >> child // 2 % 64 & 1]
            kind = kind if children or kind == "invalid" else "mate"
        elif refuge and turn == DEFENDER and kind == "moves" and not checked[index] and \
                all(refuge >> child // 2 % 64 & 1 for _, child in children):
            kind = "held"       # every move steps into the refuge, where the board may allow none
        if kind == "mate":
            frontier.setdefault((0, 0), []).append(index)
        if kind != "moves":
            continue
        if promotes[index]:
            frontier.setdefault((0, 1), []).append(index)
        live[index] = not refuge >> king & 1
        remaining[index] = len(children)
    settled = [False] * size
    latest = [(0, 0)] * size
    while frontier:
        key = min(frontier)
        passes, distance = key
        for index in frontier.pop(key):
            if settled[index]:
                continue
            settled[index] = True
            value[index] = key
            for parent, plies in parents[index]:
                if settled[parent] or not live[parent]:
                    continue
                if parent % 2 == ATTACKER:          # the attacker takes the first win
                    passed = counted and index == parent + 1
                    frontier.setdefault((passes + passed, distance + plies), []).append(parent)
                else:                               # the defender only when every move loses
                    remaining[parent] -= 1
                    most = latest[parent]
                    latest[parent] = max(most[0], passes), max(most[1], distance + plies)
                    if remaining[parent] == 0:
                        frontier.setdefault(latest[parent], []).append(parent)
    return value
