"""Reading positions from EPD/FEN files."""

import chess
import pytest

from host.epd import EpdError, EpdRecord, parse_position, read_positions

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.mark.parametrize("line,fen,ops", [
    (START, START, {}),
    (f"fen {START}", START, {}),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", START, {}),
    ("epd rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"start\";", START,
     {"bm": "e4", "id": '"start"'}),
    ("8/8/8/8/8/8/8/K1k5 b - - 3 40 ; perft1 3 ; check 0", "8/8/8/8/8/8/8/K1k5 b - - 3 40",
     {"perft1": "3", "check": "0"}),
])
def test_parse_position(line, fen, ops):
    board, operations = parse_position(line)
    assert board.fen() == chess.Board(fen).fen()
    assert operations == ops


def test_read_positions_reports_bad_lines_and_goes_on():
    lines = ["# a comment", "", "some words", START, "8/8/8 w - -",
             "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", f"epd {START}"]
    records = list(read_positions(lines))
    assert [type(r) for r in records] == [EpdRecord, EpdError, EpdError, EpdRecord]
    assert [r.line for r in records] == [4, 5, 6, 7]
    assert "8 rows" in records[1].reason
    assert str(records[2]).startswith("line 6: not a valid FEN")
