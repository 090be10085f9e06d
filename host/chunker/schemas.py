"""CHUNKER's reasoning schemas: a position's result from its chunks' library values, without search.

Each schema is a sufficient condition, proved below from the libraries' meaning (host/chunker/
chunks.py), and checked against the exact database on every position it classifies (tests and
``suprem chunker --check``). A schema answers a win (:class:`Wins`: the winner and how many of
its moves its strategy needs at most), ``DRAWN``, a bound (:class:`Holds`: one side does not
lose) or ``None`` (it cannot tell).
"""

import contextlib
import contextvars
import functools
import itertools
import math
from dataclasses import dataclass

import chess

from .chunks import ATTACKER, DEFENDER, Chunk, library, tempo_library, tempo_path
from .database import NotBuilt, build, database_path, open_database
from .domain import CODES, DRAW, INVALID, Domain, is_loss, is_win, plies

__all__ = ["DRAWN", "Wins", "Holds", "race", "supported", "alone", "outrun", "holds", "beside", "pair", "fewer",
           "zugzwang", "joint", "joint_games", "joint_games_open", "COSTLY", "SCHEMAS", "classify", "fastest",
           "agrees", "values", "libraries", "unbuilt", "prepare", "tempo_libraries",
           "unmade_tempo_libraries"]

DRAWN = "draw"


@dataclass(frozen=True)
class Wins:
    """A result: ``colour`` wins, its strategy promoting safely within ``moves`` of its own moves
    whatever the other side does (a bound on the exact distance, which may be shorter)."""

    colour: bool
    moves: int


@dataclass(frozen=True)
class Holds:
    """A bound, not a result: ``colour`` does not lose (it wins or the game is drawn)."""

    colour: bool


def values(result, turn):
    """The values (1 win, 0 draw, -1 loss, for the side ``turn`` to move) a schema's result allows."""
    if result == DRAWN:
        return {0}
    if isinstance(result, Holds):
        return {0, 1} if result.colour == turn else {-1, 0}
    return {1} if result.colour == turn else {-1}


def agrees(result, value, turn):
    """Whether a schema's ``result`` allows the exact database's ``value`` (a value byte, ``turn``
    to move): the same result, or one the bound allows, and a win no longer than its ``moves``."""
    if value == DRAW:
        return 0 in values(result, turn)
    if not values(result, turn) >= {1 if is_win(value) else -1}:
        return False
    return not isinstance(result, Wins) or (plies(value) + 1) // 2 <= result.moves


def _codes(domain, board, colour):
    """``(files, codes)`` of ``colour``'s pawns."""
    seen = _seen(domain, board)
    if seen is not None:
        return seen.codes[colour]
    return domain.white_files if colour == chess.WHITE else domain.black_files, domain.codes(board, colour)


def _present(files, codes):
    """Those of ``files`` with a pawn (its code not 0), a tuple."""
    return tuple(f for f, code in zip(files, codes) if code)


def _kings(domain, board):
    """The kings' squares, White's and Black's."""
    seen = _seen(domain, board)
    return seen.kings if seen is not None else (board.king(chess.WHITE), board.king(chess.BLACK))


def _seen(domain, board):
    """The :class:`_Seen` of ``board``, where :func:`classify` is asked of it, else ``None``."""
    seen = _SEEN.get()
    return seen if seen is not None and seen.board is board and seen.domain is domain else None


class _Seen:
    """What several schemas ask of the one position :func:`classify` is asked of, found once: each
    side's ``(files, codes)`` (:func:`_codes`) and files with a pawn (``present``), the ``kings``'
    squares (White's, Black's) and, as they are found, levels 5 to 7's verdicts on the games
    they keep (``held``, by side and keeping: level 6 asks level 5's game again, level 7 both)
    and level 9's tempo battles (``battles``, :func:`_tempo_battles`). The position is not
    changed while it is classified."""

    __slots__ = ("domain", "board", "codes", "kings", "present", "held", "battles")

    def __init__(self, domain, board):
        self.domain, self.board, self.held, self.battles = domain, board, {}, None
        self.codes = {colour: _codes(domain, board, colour) for colour in chess.COLORS}
        self.kings = board.king(chess.WHITE), board.king(chess.BLACK)
        self.present = {colour: _present(*self.codes[colour]) for colour in chess.COLORS}


#: Within :func:`classify`: the position's :class:`_Seen`.
_SEEN = contextvars.ContextVar("chunker_seen", default=None)


def fastest(codes):
    """The fewest moves any of these pawns needs to promote unopposed (``None`` with no pawn)."""
    steps = [7 - code - (code == 1) for code in codes if code]
    return min(steps) if steps else None


def _squares(colour, files, codes, beside=False, here=False):
    """The squares on the ranks ahead of ``colour``'s pawns (and their own ranks too with
    ``here``): on their own files (where they will stand), or with ``beside`` on the files
    beside them (where they will attack)."""
    return _squares_of(colour, tuple(files), tuple(codes), beside, here)


@functools.lru_cache(maxsize=8192)      # asked of every position by several schemas
def _squares_of(colour, files, codes, beside, here):
    bb = 0
    for file, code in zip(files, codes):
        if not code:
            continue
        rank = chess.square_rank(Domain.pawn_square(colour, file, code))
        ranks = range(rank + (not here), 8) if colour == chess.WHITE else range(rank + here)
        for f in (file - 1, file + 1) if beside else (file,):
            if 0 <= f < 8:
                for r in ranks:
                    bb |= chess.BB_SQUARES[chess.square(f, r)]
    return bb


