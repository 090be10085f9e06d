"""CHUNKER's domain: kings and passed pawns on files of their own, the first safe promotion wins.

Campbell and Berliner's CHUNKER plays positions of a king and three connected passed pawns
against a king and three connected passed pawns. A :class:`Domain` names the files of each
side's pawns (the paper's: White's on a-c, Black's on f-h); the files of the two sides are at
least two apart, so no pawn ever captures, blocks or is blocked by a pawn of the other side, and
each pawn stays on its file. A position of the domain is both kings, each pawn on a rank of its
file (2 to 7, its own side's view) or gone (a king took it), and the side to move.

The rules are chess's (a king takes a pawn, a pawn steps or double-steps from its second rank;
no en passant can arise) with one abstraction, the paper's: **the first side to promote safely
wins**. A promotion is safe unless the other king can take the new piece at once (it stands next
to the promotion square, which neither the promoting side's king nor one of its pawns on the
seventh rank defends); an unsafe promotion is taken at once, so it leads, two plies on, to the
position with that pawn gone, the other king on the promotion square and the promoting side to
move again. A side with no legal move is mated (a loss) if a pawn checks its king, else
stalemated (a draw); a position nobody can force a promotion from is a draw (repetition).

The **index** of a position, the layout of the exact database (``host/chunker/retro.cpp`` takes
it from :meth:`Domain.defines`): each pawn's code is 0 (gone) or its rank 2..7 as 1..6, from its
own side's view; ``config`` = the codes as base-7 digits, White's files first then Black's, the
first file the lowest digit; ``index = ((config * 2 + side) * 64 + white king) * 64 + black king``
with ``side`` 0 when White is to move. The **value** of a position, one byte: :data:`DRAW`; a
win for the side to move in ``n`` plies (``n`` odd: the winning promotion is the ``n``-th ply)
is ``n``; a loss in ``n`` plies (``n`` even: 0 when mated now) is ``LOSS + n``; :data:`INVALID`
marks an index that is no position (kings together or on a pawn, the side not to move in check).
"""

import dataclasses
import functools
import hashlib
import itertools
from dataclasses import dataclass

import chess

__all__ = ["Domain", "PAPER", "DRAW", "LOSS", "INVALID", "MAX_PLIES", "is_win", "is_loss", "plies", "describe",
           "OutsideDomain", "capture_of", "CODES", "STATES"]

DRAW = 0
LOSS = 128
INVALID = 255
#: The longest distance a value byte holds (a win in 127 plies; a loss in 126).
MAX_PLIES = 126

#: The codes of a pawn: gone, or ranks 2..7 of its side.
CODES = 7
#: The indices of one pawn configuration (:meth:`Domain.index_of`): either side to move, every
#: pair of king squares; White to move first.
STATES = 2 * 64 * 64


def is_win(value):
    return 0 < value < LOSS


def is_loss(value):
    return LOSS <= value < INVALID


def plies(value):
    """The plies to the end of a won or lost value."""
    return value - LOSS if is_loss(value) else value


def describe(value):
    """``"win in 7"``, ``"loss in 4"``, ``"draw"`` or ``"invalid"`` (the side to move's view)."""
    if value == INVALID:
        return "invalid"
    if value == DRAW:
        return "draw"
    return f"{'win' if is_win(value) else 'loss'} in {plies(value)}"


class OutsideDomain(ValueError):
    """A position that is not one of the domain's (another piece, a pawn off its files...)."""


@functools.lru_cache(maxsize=4096)      # every schema asks them of every position
def _codes_on(files, pawns, colour):
    """:meth:`Domain.codes` of ``colour``'s pawns on the squares of the mask ``pawns``, its files
    ``files``: a tuple."""
    codes = [0] * len(files)
    for square in chess.scan_forward(pawns):
        file = square & 7
        if file not in files:
            continue
        k = files.index(file)
        if codes[k]:
            raise OutsideDomain(f"two {chess.COLOR_NAMES[colour]} pawns on the {chess.FILE_NAMES[file]}-file")
        codes[k] = square >> 3 if colour == chess.WHITE else 7 - (square >> 3)
    return tuple(codes)


