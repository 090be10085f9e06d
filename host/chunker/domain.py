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

from dataclasses import dataclass

import chess

__all__ = ["Domain", "PAPER", "DRAW", "LOSS", "INVALID", "MAX_PLIES", "is_win", "is_loss", "plies", "describe",
           "OutsideDomain", "capture_of"]

DRAW = 0
LOSS = 128
INVALID = 255
#: The longest distance a value byte holds (a win in 127 plies; a loss in 126).
MAX_PLIES = 126

#: The codes of a pawn: gone, or ranks 2..7 of its side.
CODES = 7


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


@dataclass(frozen=True)
class Domain:
    """The files of White's and of Black's pawns (0 = a ... 7 = h)."""

    white_files: tuple = (0, 1, 2)
    black_files: tuple = (5, 6, 7)
    #: Only where one side has no pawns: that side may also pass (when not in check and its king
    #: has a move) — a stand-in for moves elsewhere on a larger board (``host.chunker.schemas``).
    defender_passes: bool = False

    def __post_init__(self):
        for files in (self.white_files, self.black_files):
            if len(set(files)) != len(files) or any(not 0 <= f < 8 for f in files):
                raise ValueError(f"pawn files {files}: each a distinct file 0..7")
        if self.defender_passes and self.white_files and self.black_files:
            raise ValueError("only a side with no pawns may pass (one side's files must be empty)")
        if any(abs(w - b) < 2 for w in self.white_files for b in self.black_files):
            raise ValueError(f"White's files {self.white_files} and Black's {self.black_files} must be two "
                             "apart at least (passed pawns that never meet)")

    @property
    def pawns(self):
        """``[(colour, file)]`` in digit order."""
        return [(chess.WHITE, f) for f in self.white_files] + [(chess.BLACK, f) for f in self.black_files]

    @property
    def configs(self):
        return CODES ** len(self.pawns)

    @property
    def size(self):
        """The number of indices (the database's bytes)."""
        return self.configs * 2 * 64 * 64

    def name(self):
        white = "".join(chess.FILE_NAMES[f] for f in self.white_files) or "none"
        black = "".join(chess.FILE_NAMES[f] for f in self.black_files) or "none"
        return f"{white}-vs-{black}{'-passing' if self.defender_passes else ''}"

    def defines(self):
        """The layout as C preprocessor definitions for ``retro.cpp``."""
        return {"WHITE_FILES": ",".join(map(str, self.white_files)),
                "BLACK_FILES": ",".join(map(str, self.black_files)),
                "N_WHITE": len(self.white_files), "N_BLACK": len(self.black_files),
                "DEFENDER_PASSES": int(self.defender_passes),
                "VALUE_DRAW": DRAW, "VALUE_LOSS": LOSS, "VALUE_INVALID": INVALID, "VALUE_MAX_PLIES": MAX_PLIES}

    @staticmethod
    def pawn_square(colour, file, code):
        rank = code if colour == chess.WHITE else 7 - code
        return chess.square(file, rank)

    def codes(self, board, colour):
        """The codes of ``colour``'s pawns on its files (in the files' order): 0 where the file has
        none (raises :class:`OutsideDomain` for two pawns on one file)."""
        codes = []
        for file in (self.white_files if colour == chess.WHITE else self.black_files):
            on_file = [sq for sq in board.pieces(chess.PAWN, colour) if chess.square_file(sq) == file]
            if len(on_file) > 1:
                raise OutsideDomain(f"two {chess.COLOR_NAMES[colour]} pawns on the {chess.FILE_NAMES[file]}-file")
            rank = chess.square_rank(on_file[0]) if on_file else None
            codes.append(0 if rank is None else rank if colour == chess.WHITE else 7 - rank)
        return codes

    def index(self, board):
        """The index of ``board`` (raises :class:`OutsideDomain` for any other position)."""
        codes = self.codes(board, chess.WHITE) + self.codes(board, chess.BLACK)
        on_files = {self.pawn_square(colour, file, code) for (colour, file), code in zip(self.pawns, codes) if code}
        pawns = (board.pieces(chess.PAWN, chess.WHITE) | board.pieces(chess.PAWN, chess.BLACK)) - on_files
        if pawns:
            raise OutsideDomain(f"a pawn off the domain's files ({chess.square_name(min(pawns))})")
        if chess.popcount(board.occupied) != 2 + sum(c > 0 for c in codes) \
                or board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
            raise OutsideDomain("pieces other than the kings and the domain's pawns")
        if board.ep_square is not None and board.has_legal_en_passant():
            raise OutsideDomain("an en passant capture")
        config = 0
        for code in reversed(codes):
            config = config * CODES + code
        side = 0 if board.turn == chess.WHITE else 1
        return ((config * 2 + side) * 64 + board.king(chess.WHITE)) * 64 + board.king(chess.BLACK)

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
        return chess.square_distance(board.king(chess.WHITE), board.king(chess.BLACK)) > 1 \
            and not board.was_into_check()

    def children(self, board):
        """The domain's moves from ``board``: ``[(move, outcome)]``, ``outcome`` either ``"win"``
        (a safe promotion) or ``(plies, board after)`` (1 ply for a move, 2 for an unsafe promotion
        and the capture it meets). Computed with python-chess's legal moves, apart from the
        database's own move generator. Underpromotions are left out (a promotion is a promotion).
        With ``defender_passes``, the side without pawns may pass (``chess.Move.null()``) when not
        in check and its king has a move."""
        found = []
        if self.defender_passes and not (self.white_files if board.turn == chess.WHITE else self.black_files) \
                and not board.is_check() and any(board.legal_moves):
            after = board.copy(stack=False)
            after.push(chess.Move.null())
            after.clear_stack()
            found.append((chess.Move.null(), (1, after)))
        for move in board.legal_moves:
            if move.promotion not in (None, chess.QUEEN):
                continue
            after = board.copy(stack=False)
            after.push(move)
            if move.promotion is None:
                found.append((move, (1, after)))
                continue
            take = capture_of(after, move.to_square)
            if take is None:
                found.append((move, "win"))
            else:
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