def race(domain, board):
    """Level 1: one side's pawns outrun the other's, its king standing still.

    ``colour`` wins if its pawns promote, against the other king alone, within the moves the
    other side's pawns need at the least: the chunk's ``KCP`` distance (the defender may pass)
    counts ``colour``'s moves ``W``, the other side's fastest unopposed pawn its moves ``R``, and
    ``W <= R`` with ``colour`` to move (``W < R`` with the other side to move). Sound when
    ``colour``'s king stands off its pawns' paths and off every square the other pawns will ever
    attack: then ``colour`` only pushes pawns (the library's moves, no pass needed), its king is
    never checked and never blocks; the real defender has the library's king moves or fewer (it
    may not stand next to the other king nor take a pawn that king defends), and whatever else it
    does is a pass the library allows or a pawn move that cannot promote before move ``R``; more
    defenders only make a promotion safer. One case the argument leaves open: the other side
    stalemated before move ``R`` (its pawns blocked, its king boxed in by ``colour``'s king, which
    the library does not see) — level 4 rules it out by a rule of its own; here it is checked,
    not proved: no disagreement on every position of three small domains and on 10^6 of this one
    (BENCHMARKS.md)."""
    kings = _kings(domain, board)
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        other_files, other_codes = _codes(domain, board, not colour)
        king = kings[colour == chess.BLACK]
        if chess.BB_SQUARES[king] & (_squares(colour, files, codes)
                                     | _squares(not colour, other_files, other_codes, beside=True)):
            continue
        moves = _racing_moves(board, kings[colour == chess.WHITE], colour, files, codes)
        others = fastest(other_codes)
        if moves is not None and (others is None or moves <= others - (board.turn != colour)):
            return Wins(colour, moves)
    return None


def _racing_moves(board, other_king, colour, files, codes):
    """The moves ``colour``'s pawns need to promote against the other king (on ``other_king``) in
    the chunk's ``KCP`` library (the defender may pass), or ``None`` where that king holds them."""
    turn = ATTACKER if board.turn == colour else DEFENDER
    chunk = _chunk(colour, tuple(files))
    distance = library(colour, tuple(files), "KCP")[chunk.index(codes, other_king, turn)]
    return None if distance is None else (distance + 1) // 2


@functools.cache
def _chunk(colour, files):
    """The :class:`Chunk` of ``colour``'s pawns on ``files`` (a tuple): made once."""
    return Chunk(colour, files)


@functools.cache
def _library_domain(domain, attacker, **rules):
    """The domain of ``attacker``'s king and pawns against the other king alone, with the rules
    ``rules`` (``Domain``'s defender_*): made once, asked at every node."""
    files = domain.white_files if attacker == chess.WHITE else domain.black_files
    return Domain(files, (), **rules) if attacker == chess.WHITE else Domain((), files, **rules)


def supported(domain, board):
    """Level 2: one side's king and pawns (the paper's K3CPPvK) win against the other king,
    within the moves the other side's pawns need at the least, the king keeping to its area.

    The library is the exact database of ``colour``'s king and pawns against the other king
    alone, which may pass whenever it is not in check and has a move (its pawns' moves elsewhere)
    and otherwise may be stalemated (a draw), and of each won state the *king area*: the squares
    ``colour``'s king stands on in one winning strategy, over every defence. ``colour`` wins if
    the library wins in ``W`` of its moves with ``W <= R`` (``colour`` to move; ``W < R`` with
    the other side to move), ``R`` the other side's fastest unopposed pawn, and no square of the
    area is one the other side's pawns stand on or attack now or after any move of theirs.
    Sound: the strategy's king never meets those pawns (never in check, never stopped by one),
    the real defender's king has the library's moves or fewer, its other moves are passes, and
    no pawn of it promotes before move ``R``."""
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        if not any(codes):
            continue
        other_files, other_codes = _codes(domain, board, not colour)
        alone = _library_domain(domain, colour, defender_passes=True)
        db = open_database(alone, quiet=True)
        index = alone.index_of(codes, board.turn, *_kings(domain, board))  # (the other side's pawns taken off)
        value = db.value_at(index)
        if value == DRAW or value == INVALID or is_win(value) != (board.turn == colour):
            continue
        moves = (plies(value) + 1) // 2
        others = fastest(other_codes)
        if others is not None and moves > others - (board.turn != colour):
            continue
        if db.area_at(index) & (_squares(not colour, other_files, other_codes, here=True)
                                | _squares(not colour, other_files, other_codes, beside=True)):
            continue
        return Wins(colour, moves)
    return None


