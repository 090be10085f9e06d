"""The Oracle's root analysis (host/analysis.py) on positions whose answers are known by
construction: swap-offs, pawn classes, CAPS-II's bearing relations, targets, phase and kings."""

import chess

from host.analysis import analyse, bearings, game_phase_fraction, pawn_classes, swap_off


def _square(name):
    return chess.parse_square(name)


def _names(squares):
    return {chess.square_name(s) for s in squares}


def test_swap_offs():
    cases = [
        ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e5", 100),         # an undefended pawn
        ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "e5", 0),  # Nxe5 loses the knight
        ("4k3/4r3/8/4p3/8/8/4R3/4Q1K1 w - - 0 1", "e5", 100),     # the queen behind the rook joins (x-ray)
        ("4k3/4r3/8/4p3/8/8/4R3/6K1 w - - 0 1", "e5", 0),         # without it, Rxe5 Rxe5
        ("8/8/8/3k4/4p3/8/6B1/4R1K1 w - - 0 1", "e4", 100),       # the king may not take back: Re1 guards
        ("8/8/8/3k4/4p3/8/8/4R1K1 w - - 0 1", "e4", 0),           # ... without the bishop it may
        ("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", "d5", 900),          # a hanging queen
        ("4k3/8/4p3/3q4/8/8/8/3RK3 w - - 0 1", "d5", 400),        # Rxd5 exd5: queen for rook
    ]
    for fen, square, gain in cases:
        board = chess.Board(fen)
        assert swap_off(board, _square(square), chess.WHITE) == gain, (fen, square)
        assert swap_off(board, _square(square), chess.BLACK) == 0       # its own piece, or none


def test_pawn_classes():
    board = chess.Board("4k3/7p/8/1PP5/8/3P4/5PP1/4K3 w - - 0 1")
    white, black = pawn_classes(board, chess.WHITE), pawn_classes(board, chess.BLACK)
    assert _names(white.passed) == {"b5", "c5", "d3", "f2"} and not black.passed
    assert _names(white.connected_passed) == {"b5", "c5", "d3"}
    assert white.islands == 2 and black.islands == 1
    assert white.majorities == ("queen", "king")
    board = chess.Board("4k3/8/8/8/8/P7/P6P/4K3 w - - 0 1")
    white = pawn_classes(board, chess.WHITE)
    assert _names(white.doubled) == {"a2", "a3"} and _names(white.isolated) == {"a2", "a3", "h2"}
    board = chess.Board("4k3/8/2p5/3p4/3P4/8/8/4K3 w - - 0 1")
    black = pawn_classes(board, chess.BLACK)
    assert _names(black.backward) == {"c6"} and _names(black.chained) == {"d5"}
    board = chess.Board("4k3/8/8/2Pp4/3P4/8/8/4K3 w - - 0 1")
    white = pawn_classes(board, chess.WHITE)
    assert _names(white.protected_passed) == {"c5"}
    board = chess.Board("4k3/8/2n5/2P5/8/8/8/4K3 w - - 0 1")
    assert _names(pawn_classes(board, chess.WHITE).blockaded) == {"c5"}


def test_bearing_relations():
    board = chess.Board("r3k3/8/8/8/n2N4/8/3R4/R2QK3 w - - 0 1")
    found = {(chess.square_name(b.source), chess.square_name(b.square), b.relation,
              chess.square_name(b.through) if b.through is not None else None) for b in bearings(board)}
    assert ("a1", "a4", "DIR", None) in found
    assert ("a1", "a6", "ETHRU", "a4") in found             # an x-ray through the knight
    assert ("a1", "a4", "OBJ", "a8") in found               # ... which the rook behind it pins
    assert ("d1", "d3", "OTHRU", "d2") in found             # the queen behind the rook: a battery
    assert ("d2", "d3", "DIR", None) in found
    assert ("d2", "d8", "DSC", "d4") in found               # moving the knight discovers the rook
    assert not any(s == "d1" and sq == "d5" for s, sq, _, _ in found)   # two pieces in between


def test_targets_and_kings():
    # Black's queen is the only defender of both knights White's rooks attack: overloaded.
    board = chess.Board("3qk3/8/8/n7/7n/8/8/R3K2R w - - 0 1")
    analysis = analyse(board)
    assert "overloaded" in analysis.targets[chess.WHITE].get(_square("d8"), "")
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    analysis = analyse(board)
    assert analysis.targets[chess.BLACK] == {_square("e4"): "a swap-off wins 100"}
    assert analysis.kings[chess.WHITE].castling == ("king", "queen") and analysis.kings[chess.WHITE].shelter == 2
    board = chess.Board("2kr3r/ppp2ppp/2n5/3q4/3P4/2P2N2/P4PPP/R2QR1K1 b - - 0 1")
    analysis = analyse(board)
    assert analysis.kings[chess.WHITE].castled == "king" and analysis.kings[chess.BLACK].castled == "queen"
    assert analysis.open_files == {4} and analysis.half_open[chess.WHITE] == {1}
    assert "pinned to d1" in analysis.targets[chess.BLACK][_square("d4")]
    lines = analysis.explain()
    assert any(line.startswith("pins: d5>d4>d1") for line in lines), lines


def test_phase_and_attack_on_the_king():
    assert game_phase_fraction(chess.Board()) == 1.0
    assert game_phase_fraction(chess.Board("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1")) == 0.0
    assert game_phase_fraction(chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")) == 2 / 24
    # White's queen and knight bear on the squares around Black's castled king.
    board = chess.Board("r1b2rk1/ppp2ppp/2n5/3p2NQ/8/8/PPP2PPP/R1B2RK1 w - - 0 1")
    analysis = analyse(board)
    assert analysis.kings[chess.BLACK].attackers == 2 and analysis.under_attack == chess.BLACK