@dataclass(frozen=True)
class Domain:
    """The files of White's and of Black's pawns (0 = a ... 7 = h)."""

    white_files: tuple = (0, 1, 2)
    black_files: tuple = (5, 6, 7)
    #: Only where one side has no pawns: that side may also pass (when not in check and its king
    #: has a move) — a stand-in for moves elsewhere on a larger board (``host.chunker.schemas``).
    defender_passes: bool = False
    #: Only where one side has no pawns: that side passes only when it is not in check and its king
    #: has no move — a stand-in for pawns elsewhere that it moves only when it must (or, with none
    #: left, a stalemate, which is no worse for it than the pass).
    defender_waits: bool = False
    #: Only where one side has no pawns: files its king may not stand on — a stand-in for its own
    #: pawns elsewhere, there now or later.
    defender_barred: tuple = ()
    #: Only where one side has no pawns: that side's king never moves — it passes, is mated when in
    #: check and takes no promoted piece (a king that stands still while its pawns run elsewhere).
    defender_frozen: bool = False
    #: Files where the defender's pawns elsewhere may deny the other king a square. With
    #: ``defender_frozen``: the side with pawns, to move with no pawn move and no king move off
    #: these files, wins at once (on the board it may be stalemated: the frozen side's plan fails).
    #: With a named ``defender_colour`` that does not wait (it never passes): the other side, to
    #: move with no pawn move and no king move off these files and not in check, is stalemated.
    defender_reach: tuple = ()
    #: Where both sides have pawns: the side (``chess.WHITE`` or ``chess.BLACK``) that waits
    #: (``defender_waits``: it passes only when not in check and without any move, king's or
    #: pawn's) and whose king is ``defender_barred`` — a stand-in for pawns of its own left out of
    #: the domain, which it moves only when it must and its king never stands on.
    defender_colour: object = None
    #: Each pawn's least code, in :attr:`pawns`' order (empty: none, the whole domain): a pawn
    #: whose floor is ``c`` stands on codes ``c`` to 6 or is gone; one whose floor is 0 is gone. A
    #: game from a position with these codes never leaves them (pawns only advance or go), so
    #: the database solves only those configurations; the others' indices are invalid.
    floors: tuple = ()
    #: The side (``chess.WHITE`` or ``chess.BLACK``) whose win the *joint game* asks (level 10,
    #: ``host.chunker.schemas.joint``), or None: the board's game with two rules against that
    #: side. Its king keeps to the squares of :attr:`joint_region` (a bitboard); the other king
    #: may step onto :attr:`joint_refuge`'s (a bitboard), but there the side wins only by a safe
    #: promotion at once and has no other move (a draw, or a loss in check). Both sides' moves
    #: are the board's, so a win of the joint game is a win on the board, no later.
    joint_colour: object = None
    joint_region: int = 0
    joint_refuge: int = 0

    def __post_init__(self):
        for files in (self.white_files, self.black_files, self.defender_barred, self.defender_reach):
            if len(set(files)) != len(files) or any(not 0 <= f < 8 for f in files):
                raise ValueError(f"files {files}: each a distinct file 0..7")
        both = bool(self.white_files and self.black_files)
        if self.defender_colour is not None:
            if not both or self.defender_passes or self.defender_frozen:
                raise ValueError("a side named to defend has pawns, as the other side has: it may wait and be "
                                 "barred, not pass at will nor be frozen")
        elif (self.defender_passes or self.defender_waits or self.defender_barred or self.defender_frozen) and both:
            raise ValueError("only a side with no pawns may pass, wait, be barred or frozen (one side's files "
                             "must be empty), unless the side is named (defender_colour)")
        own = () if self.defender_colour is None else \
            self.white_files if self.defender_colour == chess.WHITE else self.black_files
        if set(own) & set(self.defender_barred):
            raise ValueError(f"files {self.defender_barred}: a defender's king is barred from files of pawns "
                             "left out, not from its own pawns' in the domain")
        if self.defender_passes + self.defender_waits + self.defender_frozen > 1:
            raise ValueError("a defender passes whenever it likes, waits until it must or is frozen: one of them")
        if self.defender_reach and not (self.defender_frozen or self.defender_colour is not None
                                        and not self.defender_waits):
            raise ValueError("a defender's reach is a frozen defender's, or a named one's that never passes")
        if self.floors and (len(self.floors) != len(self.pawns) or any(not 0 <= f < CODES for f in self.floors)):
            raise ValueError(f"floors {self.floors}: one code 0..6 for each of the {len(self.pawns)} pawns")
        if self.joint_colour is not None and (not both or self.defender is not None or self.defender_passes
                                              or self.defender_waits or self.defender_frozen):
            raise ValueError("the joint game is played between two sides with pawns, without a defender's rules")
        if (self.joint_colour is None) != (not self.joint_region) or self.joint_refuge and self.joint_colour is None:
            raise ValueError("the joint game names its side and its region (and its refuge), or none of them")
        if any(abs(w - b) < 2 for w in self.white_files for b in self.black_files):
            raise ValueError(f"White's files {self.white_files} and Black's {self.black_files} must be two "
                             "apart at least (passed pawns that never meet)")

    @functools.cached_property
    def _hash(self):
        return hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self)))

    def __hash__(self):     # (the schemas' caches are keyed by domains, asked at every node: hashed once)
        return self._hash

    @functools.cached_property
    def pawns(self):
        """``((colour, file), ...)`` in digit order."""
        return tuple((chess.WHITE, f) for f in self.white_files) + tuple((chess.BLACK, f) for f in self.black_files)

    @functools.cached_property
    def configs(self):
        return CODES ** len(self.pawns)

    @functools.cached_property
    def size(self):
        """The number of indices (the database's bytes)."""
        return self.configs * STATES

    @functools.cached_property
    def defender(self):
        """The side the defender's rules apply to: :attr:`defender_colour` where it is named, else
        the side without pawns where only one side has them (else ``None``)."""
        if self.defender_colour is not None:
            return self.defender_colour
        return chess.WHITE if not self.white_files and self.black_files else \
            chess.BLACK if not self.black_files and self.white_files else None

    @functools.cached_property
    def barred(self):
        """The squares of :attr:`defender_barred` as a bitboard."""
        return sum(chess.BB_FILES[f] for f in self.defender_barred)

    def name(self):
        white = "".join(chess.FILE_NAMES[f] for f in self.white_files) or "none"
        black = "".join(chess.FILE_NAMES[f] for f in self.black_files) or "none"
        barred = "".join(chess.FILE_NAMES[f] for f in self.defender_barred)
        reach = "".join(chess.FILE_NAMES[f] for f in self.defender_reach)
        named = "" if self.defender_colour is None else f"-{chess.COLOR_NAMES[self.defender_colour]}"
        floors = "".join(map(str, self.floors))
        joint = "" if self.joint_colour is None else f"-joint-{'wb'[self.joint_colour == chess.BLACK]}-" + \
            hashlib.sha256(f"{self.joint_region:x}/{self.joint_refuge:x}".encode()).hexdigest()[:8]
        return f"{white}-vs-{black}{named}{'-passing' if self.defender_passes else ''}" \
            f"{'-waiting' if self.defender_waits else ''}{'-frozen' if self.defender_frozen else ''}" \
            f"{f'-barred-{barred}' if barred else ''}{f'-reach-{reach}' if reach else ''}" \
            f"{f'-floors-{floors}' if floors else ''}{joint}"

    def defines(self):
        """The layout as C preprocessor definitions for ``retro.cpp``."""
        return {"WHITE_FILES": ",".join(map(str, self.white_files)),
                "BLACK_FILES": ",".join(map(str, self.black_files)),
                "N_WHITE": len(self.white_files), "N_BLACK": len(self.black_files),
                "DEFENDER": -1 if self.defender is None else 0 if self.defender == chess.WHITE else 1,
                "DEFENDER_PASSES": int(self.defender_passes), "DEFENDER_WAITS": int(self.defender_waits),
                "DEFENDER_BARRED": f"0x{self.barred:016x}ULL", "DEFENDER_FROZEN": int(self.defender_frozen),
                "DEFENDER_REACH": f"0x{sum(chess.BB_FILES[f] for f in self.defender_reach):016x}ULL",
                "VALUE_DRAW": DRAW, "VALUE_LOSS": LOSS, "VALUE_INVALID": INVALID, "VALUE_MAX_PLIES": MAX_PLIES}

    def arguments(self):
        """The game as ``retro.cpp``'s options (the solver compiled from :meth:`defines` serves
        every floor and joint game of the layout)."""
        found = ["--floors", ",".join(map(str, self.floors))] if self.floors else []
        if self.joint_colour is not None:
            found += ["--joint", str(int(self.joint_colour == chess.BLACK)), f"0x{self.joint_region:x}",
                      f"0x{self.joint_refuge:x}"]
        return found

    def allows(self, codes):
        """Whether the pawns' ``codes`` (in :attr:`pawns`' order) are within :attr:`floors`."""
        return not self.floors or all(not code or floor and code >= floor for code, floor in zip(codes, self.floors))

    def allows_config(self, config):
        """Whether the configuration ``config`` (the codes as base-7 digits) is within :attr:`floors`."""
        if not self.floors:
            return True
        codes = []
        for _ in self.pawns:
            config, code = divmod(config, CODES)
            codes.append(code)
        return self.allows(codes)

    def allowed_configs(self):
        """The configurations within :attr:`floors`, in increasing order (all of them without
        floors): those the solver solves, the ones a database stores."""
        if not self.floors:
            return range(self.configs)
        digits = [[0, *range(floor, CODES)] if floor else [0] for floor in self.floors]
        return [sum(code * CODES ** k for k, code in enumerate(reversed(codes)))
                for codes in itertools.product(*reversed(digits))]

    def _joint_breaks(self, turn, white_king, black_king):
        """Why a position breaks the joint game's rules (:attr:`joint_colour`), or None."""
        if self.joint_colour is None:
            return None
        own, other = (white_king, black_king) if self.joint_colour == chess.WHITE else (black_king, white_king)
        if not self.joint_region >> own & 1:
            return f"the {chess.COLOR_NAMES[self.joint_colour]} king outside the joint game's region"
        if turn != self.joint_colour and self.joint_refuge >> other & 1:
            return "the other king in the joint game's refuge, its side to move"
        return None

    @staticmethod
    def pawn_square(colour, file, code):
        rank = code if colour == chess.WHITE else 7 - code
        return chess.square(file, rank)

    def codes(self, board, colour):
        """The codes of ``colour``'s pawns on its files (in the files' order): 0 where the file has
        none (raises :class:`OutsideDomain` for two pawns on one file; pawns on other files are
        left for :meth:`index` to refuse)."""
        files = self.white_files if colour == chess.WHITE else self.black_files
        return list(_codes_on(files, board.pawns & board.occupied_co[colour], colour))

    def index(self, board):
        """The index of ``board`` (raises :class:`OutsideDomain` for any other position)."""
        codes = self.codes(board, chess.WHITE) + self.codes(board, chess.BLACK)
        if chess.popcount(board.pawns) != sum(code > 0 for code in codes):
            on_files = {self.pawn_square(colour, file, code) for (colour, file), code in zip(self.pawns, codes) if code}
            pawns = chess.SquareSet(board.pawns) - on_files
            raise OutsideDomain(f"a pawn off the domain's files ({chess.square_name(min(pawns))})")
        kings = board.king(chess.WHITE), board.king(chess.BLACK)
        if chess.popcount(board.occupied) != 2 + sum(c > 0 for c in codes) or None in kings:
            raise OutsideDomain("pieces other than the kings and the domain's pawns")
        if board.ep_square is not None and board.has_legal_en_passant():
            raise OutsideDomain("an en passant capture")
        if self.defender is not None and self.barred >> kings[self.defender == chess.BLACK] & 1:
            raise OutsideDomain(f"the {chess.COLOR_NAMES[self.defender]} king on a barred file")
        if not self.allows(codes):
            raise OutsideDomain(f"a pawn behind the domain's floors {self.floors}")
        broken = self._joint_breaks(board.turn, *kings)
        if broken:
            raise OutsideDomain(broken)
        return self.index_of(codes, board.turn, *kings)

    @staticmethod
    def index_of(codes, turn, white_king, black_king):
        """The index of the position with the pawns' ``codes`` (in :attr:`pawns`' order), ``turn``
        to move and the kings on these squares, unchecked (:meth:`index` checks a board)."""
        config = 0
        for code in reversed(codes):
            config = config * CODES + code
        side = 0 if turn == chess.WHITE else 1
        return ((config * 2 + side) * 64 + white_king) * 64 + black_king

    def board(self, index):
        """The position of ``index`` as a ``chess.Board`` (it may be invalid: check :meth:`valid`)."""
        if not 0 <= index < self.size:
            raise ValueError(f"index {index} outside 0..{self.size - 1}")
        black_king, index = index % 64, index // 64
        white_king, index = index % 64, index // 64
        side, config = index % 2, index // 2
        board = chess.Board(None)
        for colour, file in self.pawns:
            config, code = divmod(config, CODES)
            if code:
                board.set_piece_at(self.pawn_square(colour, file, code), chess.Piece(chess.PAWN, colour))
        if white_king == black_king:
            board.set_piece_at(white_king, chess.Piece(chess.KING, chess.WHITE))
            board.turn = chess.WHITE if side == 0 else chess.BLACK
            return board                      # no position: valid() says so
        for square, colour in ((white_king, chess.WHITE), (black_king, chess.BLACK)):
            if board.piece_at(square) is None:
                board.set_piece_at(square, chess.Piece(chess.KING, colour))
        board.turn = chess.WHITE if side == 0 else chess.BLACK
        return board

    def valid(self, index):
        """Whether ``index`` is a position: both kings placed, apart and off the pawns, the side not
        to move not in check."""
        board = self.board(index)
        if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
            return False
        if self.defender is not None and self.barred & chess.BB_SQUARES[board.king(self.defender)]:
            return False
        if not self.allows_config(index // STATES) or \
                self._joint_breaks(board.turn, board.king(chess.WHITE), board.king(chess.BLACK)):
            return False
        return chess.square_distance(board.king(chess.WHITE), board.king(chess.BLACK)) > 1 \
            and not board.was_into_check()

    def children(self, board):
        """The domain's moves from ``board``: ``[(move, outcome)]``, ``outcome`` either ``"win"``
        (a safe promotion) or ``(plies, board after)`` (1 ply for a move, 2 for an unsafe promotion
        and the capture it meets). Computed with python-chess's legal moves, apart from the
        database's own move generator. Underpromotions are left out (a promotion is a promotion).
        With ``defender_passes``, the side without pawns may pass (``chess.Move.null()``) when not
        in check and its king has a move; with ``defender_waits``, the defender, when not in check
        and without any move; its king never steps onto a file of ``defender_barred``; with
        ``defender_frozen`` its one move is a pass (none in check), every promotion is safe, and
        the other side, to move with no pawn move and no king move off ``defender_reach``, has one
        move (a null move) that wins; with a named defender and a reach, that side so placed and
        not in check has none (stalemated). In the joint game, its side's king steps only into
        ``joint_region``, and with the other king in ``joint_refuge`` its only moves are safe
        promotions."""
        found = []
        legal = [move for move in board.legal_moves
                 if board.turn != self.defender or not self.defender_frozen
                 and not (board.piece_type_at(move.from_square) == chess.KING
                          and self.barred & chess.BB_SQUARES[move.to_square])]
        cornered = board.turn == self.joint_colour and self.joint_refuge >> board.king(not board.turn) & 1
        if cornered:                                # the joint game's side: a (safe) promotion only,
            legal = [move for move in legal if move.promotion]
        elif board.turn == self.joint_colour:       # or its king kept to the region
            legal = [move for move in legal if board.piece_type_at(move.from_square) != chess.KING
                     or self.joint_region >> move.to_square & 1]
        if board.turn == self.defender and not board.is_check() \
                and (self.defender_passes and legal or self.defender_waits and not legal or self.defender_frozen):
            after = board.copy(stack=False)
            after.push(chess.Move.null())
            after.clear_stack()
            found.append((chess.Move.null(), (1, after)))
        if self.defender_reach and board.turn != self.defender and \
                not any(board.piece_type_at(move.from_square) == chess.PAWN or
                        chess.square_file(move.to_square) not in self.defender_reach for move in legal):
            if self.defender_frozen:
                return [(chess.Move.null(), "win")]
            if not board.is_check():
                return []
        for move in legal:
            if move.promotion not in (None, chess.QUEEN):
                continue
            after = board.copy(stack=False)
            after.push(move)
            if move.promotion is None:
                found.append((move, (1, after)))
                continue
            take = None if self.defender_frozen else capture_of(after, move.to_square)
            if take is None:
                found.append((move, "win"))
            elif not cornered:                      # (cornered: only a safe promotion)
                after.push(take)
                after.clear_stack()
                found.append((move, (2, after)))
        return found


def capture_of(board, square):
    """The move that takes the piece just promoted on ``square`` (the other king's; None when
    the promotion is safe)."""
    return next((reply for reply in board.legal_moves if reply.to_square == square), None)


#: The paper's domain: White's pawns on a-c, Black's on f-h.
PAPER = Domain()