def alone(domain, board):
    """Level 3: one side's pawns are all gone — the library of the other side's king and pawns
    against the bare king (the paper's K3CPPvK) gives the result exactly, draws included.

    That library is the exact database of the domain with the one side's files only (no
    passing: the bare king has nothing else to move), and such a position is one of its own."""
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        _, other_codes = _codes(domain, board, not colour)
        if any(other_codes) or not any(codes):
            continue
        value = open_database(_library_domain(domain, colour), quiet=True).value(board)
        if value == DRAW:
            return DRAWN
        return Wins(board.turn if is_win(value) else not board.turn, (plies(value) + 1) // 2)
    return None


def outrun(domain, board):
    """Level 4: one side's pawns outrun the other side's king, its own king standing still in the
    way of the other side's king and pawns.

    As level 1, ``colour``'s pawns against the other king in the chunk's ``KCP`` library (the
    defender may pass) promote in ``W`` of ``colour``'s moves; but the other side's time is not its
    fastest pawn's unopposed run: it is ``R``, the fewest moves in which its king and pawns, against
    ``colour``'s king frozen where it stands, promote, check that king or come to move with no
    pawn move and no king move off the files ``colour``'s pawns attack or stand on (the exact
    database of that one-player game; never, where the frozen king stops them for good).
    ``colour`` wins if ``W <= R`` (``colour`` to move; ``W < R`` with the other side to move) and
    its king, not in check, stands off its own pawns' paths. Sound: ``colour`` only pushes pawns
    (the library's moves), so its king stands still; every sequence of the other side's moves is
    a line of the one-player game, so before ``colour`` promotes the other side neither promotes
    nor checks that king, and it always has a move (a pawn move, or a king move to a square
    ``colour``'s pawns can neither attack nor hold: never stalemated); the real defender's king
    has the library's moves or fewer, and its other moves are passes the library allows."""
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        if not any(codes) or board.turn == colour and board.is_check():
            continue
        kings = _kings(domain, board)
        if chess.BB_SQUARES[kings[colour == chess.BLACK]] & _squares(colour, files, codes):
            continue
        moves = _racing_moves(board, kings[colour == chess.WHITE], colour, files, codes)
        if moves is None:
            continue
        frozen = _frozen_domain(domain, colour, _present(files, codes))
        other_codes = _codes(domain, board, not colour)[1]       # (colour's pawns taken off, the other side to move)
        value = open_database(frozen, quiet=True).value_at(frozen.index_of(other_codes, not colour, *kings))
        if value == DRAW or moves <= (plies(value) + 1) // 2 - (board.turn != colour):
            return Wins(colour, moves)
    return None


@functools.cache
def _frozen_domain(domain, colour, present):
    """Level 4's one-player game: the other side's king and pawns against ``colour``'s king frozen,
    ``colour``'s pawns on the files ``present`` denying squares on those files and beside them."""
    reach = tuple(sorted({f for file in present for f in (file - 1, file, file + 1) if 0 <= f < 8}))
    return _library_domain(domain, not colour, defender_frozen=True, defender_reach=reach)


def holds(domain, board):
    """Level 5: a king that holds the other side's king and pawns on its own, its pawns left out,
    does not lose; where both kings do, the game is drawn.

    The library is the exact database of the other side's king and pawns against ``colour``'s king,
    which may not stand on the files of ``colour``'s pawns and passes only when its king has no
    move and it is not in check; ``colour`` does not lose if that database gives the other side no
    win. Sound: ``colour`` plays the library's strategy, which is legal on the board (its king
    keeps off its pawns, there now or later, and its pass is a pawn move, or a stalemate — a
    draw — where it has none); every move of the other side is one of the library's (its king
    has the library's moves or fewer: ``colour``'s pawns only take squares from it); so the other
    side never promotes safely, and ``colour``'s own pawns can only win it the game. A side whose
    opponent has no pawns does not lose either."""
    return _drawn_or_held(domain, board, functools.partial(_holds_keeping, 0))


def _drawn_or_held(domain, board, test):
    """``DRAWN`` where ``test(domain, board, colour)`` (a side holds) is true of both sides,
    ``Holds`` where of one, else ``None``; a side whose opponent has no pawns holds."""
    holding = [colour for colour in (chess.WHITE, chess.BLACK)
               if not any(_codes(domain, board, not colour)[1]) or test(domain, board, colour)]
    if len(holding) == 2:
        return DRAWN
    return Holds(holding[0]) if holding else None


def _holds_with(domain, board, kings, colour, codes, other, kept, left_out):
    """Whether ``colour`` (its pawns' ``codes``; the other side's ``other``; the ``kings``' squares,
    White's and Black's) does not lose the game of its king and its pawns on the files ``kept``
    against the other side's king and pawns, its king barred from the files ``left_out`` and
    passing only when it has no move at all (the exact database of that game)."""
    value = _kept_value(_holding_domain(domain, colour, kept, left_out), domain, board.turn, kings, colour, codes,
                        other, kept, left_out)
    return value is not None and (value == DRAW or is_win(value) == (board.turn == colour))


def _kept_value(game, domain, turn, kings, colour, codes, other, kept, left_out):
    """The value in ``game``, a game of levels 5 to 8, of a position (``turn`` to move, the
    ``kings`` on their squares, White's and Black's): ``colour``'s king and its pawns on the files
    ``kept`` (its pawns' ``codes`` on ``domain``'s files) against the other side's king and pawns
    (``other``), the pawns on the files ``left_out`` taken off; ``None`` where ``colour``'s king
    stands on one of those files (barred there) or the position is not one of ``game``'s."""
    if _files_mask(left_out) >> kings[colour == chess.BLACK] & 1:
        return None
    files = domain.white_files if colour == chess.WHITE else domain.black_files
    own = [code for file, code in zip(files, codes) if file in kept]
    index = game.index_of(own + other if colour == chess.WHITE else other + own, turn, *kings)
    value = open_database(game, quiet=True).value_at(index)
    return None if value == INVALID else value


@functools.cache
def _files_mask(files):
    """The squares of ``files`` as a bitboard."""
    return sum(chess.BB_FILES[f] for f in files)


@functools.cache
def _holding_domain(domain, colour, kept, left_out):
    """The game of levels 5 to 7: ``colour``'s king and its pawns on the files ``kept`` against the
    other side's king and pawns, waiting, its king barred from the files ``left_out``."""
    if kept:
        return _kept_domain(domain, colour, kept, defender_colour=colour, defender_waits=True,
                            defender_barred=left_out)
    return _library_domain(domain, not colour, defender_waits=True, defender_barred=left_out)


def _kept_domain(domain, colour, kept, **rules):
    """The domain of ``colour``'s pawns on the files ``kept`` against all of the other side's, with
    the defender's ``rules``."""
    return _sub_domain(*((kept, domain.black_files) if colour == chess.WHITE else (domain.white_files, kept)),
                       **rules)


@functools.cache
def _sub_domain(white_files, black_files, **rules):
    return Domain(white_files, black_files, **rules)


def beside(domain, board):
    """Level 6: a king that holds the other side's king and pawns with one of its own pawns beside
    it, its other pawns left out, does not lose; where both sides hold so (or as level 5 has them
    hold on their own), the game is drawn.

    For each of ``colour``'s pawns: the exact database of the game of ``colour``'s king and that
    pawn against the other side's king and pawns, ``colour``'s king barred from the files of its
    other pawns and passing only when it has no move at all (king's or pawn's). ``colour`` does not
    lose if, for one of its pawns, that database gives the other side no win. Sound: ``colour``
    plays that game's strategy, which is legal on the board (its king keeps off its other pawns'
    files; its pass is one of those pawns' moves, or a stalemate — a draw — where none has one);
    every move of the other side is one of that game's (its king's captures of the pawns left out
    are king moves there, the squares those pawns deny it are moves fewer; being stalemated or
    mated on the board is no loss for ``colour``); the pawns left out never block the kept pawn
    nor the other side's, and a promotion of one is safe — ``colour`` wins — or taken at once by
    the other king, a king move of that game after the pass. Level 5 is the case of no pawn kept;
    this level asks it too."""
    return _drawn_or_held(domain, board, functools.partial(_holds_keeping, 1))


def pair(domain, board):
    """Level 7: level 6 with two of a side's pawns kept beside its king, its third left out (the
    same proof: nothing in it counts the pawns kept). A side with two pawns or fewer keeps them
    all, and its test is then the game itself but for the pass, which only a stalemate — a draw —
    gives on the board; so a drawn position of two pawns a side or fewer is decided here unless
    its draw rests on a stalemate. Each library has five pawns' files, 7^5 x 8,192 = 137.7 M
    indices (about a minute to build on a loaded 2-core machine, 15-17 MB stored). Levels 5 and 6
    are asked too, so that each side may hold by its own kind."""
    return _drawn_or_held(domain, board, functools.partial(_holds_keeping, 2))


def fewer(domain, board):
    """Level 8: a side that wins with one or two of its pawns left out, never moving them, wins.

    For each way of keeping some of ``colour``'s pawns (at most two, at least one left out), the
    exact database of the game of ``colour``'s king and the kept pawns against the other side's
    king and pawns, ``colour``'s king barred from the files of the pawns left out, never passing,
    and the other side, to move not in check with no pawn move and no king move off the files of
    those pawns and the files beside them, stalemated. ``colour`` wins if one of those databases
    gives it the win (within its moves). Sound: ``colour`` plays that game's strategy, which is
    legal on the board (its king keeps off the pawns left out, which never move); every move of
    the other side is one of that game's (its pawns are all there; its king has that game's moves
    or fewer — the pawns left out only deny it squares, and taking one is a king move onto a
    square of that game); a check by a kept pawn is the same check, and a king that game lets
    escape which has no move on the board is mated, a win too; a promotion safe in that game is
    safe on the board; and the one board position that game would play on where the board has no
    move, a stalemate, is one where the other side's king can only step onto those files, which
    that game counts a draw. This is how tempo battles end: the side whose king holds the other's
    pawns often wins without the tempi of one of its own (CH.041's winner is so decided at ply 3
    of its 28-ply line)."""
    kings = _kings(domain, board)
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        other = _codes(domain, board, not colour)[1]
        if not any(other):
            continue
        for kept, left_out in _leavings(_present(files, codes)):
            value = _kept_value(_leaving_domain(domain, colour, kept, left_out), domain, board.turn, kings, colour,
                                codes, other, kept, left_out)
            if value not in (None, DRAW) and is_win(value) == (board.turn == colour):
                return Wins(colour, (plies(value) + 1) // 2)
    return None


@functools.cache
def _leavings(present):
    """``(kept, left_out)``: each way level 8 keeps one or two of the pawns on the files
    ``present`` and leaves at least one out."""
    return tuple((kept, left_out) for kept, left_out in _keepings(present, min(2, len(present) - 1)) if kept)


@functools.cache
def _leaving_domain(domain, colour, kept, left_out):
    """The game of level 8: ``colour``'s king and its pawns on the files ``kept`` against the other
    side's king and pawns, never passing, its king barred from the files ``left_out``; the other
    side stalemated where its king can only step onto those files and the files beside them."""
    reach = tuple(sorted({f for file in left_out for f in (file - 1, file, file + 1) if 0 <= f < 8}))
    return _kept_domain(domain, colour, kept, defender_colour=colour, defender_barred=left_out, defender_reach=reach)


def _holds_keeping(most, domain, board, colour):
    """Whether ``colour``'s king holds the other side keeping at most ``most`` of its pawns beside
    it, any of them, the rest left out (levels 5 to 7; within :func:`classify` each game is asked
    once, whichever level asks it first)."""
    files, codes = _codes(domain, board, colour)
    other = _codes(domain, board, not colour)[1]
    seen = _seen(domain, board)
    present, held = (seen.present[colour], seen.held) if seen is not None else (_present(files, codes), {})
    kings = _kings(domain, board)
    for kept, left_out in _keepings(present, most):
        key = colour, kept
        if key not in held:
            held[key] = _holds_with(domain, board, kings, colour, codes, other, kept, left_out)
        if held[key]:
            return True
    return False


@functools.cache
def _keepings(present, most):
    """``(kept, left_out)``: each way of keeping at most ``most`` of the pawns on the files
    ``present``, the rest left out."""
    return tuple((kept, tuple(f for f in present if f not in kept))
                 for size in range(min(most, len(present)) + 1) for kept in itertools.combinations(present, size))


def zugzwang(domain, board):
    """Level 9: a king holds the other side's pawns, and the other king, tied in front of the first
    side's pawns, must give way — the paper's spare tempi, counted both ways.

    Two chunk games (``host/chunker/chunks.py``), for a region ``R`` — the files spanning the other
    side's files (none of ``colour``'s), or one more beside them, from the other side's promotion
    rank back some ranks or to its first — and ``Z``: ``R``, the squares next to it and the squares
    the other side's pawns stand on or will (their files ahead of them). Each is played beside a
    count ``t`` of passes to spare (``tempo_library``: ``t`` > 0 the attacker's, ``t`` < 0 the
    defender's), a pass being a move made in the other game. *Running*: ``colour``'s pawns
    against the other king, which holds as soon as it stands in ``Z`` unless ``colour`` then
    promotes safely at once (``Z`` the ``refuge``); ``r``, the least count with which ``colour``
    wins, and the plies of such a win. *Holding*: the other side's pawns against ``colour``'s
    king, which must move each turn it has and keep to ``R``, losing where it has no move there
    (``confined`` to ``R``); ``h``, the least count with which the other side wins, or none.
    ``colour`` wins if its king stands in ``R`` and the other king outside ``Z``, and ``r`` <
    ``h`` (its turn in running is the board's, or the other side's when ``colour`` must answer a
    check first, holding then asked with ``colour`` to move, else with the other side to move).

    Sound: take a count ``t`` with ``r`` <= ``t`` < ``h``; ``colour`` plays running's winning
    strategy beside ``t`` and holding's holding strategy beside ``t`` (its passes the other
    side's if ``t`` > 0, ``colour``'s if ``t`` < 0), answering each move in the game it was made
    in. One side's pass in one game is its move in the other, seen there as the other side's
    pass: where running's strategy passes, ``colour``'s king moves in holding, after the other
    side "passed" there; where holding's does, a pawn moves in running, after the other king
    "passed" there. So each game is played within its count, ``t`` passes at most, the same
    ones. (With ``t`` 0 ``colour``'s king only answers pawn moves; a king with a move always to
    spare holds at every count; pawns that win whatever the other king does spare it every
    answer it wants.) Running's strategy lets the other king into ``Z`` only where ``colour``
    promotes safely at once, before any other move (the king's step checks no one, so that
    promotion is legal on the board too). Until then the kings never stand side by side, the
    other king never guards its pawns where they can be taken (in ``R``) nor stands on or in
    front of one, and ``colour``'s king, kept to ``R``, never blocks its own pawns; so each
    side's moves on the board are those games' or fewer, and the other side's pawns never
    promote safely. The games count a king without a move as beaten where that helps
    ``colour`` (holding, and no pass for it there) and as holding where it does not: running
    counts no stalemate a win, nor a king whose every move steps into ``Z``, not in check (the
    board may forbid each such step: next to ``colour``'s king, or onto one of its own pawns),
    and lets no king pass in check or without a move. ``colour``'s moves: running's, one for
    each pawn move the other side has left (each is answered by one), and one for a check
    answered first. (Where the other side has no pawns, level 3 is exact.)"""
    for colour, _, _, running, holding, extra in _tempo_battles(domain, board):
        tempi, distance = running
        if holding is None or holding[0] > tempi:
            return Wins(colour, (distance + 1) // 2 + extra)
    return None


def _tempo_battles(domain, board):
    """Level 9's games (:func:`zugzwang`) in its order: ``(colour, R, Z, running, holding,
    extra)`` for each side and region where ``colour``'s king stands in ``R`` and the other king
    outside ``Z``, running's pawns win with some count and holding's not whatever ``colour``
    spares: running's and holding's ``(tempi, plies)`` (holding's ``None`` where no count wins) and
    ``colour``'s moves beside running's (one for each pawn move the other side has left, one for a
    check answered first). Within :func:`classify`, found once (level 10 asks them again)."""
    seen = _seen(domain, board)
    if seen is None:
        return _find_tempo_battles(domain, board)
    if seen.battles is None:
        seen.battles = list(_find_tempo_battles(domain, board))
    return seen.battles


def _find_tempo_battles(domain, board):
    """:func:`_tempo_battles`, each found as it is asked (a generator)."""
    kings = _kings(domain, board)
    for colour in (chess.WHITE, chess.BLACK):
        files, codes = _codes(domain, board, colour)
        other_files, other_codes = _codes(domain, board, not colour)
        if not any(codes) or not any(other_codes):
            continue
        king, other_king = kings[colour == chess.BLACK], kings[colour == chess.WHITE]
        checked = board.turn == colour and board.is_check()
        held = _chunk(not colour, tuple(other_files)).index(other_codes, king, DEFENDER if checked else ATTACKER)
        mover = ATTACKER if board.turn == colour and not checked else DEFENDER
        run = _chunk(colour, tuple(files)).index(codes, other_king, mover)
        for region, refuge in _level_9_regions_with(files, other_files, not colour, tuple(other_codes), king):
            if refuge >> other_king & 1:
                continue
            holding = tempo_library(not colour, tuple(other_files), confined=region)[held]
            if holding is not None and holding[0] == -math.inf:     # lost whatever colour spares
                continue
            running = tempo_library(colour, tuple(files), refuge=refuge)[run]
            if running is not None:
                yield colour, region, refuge, running, holding, sum(7 - code for code in other_codes if code) + checked


def _level_9_regions(files, other_files, other_colour, other_codes):
    """Level 9's ``(R, Z)`` for the side with pawns on ``files`` against the other side's on
    ``other_files`` at ``other_codes``."""
    paths = _squares(other_colour, other_files, other_codes, here=True)
    return _zugzwang_regions(tuple(files), tuple(other_files), other_colour, paths)


@functools.lru_cache(maxsize=65_536)    # asked of every position (2 sides x 7^3 codes x 64 squares)
def _level_9_regions_with(files, other_files, other_colour, other_codes, king):
    """Those of :func:`_level_9_regions` whose ``R`` holds the square ``king``."""
    return tuple((region, refuge) for region, refuge in _level_9_regions(files, other_files, other_colour, other_codes)
                 if region >> king & 1)


def tempo_libraries(domain):
    """Every tempo library level 9 may ask on positions of ``domain``, as ``(colour, files,
    rules)`` (``tempo_library(colour, files, **rules)``): holding's, confined to a region, and
    running's, with its refuge, for each set of the other side's pawns."""
    found = {}
    for colour in chess.COLORS:
        files = domain.white_files if colour == chess.WHITE else domain.black_files
        other_files = domain.black_files if colour == chess.WHITE else domain.white_files
        if not files or not other_files:
            continue
        for other_codes in itertools.product(range(CODES), repeat=len(other_files)):
            if not any(other_codes):
                continue
            for region, refuge in _level_9_regions(files, other_files, not colour, other_codes):
                found[not colour, tuple(other_files), "confined", region] = None
                found[colour, tuple(files), "refuge", refuge] = None
    return [(colour, files, {rule: mask}) for colour, files, rule, mask in found]


def unmade_tempo_libraries(domain, levels=None):
    """Those of :func:`tempo_libraries` the cache does not hold (none where ``levels`` leaves out
    level 9): what ``suprem chunker --prepare`` makes after the databases (0.4 s each)."""
    if levels is not None and 9 not in levels:
        return []
    return [(colour, files, rules) for colour, files, rules in tempo_libraries(domain)
            if not tempo_path(colour, files, **rules).exists()]


def joint(domain, board):
    """Level 10: level 9's two chunk games played as one — its ties broken.

    Where level 9's counts tie (running's pawns need as many moves to spare as holding's), no
    count tells who wins: it turns on *when* each side's one spare move comes. The joint game
    plays both chunks at once, as the board does: the position itself, with its pawns on their
    codes or further (the configurations ``Domain.floors`` allows) and two rules, both against
    ``colour``: its king keeps to ``R``, and the other king may step into ``Z``, but there
    ``colour`` wins only by a safe promotion at once (``Domain.joint_colour``). Every move of
    ``colour`` in it is a move of the board, and every move of the other side on the board is
    one of its moves (a step into ``Z`` among them, which only helps the other side); so a win of
    the joint game is a win on the board, in as many plies or fewer. It is solved by the exact
    database's retrograde pass (``retro.cpp``), one table for each tie, side and region, kept
    and asked again by every position of the search whose pawns it covers — within a search,
    built to cover what it can of the search's positions (:func:`joint_tables_from`,
    :func:`_joint_game`);
    under ``database.built_only`` (a game's clock) only the tables already built answer."""
    for game in joint_games(domain, board):
        value = open_database(game).value(board)
        if is_win(value) if board.turn == game.joint_colour else is_loss(value):
            return Wins(game.joint_colour, (plies(value) + 1) // 2)
    return None


def joint_games(domain, board):
    """The joint games level 10 asks of ``board`` in its order (:func:`joint`; each a
    ``Domain``, opened: built first where the cache does not hold it), one for each side and
    region where level 9's counts tie, unless levels 5 to 7 show the other side does not lose."""
    held = {}
    for colour, region, refuge, running, holding, _ in _tempo_battles(domain, board):
        if holding is None or holding[0] != running[0]:     # level 9's, or more than colour has
            continue
        if colour not in held:
            held[colour] = _holds_keeping(2, domain, board, not colour)        # (any of 0, 1 or 2 kept)
        if not held[colour]:
            game = _joint_game(domain, board, colour, region, refuge)
            if game is not None:
                yield game


#: The most pawn configurations a joint game's table solves: within a search, as many of its
#: positions as that covers. 120,000 holds the paper's whole domain (117,649), so from a root
#: with every pawn at home a table serves every position, whoever asks: CH.001 was proved from
#: its root with 30 tables (about 925 MB of the solver's memory and a minute each), where
#: 40,000 built 397 in 50 minutes without a proof; from ply 8 (51,450) the search took 24
#: tables and 933 s with 60,000, against 265 and 2,451 s with 40,000 (BENCHMARKS.md,
#: 2026-12-07 seventh and eighth).
JOINT_CONFIGURATIONS = 120_000
#: Per side and region of :func:`joint` (and the domain's files): the games whose tables are open.
_joint_tables = {}
#: None, or within :func:`joint_tables_from` the pawns' codes of a search's root.
_JOINT_ROOT = contextvars.ContextVar("chunker_joint_root", default=None)


@contextlib.contextmanager
def joint_tables_from(domain, board):
    """Within this context (in this thread or task), a joint game's table (level 10) covers what
    it can of every position a search from ``board`` may reach, not only the position that asks:
    its floors lowered towards ``board``'s pawns as far as :data:`JOINT_CONFIGURATIONS` allows
    (:func:`_joint_floors`). One table then serves many positions of the search, where without
    it each new set of pawns asks for a table of its own."""
    token = _JOINT_ROOT.set(tuple(domain.codes(board, chess.WHITE) + domain.codes(board, chess.BLACK)))
    try:
        yield
    finally:
        _JOINT_ROOT.reset(token)


def joint_games_open():
    """How many of level 10's games this process has opened (each a table, built unless the cache
    held it)."""
    return sum(map(len, _joint_tables.values()))


def _joint_game(domain, board, colour, region, refuge):
    """The domain of the joint game (:func:`joint`) that covers ``board``: one already open
    whose floors its pawns stand on or beyond and whose refuge holds ``refuge`` but not the other
    king (a refuge larger than a position's is sound for it: the other king's steps there only
    help the other side; a refuge's paths of the other side's pawns only shrink as they
    advance, and the king may stand where they were), else a new one (:func:`_joint_floors`;
    opened, so built unless the cache holds it or ``built_only`` forbids), or ``None`` where even
    the position's own pawns would solve more than :data:`JOINT_CONFIGURATIONS`."""
    key = (domain.white_files, domain.black_files, colour, region)
    codes = domain.codes(board, chess.WHITE) + domain.codes(board, chess.BLACK)
    tables = _joint_tables.setdefault(key, [])
    other_king = board.king(not colour)
    for game in tables:
        if game.allows(codes) and not refuge & ~game.joint_refuge and not game.joint_refuge >> other_king & 1:
            return game
    whites = len(domain.white_files)
    other_files, others = (domain.black_files, slice(whites, None)) if colour == chess.WHITE else \
        (domain.white_files, slice(whites))
    for floors in _joint_floors(domain, codes, colour):
        if _configurations(floors) > JOINT_CONFIGURATIONS:
            return None
        wider = refuge | _refuge(region, _squares(not colour, other_files, floors[others], here=True))
        if wider >> other_king & 1:     # the other king on the lowered floors' paths: not this table
            continue
        game = Domain(domain.white_files, domain.black_files, floors=floors, joint_colour=colour,
                      joint_region=region, joint_refuge=wider)
        open_database(game, quiet=True)     # built now, or NotBuilt: the level tells nothing
        tables.append(game)
        return game
    return None


def _configurations(floors):
    """How many pawn configurations the ``floors`` allow (``Domain.allowed_configs``)."""
    return math.prod(CODES + 1 - floor if floor else 1 for floor in floors)


def _joint_floors(domain, codes, colour):
    """The floors to try for a joint game's table from a position with the pawns' ``codes``, best
    first: within :func:`joint_tables_from`, each pawn's floor lowered towards the root's code, a
    step at a time and pawn by pawn (a pawn taken since: first to its seventh rank), while the
    table stays within :data:`JOINT_CONFIGURATIONS` — first every pawn's, then only ``colour``'s
    (the other side's lowered floors widen the refuge by their paths, which may hold the other
    king) — and last the position's own codes."""
    root = _JOINT_ROOT.get()
    found = []
    if root is not None:
        own = range(len(domain.white_files)) if colour == chess.WHITE else \
            range(len(domain.white_files), len(codes))
        for lowered in (range(len(codes)), own):
            floors = list(codes)
            while True:
                stepped = False
                for k in lowered:
                    if floors[k] == root[k] or not root[k]:
                        continue
                    trial = floors[:k] + [CODES - 1 if not floors[k] else floors[k] - 1] + floors[k + 1:]
                    if _configurations(trial) <= JOINT_CONFIGURATIONS:
                        floors, stepped = trial, True
                if not stepped:
                    break
            if tuple(floors) != tuple(codes) and tuple(floors) not in found:
                found.append(tuple(floors))
    return [*found, tuple(codes)]


def _refuge(region, paths):
    """Level 9's ``Z`` for the region ``R``: ``R``, the squares beside it and ``paths``."""
    refuge = paths
    for square in chess.scan_forward(region):
        refuge |= chess.BB_KING_ATTACKS[square] | chess.BB_SQUARES[square]
    return refuge


@functools.cache
def _zugzwang_regions(files, other_files, other_colour, paths):
    """Level 9's ``(R, Z)`` masks: ``R`` the files spanning ``other_files``, widened by none or one
    file on either side, that hold none of ``files``, from their promotion rank back to a rank
    (or all of them); ``Z`` ``R``, the squares beside it and ``paths`` (the squares the other
    side's pawns stand on or will)."""
    found = []
    if not other_files:
        return found
    for wider_low, wider_high in ((0, 0), (1, 0), (0, 1), (1, 1)):
        low, high = max(0, min(other_files) - wider_low), min(7, max(other_files) + wider_high)
        if any(low <= file <= high for file in files):
            continue
        for depth in range(8, 2, -1):
            ranks = range(8 - depth, 8) if other_colour == chess.WHITE else range(depth)
            region = sum(chess.BB_SQUARES[chess.square(file, rank)] for file in range(low, high + 1) for rank in ranks)
            refuge = _refuge(region, paths)
            if (region, refuge) not in found:
                found.append((region, refuge))
    return found


#: The schemas by level.
SCHEMAS = {1: race, 2: supported, 3: alone, 4: outrun, 5: holds, 6: beside, 7: pair, 8: fewer, 9: zugzwang,
           10: joint}
#: The levels that may solve a game of their own (seconds): asked only where no other decides.
COSTLY = {10}


def libraries(domain, levels=None):
    """The exact databases the schemas of ``levels`` (all by default) may open on positions of
    ``domain`` (each side's pawns on any of its files), smallest first: what ``suprem chunker
    --prepare`` builds. Level 1's chunk libraries are built in the process, in a second or so."""
    asked = set(SCHEMAS) if levels is None else set(levels)
    found = {}
    for colour in chess.COLORS:
        files = domain.white_files if colour == chess.WHITE else domain.black_files
        subsets = [present for size in range(len(files) + 1) for present in itertools.combinations(files, size)]
        wanted = []
        if 2 in asked:
            wanted.append(_library_domain(domain, colour, defender_passes=True))
        if 3 in asked:
            wanted.append(_library_domain(domain, colour))
        if 4 in asked:
            wanted += [_frozen_domain(domain, colour, present) for present in subsets if present]
        for level, most in ((5, 0), (6, 1), (7, 2)):
            if level in asked:
                wanted += [_holding_domain(domain, colour, kept, left_out)
                           for present in subsets for kept, left_out in _keepings(present, most)]
        if 8 in asked and (domain.black_files if colour == chess.WHITE else domain.white_files):
            wanted += [_leaving_domain(domain, colour, kept, left_out)
                       for present in subsets for kept, left_out in _leavings(present)]
        found.update(dict.fromkeys(wanted))
    return sorted(found, key=lambda library_domain: library_domain.size)


def unbuilt(domain, levels=None):
    """Those of :func:`libraries` the cache does not hold."""
    return [library_domain for library_domain in libraries(domain, levels)
            if not database_path(library_domain).exists()]


def prepare(domain, levels=None, told=None):
    """Build those of :func:`libraries` the cache does not hold; ``told(count, of, library
    domain, BuildReport)`` after each. Returns the reports."""
    missing, reports = unbuilt(domain, levels), []
    for count, library_domain in enumerate(missing, 1):
        reports.append(build(library_domain))
        if told is not None:
            told(count, len(missing), library_domain, reports[-1])
    return reports


def classify(domain, board, levels=None):
    """``(level, result)`` of the first schema that decides ``board`` (:class:`Wins` or ``DRAWN``), else
    of the first that bounds it (:class:`Holds`), else ``(None, None)``; ``levels`` (an iterable of
    levels) limits the schemas asked (all by default). A win's ``moves`` is the least that any
    of the schemas asked gives it (each is a bound; level 3's is exact where it applies). Under
    ``database.built_only``, a schema whose library is not built tells nothing (``None``)."""
    found, bound = None, (None, None)
    token = _SEEN.set(_Seen(domain, board))
    try:
        for level, schema in SCHEMAS.items():
            if levels is not None and level not in levels or found is not None and level in COSTLY:
                continue
            try:
                result = schema(domain, board)
            except NotBuilt:
                continue
            if found is not None:
                if isinstance(result, Wins) and result.moves < found[1].moves:
                    found = found[0], result
            elif isinstance(result, Holds):
                bound = bound if bound[0] is not None else (level, result)
            elif result == DRAWN:
                return level, result
            elif result is not None:
                found = level, result
        return found or bound
    finally:
        _SEEN.reset(token)
