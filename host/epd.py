"""Reading positions from EPD/FEN files, line by line, with a reason for every bad line.

A line holds one position as a full FEN, as the four EPD fields (with or without ``;``-separated
operations after them), or as ``epd <...>`` / ``fen <...>``. Blank lines, ``#`` comments and
lines that do not start like a position are ignored. A line that starts like a position but is
not one is reported with its number and the reason, and reading goes on.
"""

from dataclasses import dataclass, field

import chess

from models.position import new_board

__all__ = ["EpdRecord", "EpdError", "read_positions", "parse_position"]


@dataclass
class EpdRecord:
    line: int
    board: chess.Board
    operations: dict = field(default_factory=dict)


@dataclass
class EpdError:
    line: int
    text: str
    reason: str

    def __str__(self):
        return f"line {self.line}: {self.reason}: {self.text.strip()[:80]}"


def _looks_like_board(token):
    return token.count("/") == 7


def parse_position(text, variant="chess"):
    """A python-chess board (of ``variant``: ``models.position.VARIANTS``) and the operations of
    one line; raises ValueError with a reason."""
    text = text.strip()
    lowered = text.lower()
    if lowered.startswith(("epd ", "fen ")):
        text = text[4:].strip()
    body, _, rest = text.partition(";")
    fields = body.split()
    operations = {}
    for op in rest.split(";"):
        words = op.split()
        if words:
            operations[words[0]] = " ".join(words[1:])
    if len(fields) < 4:
        raise ValueError(f"a position needs at least 4 fields, this line has {len(fields)}")
    counters = fields[4:6]
    if len(counters) == 2 and all(c.isdigit() for c in counters):
        fen = " ".join(fields[:6])                       # a full FEN
        extra = fields[6:]
    else:
        fen = " ".join(fields[:4]) + " 0 1"              # EPD: four fields, then operations
        extra = fields[4:]
    if extra:
        operations.setdefault(extra[0], " ".join(extra[1:]))
    try:
        board = new_board(variant, fen)
    except ValueError as error:
        raise ValueError(f"not a valid FEN ({error})") from None
    return board, operations


def read_positions(lines, variant="chess"):
    """Yield an :class:`EpdRecord` or :class:`EpdError` for each line that holds a position
    (a board of ``variant``)."""
    for number, text in enumerate(lines, 1):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        first = stripped.split()[0].lower()
        if first not in ("epd", "fen") and not _looks_like_board(first) and "/" not in first:
            continue
        try:
            board, operations = parse_position(stripped, variant)
        except ValueError as error:
            yield EpdError(number, text, str(error))
            continue
        yield EpdRecord(number, board, operations)
