"""CHUNKER's domain and its exact retrograde database (host/chunker), checked with python-chess.

The databases here are small domains (one or two pawns a side: built in a second or two and
cached); the paper's three-against-three domain is built by ``suprem chunker --build`` and
measured in BENCHMARKS.md, with the same solver and the same checks.
"""

import collections
import functools
import itertools
import math
import random

import chess
import pytest

from host.chunker import place, schemas, visited
from host.chunker.check import joint_wins, play_out
from host.chunker.chunks import ATTACKER, DEFENDER, PASSES, Chunk, library, tempo_library, tempo_path
from host.chunker.database import Database, NotBuilt, build, built_only, database_path, open_database, verify
from host.chunker.domain import DRAW, INVALID, LOSS, PAPER, Domain, OutsideDomain, describe, is_loss, is_win, plies
from host.chunker.schemas import (
    DRAWN,
    SCHEMAS,
    Holds,
    Wins,
    agrees,
    classify,
    holds,
    joint,
    joint_games,
    joint_games_open,
    libraries,
    pair,
    tempo_libraries,
    unbuilt,
    unmade_tempo_libraries,
    zugzwang,
)
from host.chunker.search import solve

ONE = Domain((0,), (7,))            # a-pawn against h-pawn
TWO = Domain((0, 1), (6, 7))        # a and b against g and h


@pytest.fixture(scope="module")
def one():
    return open_database(ONE, quiet=True)


@pytest.fixture(scope="module")
def two():
    return open_database(TWO, quiet=True)


def test_domain_rejects_files_that_meet():
    with pytest.raises(ValueError, match="two apart"):
        Domain((0, 1, 2), (3, 4, 5))
    with pytest.raises(ValueError, match="distinct"):
        Domain((0, 0), (7,))


def test_domain_rejects_floors_and_joint_games_it_cannot_play():
    with pytest.raises(ValueError, match="one code 0..6 for each"):
        Domain((0, 1), (6, 7), floors=(1, 2))
    with pytest.raises(ValueError, match="names its side and its region"):
        Domain((0, 1), (6, 7), joint_colour=chess.WHITE)
    with pytest.raises(ValueError, match="two sides with pawns"):
        Domain((0, 1), (), joint_colour=chess.WHITE, joint_region=chess.BB_FILE_G)
    with pytest.raises(ValueError, match="two sides with pawns"):
        Domain((0, 1), (6, 7), defender_colour=chess.BLACK, defender_waits=True, joint_colour=chess.WHITE,
               joint_region=chess.BB_FILE_G)


def test_allowed_configs_are_the_floors_configurations_in_order():
    for floors in [(), (1, 1, 1, 1), (0, 3, 6, 1), (2, 0, 0, 5)]:
        domain = Domain((0, 1), (6, 7), floors=floors)
        expected = [config for config in range(domain.configs) if domain.allows_config(config)]
        assert list(domain.allowed_configs()) == expected
    assert len(Domain((0, 1), (6, 7), floors=(0, 3, 6, 1)).allowed_configs()) == 1 * 5 * 2 * 7


def test_paper_domain_size():
    assert PAPER.name() == "abc-vs-fgh"
    assert PAPER.size == 7 ** 6 * 2 * 64 * 64 == 963_780_608


def test_index_round_trip():
    rng = random.Random(7)
    checked = 0
    while checked < 300:
        index = rng.randrange(TWO.size)
        if not TWO.valid(index):
            continue
        board = TWO.board(index)
        assert board.is_valid(), board.fen()
        assert TWO.index(board) == index
        checked += 1


@pytest.mark.parametrize("fen, reason", [
    ("8/8/8/8/P3k3/8/8/3NK3 w - - 0 1", "other than"),
    ("8/8/8/8/3Pk3/8/8/4K3 w - - 0 1", "off the domain"),
    ("8/8/8/P7/P3k3/8/8/4K3 w - - 0 1", "two white pawns"),
])
def test_outside_domain(fen, reason):
    with pytest.raises(OutsideDomain, match=reason):
        ONE.index(chess.Board(fen))


@pytest.mark.parametrize("fen, value", [
    # the rule of the square: a5 runs when the black king is outside its square...
    ("8/8/8/8/P4k2/8/8/7K w - - 0 1", 7),
    # ...and is caught when Black moves first (Ke5 enters it)
    ("8/8/8/8/P4k2/8/8/7K b - - 0 1", DRAW),
    # a safe promotion at once; the same position with White to move is lost in 2
    ("8/8/8/8/P4k2/8/7p/4K3 b - - 0 1", 1),
    ("8/8/8/8/P4k2/8/7p/4K3 w - - 0 1", LOSS + 2),
    # a8=Q is taken by Kxa8 (unsafe): the bare white king cannot win...
    ("8/Pk6/8/8/8/8/8/7K w - - 0 1", DRAW),
    # ...with the black king a square further off it is safe
    ("8/P7/2k5/8/8/8/8/7K w - - 0 1", 1),
    # the rook pawn's draw: the king in the corner
    ("k7/2K5/P7/8/8/8/8/8 w - - 0 1", DRAW),
])
def test_known_values(one, fen, value):
    assert describe(one.value(chess.Board(fen))) == describe(value)


def test_mate_and_stalemate():
    db = open_database(Domain((5, 6, 7), (0,)), quiet=True)
    mated = chess.Board("7k/6PP/6K1/8/8/8/p7/8 b - - 0 1")
    assert mated.is_checkmate() and db.value(mated) == LOSS
    stalemated = chess.Board("7k/7P/6K1/8/8/8/8/8 b - - 0 1")
    assert stalemated.is_stalemate() and db.value(stalemated) == DRAW


def test_invalid_indices(one):
    board = chess.Board("8/8/8/8/P3kK2/8/8/8 w - - 0 1")       # kings side by side
    assert one.value_at(ONE.index(board)) == INVALID
    with pytest.raises(ValueError, match="not a legal position"):
        one.value(board)


def test_every_position_of_a_configuration_agrees_with_minimax(one):
    """Every index of a few configurations (both sides to move, every king pair): the stored
    value equals one ply of minimax over python-chess's legal moves and the domain's rules."""
    block = 2 * 64 * 64
    for config in (0, 10, 24, 48):
        assert verify(one, range(config * block, (config + 1) * block)) == []


@pytest.mark.parametrize("domain", [ONE, TWO], ids=lambda d: d.name())
def test_random_positions_agree_with_minimax(domain):
    db = open_database(domain, quiet=True)
    rng = random.Random(2026)
    indices = [rng.randrange(domain.size) for _ in range(3000)]
    assert verify(db, indices) == []


def test_verify_finds_a_wrong_value(one):
    """The check can fail: one win's distance changed in a copy of a block is found."""
    config = 30
    block = bytearray(one.block(config))
    place = next(i for i, v in enumerate(block) if 3 < v < LOSS)
    block[place] += 2

    class Corrupt(Database):
        def block(self, k):
            return bytes(block) if k == config else one.block(k)

    corrupt = Corrupt(ONE, one.path)
    index = config * 2 * 64 * 64 + place
    assert verify(corrupt, [index]) == [(index, block[place], block[place] - 2)]


def test_line_ends_in_the_promotion(one):
    board = chess.Board("8/8/8/8/P4k2/8/8/7K w - - 0 1")
    line = one.line(board)
    assert len(line) == 7 and line[-1].promotion == chess.QUEEN
    for move in line:
        assert move in board.legal_moves
        board.push(move)


def test_build_is_cached(two):
    first = build(TWO)
    assert first.counts == {} and first.path == two.path      # no second solve
    assert first.stored_bytes < TWO.size / 4                   # stored compactly


# -- chunk libraries, schemas and the search ------------------------------------------------


def test_chunk_library_rule_of_the_square():
    chunk = Chunk(chess.WHITE, (0,))
    kcp = library(chess.WHITE, (0,), "KCP")
    # a4 against a king on f4: a5-a6-a7-a8, the fourth white move, the seventh ply
    assert kcp[chunk.index([3], chess.F4, ATTACKER)] == 7
    # against e4 the king enters the square: held
    assert kcp[chunk.index([3], chess.E4, ATTACKER)] is None
    # from the second rank the double step saves a move
    assert kcp[chunk.index([1], chess.H8, ATTACKER)] == 9


_FILES_A_TO_C = chess.BB_FILE_A | chess.BB_FILE_B | chess.BB_FILE_C


@pytest.mark.parametrize("variant, rules", [*((variant, {}) for variant in sorted(PASSES)),
                                            ("PCP", {"confined": _FILES_A_TO_C}),
                                            ("PCP", {"confined": chess.BB_FILE_B}),
                                            ("PCP", {"refuge": chess.BB_FILE_D | chess.BB_FILE_E}),
                                            ("AM", {"confined": chess.BB_FILE_B}),
                                            ("AM", {"refuge": chess.BB_FILE_D | chess.BB_FILE_E})])
def test_chunk_libraries_are_consistent(variant, rules):
    """Every instance's distance is one ply of minimax over its moves' distances (the library's
    own definition, recomputed apart from its retrograde pass), with level 9's rules for the
    defender's king too: ``confined`` (it must move and keep to its squares, or lose) and
    ``refuge`` (it holds on its squares, unless a safe promotion follows at once, and where its
    every move, not in check, goes there)."""
    files = (0, 1)
    values = library(chess.WHITE, files, variant, **rules)
    decided = played = 0
    for index, kind, children in _ruled_moves(files, variant, rules):
        played += 1
        if kind == "mate":
            expected = 0
        elif kind == "held":
            expected = None
        else:
            reached = [1 if child == "win" else (None if values[child] is None else values[child] + plies)
                       for plies, child in children]
            if index % 2 == ATTACKER:
                wins = [r for r in reached if r is not None]
                expected = min(wins) if wins else None
            else:
                expected = None if None in reached else max(reached)
        assert values[index] == expected, index
        decided += expected is not None
    assert decided > played // 4


def _ruled_moves(files, variant, rules):
    """``(index, kind, children)`` of each instance of White's chunk on ``files`` that a game with
    level 9's ``rules`` plays (``Chunk.moves``, the defender's king confined or its refuge
    holding); the instances no game of the rules starts at must be held, which is asserted."""
    chunk = Chunk(chess.WHITE, files)
    attacker_passes, defender_passes = PASSES[variant]
    confined, refuge = rules.get("confined"), rules.get("refuge", 0)
    for index in range(chunk.size):
        kind, children = chunk.moves(index, attacker_passes, defender_passes)
        if kind == "invalid":
            continue
        king = index // 2 % 64
        if confined is not None and not confined >> king & 1 or refuge >> king & 1 and index % 2 == DEFENDER:
            assert library(chess.WHITE, files, variant, **rules)[index] is None, index
            continue
        if refuge >> king & 1:
            children = [(plies, child) for plies, child in children if child == "win"]
            kind = "moves" if children else "held"
        elif refuge and index % 2 == DEFENDER and kind == "moves" and \
                not chunk.pawn_attacks(chunk.decode(index // 128)) >> king & 1 and \
                all(refuge >> child // 2 % 64 & 1 for _, child in children):
            kind = "held"
        if confined is not None and index % 2 == DEFENDER:
            children = [(plies, child) for plies, child in children if confined >> child // 2 % 64 & 1]
            kind = kind if children else "mate"
        yield index, kind, children


@pytest.mark.parametrize("rules", [{}, {"confined": _FILES_A_TO_C}, {"refuge": chess.BB_FILE_D | chess.BB_FILE_E}])
def test_tempo_library_is_the_chunk_beside_a_count_of_passes(rules):
    """Each instance's spare tempi ``(t, plies)`` against the chunk played beside a count of
    passes, solved apart as one game of (instance, count) pairs (counts -4 to 4, more than any
    instance needs): won at count ``t`` within ``plies`` and not at ``t - 1`` (``-math.inf``:
    won at -4; ``None``: not won at 4). Some wins need the attacker's passes, some survive the
    defender's; and where the attacker needs none, ``AM`` wins, where it needs them without end
    ``PCP`` does, and where it survives any, ``KCP``."""
    files, most = (0, 1, 2), 4
    values = tempo_library(chess.WHITE, files, **rules)
    won = _beside_a_count(files, rules, most)
    for index, value in enumerate(values):
        at = {t: won.get((index, t)) for t in range(-most, most + 1)}
        if value is None:
            assert at[most] is None, index
            continue
        tempi, bound = value
        least = -most if tempi == -math.inf else tempi
        assert at[least] is not None and at[least] <= bound, index
        assert tempi == -math.inf or tempi == -most or at[tempi - 1] is None, index
    counted = [value[0] for value in values if value is not None]
    assert any(t >= 1 for t in counted) and any(-math.inf < t < 0 for t in counted)
    am, pcp, kcp = (library(chess.WHITE, files, variant, **rules) for variant in ("AM", "PCP", "KCP"))
    for value, no_pass, passes, defended in zip(values, am, pcp, kcp):
        assert (value is not None and value[0] <= 0) == (no_pass is not None)
        assert (value is None) == (passes is None)
        assert value is None or value[0] > -math.inf or defended is not None


def test_a_tempo_library_is_kept_on_disk_and_read_back_equal(monkeypatch, tmp_path):
    """Level 9's tempo libraries are solved once and kept in the cache: a process that has not
    solved one reads it from there, equal value for value (wins whatever the defender spares,
    counts either way, instances held), and a library of other rules is another file."""
    monkeypatch.setenv("SUPREM_CACHE", str(tmp_path))
    files = (0, 1, 2)
    tempo_library.cache_clear()
    try:
        solved = tempo_library(chess.WHITE, files)
        path = tempo_path(chess.WHITE, files)
        assert path.is_file() and path.parent == tmp_path / "chunker"
        assert path != tempo_path(chess.WHITE, files, confined=_FILES_A_TO_C)
        tempo_library.cache_clear()                 # as a new process finds it
        read = tempo_library(chess.WHITE, files)
    finally:
        tempo_library.cache_clear()                 # the other tests' cache keeps its own
    assert read is not solved and read == solved
    counts = {value[0] for value in read if value is not None}
    assert None in read and -math.inf in counts and 0 in counts
    assert any(t >= 1 for t in counts) and any(-math.inf < t < 0 for t in counts)


def _beside_a_count(files, rules, most):
    """``{(index, t): plies}``: the attacker's wins of White's chunk on ``files`` under level 9's
    ``rules`` played beside ``t`` passes to spare (``t`` > 0 the attacker's, ``t`` < 0 the
    defender's; a defender may pass only with a move and not in check, an attacker not with the
    defender's king in the refuge), from -``most`` to ``most``, with the plies of the fastest
    win: a retrograde pass over the pairs, written apart from the library's."""
    chunk, refuge = Chunk(chess.WHITE, files), rules.get("refuge", 0)
    moves = {}
    for index, kind, children in _ruled_moves(files, "AM", rules):
        if index % 2 == ATTACKER and not refuge >> index // 2 % 64 & 1:
            moves[index] = kind, children, -1 if kind in ("moves", "held") else None
        elif index % 2 == DEFENDER and kind == "moves" and not chunk.in_check(index):
            moves[index] = kind, children, +1
        else:
            moves[index] = kind, children, None
    parents, remaining, frontier = collections.defaultdict(list), {}, collections.defaultdict(list)
    for index, (kind, children, pass_step) in moves.items():
        for t in range(-most, most + 1):
            node = index, t
            edges = [(step, (child, t)) for step, child in children if child != "win"]
            if pass_step == -1 and t >= 1:
                edges.append((1, (index + 1, t - 1)))
            if pass_step == +1 and t <= -1:
                edges.append((1, (index - 1, t + 1)))
            for step, child in edges:
                parents[child].append((node, step))
            if kind == "mate":
                frontier[0].append(node)
            elif index % 2 == ATTACKER and any(child == "win" for _, child in children):
                frontier[1].append(node)
            remaining[node] = len(edges) if index % 2 == DEFENDER and kind == "moves" else None
    won, latest = {}, collections.Counter()
    while frontier:
        distance = min(frontier)
        for node in frontier.pop(distance):
            if node in won:
                continue
            won[node] = distance
            for parent, step in parents[node]:
                if parent in won:
                    continue
                if parent[0] % 2 == ATTACKER:
                    frontier[distance + step].append(parent)
                elif remaining[parent] is not None:         # a defender with moves: when all lose
                    remaining[parent] -= 1
                    latest[parent] = max(latest[parent], distance + step)
                    if remaining[parent] == 0:
                        frontier[latest[parent]].append(parent)
    return won


def test_passing_helps_whoever_may_pass():
    am, kcp, pcp = (library(chess.WHITE, (0, 1, 2), v) for v in ("AM", "KCP", "PCP"))
    # the king's side passing can only delay or stop the pawns; the pawns' side passing only help them
    assert all(k is None or (a is not None and k >= a) for a, k in zip(am, kcp))
    assert all(a is None or (p is not None and p <= a) for a, p in zip(am, pcp))
    assert sum(k is None for k in kcp) > sum(a is None for a in am)


@pytest.mark.parametrize("domain", [TWO, Domain((0, 1, 2), (7,))], ids=lambda d: d.name())
def test_schemas_agree_with_the_database(domain):
    """Every position each schema classifies, on a seeded sample, has the database's result, and
    each win it sees is no longer than its bound."""
    db = open_database(domain, quiet=True)
    rng = random.Random(19)
    classified, checked = collections.Counter(), 0
    while checked < 3000:
        index = rng.randrange(domain.size)
        value = db.value_at(index)
        if value == INVALID:
            continue
        checked += 1
        board = domain.board(index)
        for level, schema in SCHEMAS.items():
            result = schema(domain, board)
            if result is not None:
                classified[level] += 1
                assert agrees(result, value, board.turn), (board.fen(), level, result, describe(value))
    # level 10 breaks level 9's ties, which need three pawns a side: test_level_10_breaks_level_9s_ties
    assert classified[1] > checked // 4 and classified[2] > checked // 4 and set(classified) == set(SCHEMAS) - {10}, \
        classified


def test_a_wins_moves_are_the_least_bound_exact_where_one_side_has_no_pawns(two):
    """Where one side's pawns are all gone, level 3's library is exact, and a win that an earlier
    level decides takes level 3's moves: the database's distance (the hand-off's moves go
    straight to the promotion, not round a looser bound)."""
    rng, checked = random.Random(23), 0
    while checked < 300:
        index = rng.randrange(TWO.size)
        value = two.value_at(index)
        board = TWO.board(index)
        if value in (DRAW, INVALID) or all(any(TWO.codes(board, colour)) for colour in chess.COLORS):
            continue
        level, result = classify(TWO, board)
        if not isinstance(result, Wins):
            continue
        checked += 1
        assert result.moves == (plies(value) + 1) // 2, (board.fen(), level, result, describe(value))


def test_passing_domain():
    with pytest.raises(ValueError, match="only a side with no pawns"):
        Domain((0,), (7,), defender_passes=True)
    alone = Domain((0, 1), (), defender_passes=True)
    db = open_database(alone, quiet=True)
    rng = random.Random(5)
    assert verify(db, [rng.randrange(alone.size) for _ in range(3000)]) == []
    # a pass is a move of the bare king's side (not in check, with a king move)
    board = chess.Board("8/8/8/4k3/8/8/P7/K7 b - - 0 1")
    assert chess.Move.null() in dict(alone.children(board))
    assert chess.Move.null() not in dict(alone.children(chess.Board("8/8/8/4k3/8/8/P7/K7 w - - 0 1")))


def test_waiting_domain():
    """The library of level 5: the bare king may not stand on its barred files and passes only when
    its king has no move (not in check)."""
    with pytest.raises(ValueError, match="one of them"):
        Domain((), (7,), defender_passes=True, defender_waits=True)
    with pytest.raises(ValueError, match="only a side with no pawns"):
        Domain((0,), (7,), defender_barred=(1,))
    held = Domain((), (6, 7), defender_waits=True, defender_barred=(1,))
    db = open_database(held, quiet=True)
    rng = random.Random(8)
    assert verify(db, [rng.randrange(held.size) for _ in range(3000)]) == []
    with pytest.raises(OutsideDomain, match="barred"):
        held.index(chess.Board("8/6p1/8/8/8/8/6k1/1K6 w - - 0 1"))
    # White's king on a1: b1 and b2 barred, a2 the black king's: stuck, so it passes
    stuck = chess.Board("8/6p1/8/8/8/1k6/8/K7 w - - 0 1")
    assert [move for move, _ in held.children(stuck)] == [chess.Move.null()]
    # with a move it may not pass; and Black, the pawns' side, never does
    assert chess.Move.null() not in dict(held.children(chess.Board("8/6p1/8/8/4k3/8/8/2K5 w - - 0 1")))
    assert chess.Move.null() not in dict(held.children(chess.Board("8/6p1/8/8/4k3/8/8/2K5 b - - 0 1")))


def test_waiting_side_with_a_pawn():
    """The library of level 6: a side with pawns named to defend waits (passes only when not in
    check and without any move, its pawn's included) and its king is barred from the files of
    its pawns left out; exact against python-chess's moves."""
    with pytest.raises(ValueError, match="not pass at will"):
        Domain((0,), (6, 7), defender_colour=chess.WHITE, defender_passes=True)
    with pytest.raises(ValueError, match="not from its own"):
        Domain((0,), (6, 7), defender_colour=chess.WHITE, defender_waits=True, defender_barred=(0,))
    kept = Domain((0,), (6, 7), defender_colour=chess.WHITE, defender_waits=True, defender_barred=(1,))
    assert kept.defender == chess.WHITE and kept.name() == "a-vs-gh-white-waiting-barred-b"
    db = open_database(kept, quiet=True)
    rng = random.Random(10)
    assert verify(db, [rng.randrange(kept.size) for _ in range(3000)]) == []
    # White's king on a1: b1 and b2 barred, a2 its pawn's, which the black king on a3 blocks — no
    # move at all, so it passes
    stuck = chess.Board("8/6p1/8/8/8/k7/P7/K7 w - - 0 1")
    assert [move for move, _ in kept.children(stuck)] == [chess.Move.null()]
    # with a pawn move it may not pass
    assert chess.Move.null() not in dict(kept.children(chess.Board("8/6p1/8/8/8/2k5/P7/K7 w - - 0 1")))
    with pytest.raises(OutsideDomain, match="barred"):
        kept.index(chess.Board("8/6p1/8/8/8/2k5/P7/1K6 w - - 0 1"))


def test_frozen_domain():
    """The library of level 4: the bare king never moves (mated when in check), and every
    promotion against it is safe."""
    frozen = Domain((), (6, 7), defender_frozen=True)
    db = open_database(frozen, quiet=True)
    rng = random.Random(9)
    assert verify(db, [rng.randrange(frozen.size) for _ in range(3000)]) == []
    board = chess.Board("8/8/8/8/8/8/5Kp1/3k4 b - - 0 1")        # g1=Q beside the king: safe here
    assert dict(frozen.children(board))[chess.Move.from_uci("g2g1q")] == "win"
    assert [move for move, _ in frozen.children(chess.Board("8/8/8/8/8/8/5Kp1/3k4 w - - 0 1"))] == [chess.Move.null()]
    # ...h3, a pass, ...h2, a pass, ...h1=Q: the fifth ply (g3 would check, but the pawn is on h)
    assert db.value(chess.Board("8/8/8/8/7p/8/5K2/3k4 b - - 0 1")) == 5
    # ...g3 checks the king, which may not move: mated
    assert db.value(chess.Board("8/8/8/8/6p1/8/5K2/3k4 b - - 0 1")) == 1


@pytest.mark.parametrize("fen, winner, plies", [
    ("k1K5/8/6p1/8/7p/8/PP6/8 w - - 0 1", chess.BLACK, 6),  # h3-h2-h1; b7 would check the a8 king a move late
    ("6k1/8/6p1/1P6/8/8/8/5K2 b - - 0 1", chess.WHITE, 6),  # b6-b7-b8; g2 would check the f1 king a move late
])
def test_level_4_outruns_a_king_held_up(two, fen, winner, plies):
    """Positions levels 1-3 do not decide (the racing side's king stands where the other side's
    pawns will attack it): level 4 counts the other side's moves to that check and decides, and
    the search proves the result in fewer nodes with it."""
    board = chess.Board(fen)
    assert describe(two.value(board)) == f"loss in {plies}"
    assert classify(TWO, board, levels=[1, 2, 3]) == (None, None)
    assert classify(TWO, board) == (4, Wins(winner, plies // 2))
    with_level, without = solve(board, TWO, max_nodes=20_000), solve(board, TWO, levels=[1, 2, 3], max_nodes=20_000)
    assert with_level.value == without.value == -1 and with_level.total < without.total


@pytest.mark.parametrize("fen, result", [
    ("8/8/Pk6/6p1/8/1P5K/8/8 w - - 0 1", DRAWN),          # each king stops the other's pawn
    ("k7/7p/8/1P3K2/8/8/8/8 w - - 0 1", Holds(chess.WHITE)),   # White's king takes the h-pawn
    ("8/3k4/6p1/3K4/P7/8/8/8 w - - 0 1", Holds(chess.BLACK)),
])
def test_level_5_bounds_drawn_positions(two, fen, result):
    """Drawn positions where levels 1-4 say nothing: level 5 proves one side or both do not lose,
    and the search proves the draw with it in a fraction of the nodes it takes without (or that
    it cannot prove within the budget)."""
    board = chess.Board(fen)
    assert two.value(board) == DRAW
    assert classify(TWO, board, levels=[1, 2, 3, 4]) == (None, None)
    assert holds(TWO, board) == result
    with_level, without = solve(board, TWO, max_nodes=20_000), solve(board, TWO, levels=[1, 2, 3, 4], max_nodes=20_000)
    assert with_level.value == 0 and (without.value is None or without.total > 2 * with_level.total)


@pytest.mark.parametrize("fen", [
    "8/6p1/4k2p/8/8/P7/1P4K1/8 w - - 0 1",
    "k7/8/8/1P4pp/P7/8/8/6K1 b - - 0 1",
])
def test_level_7_draws_where_a_king_holds_with_both_pawns(two, fen):
    """Drawn positions of two pawns a side that levels 1-6 neither decide nor bound: each king
    holds only with both its pawns beside it, so level 7 decides the draw, and the search proves it
    at once where without level 7 it cannot within 5,000 nodes."""
    board = chess.Board(fen)
    assert two.value(board) == DRAW
    assert classify(TWO, board, levels=range(1, 7)) == (None, None)
    assert pair(TWO, board) == DRAWN
    with_level, without = solve(board, TWO, max_nodes=5_000), solve(board, TWO, levels=range(1, 7), max_nodes=5_000)
    assert with_level.value == 0 and with_level.total < 100 and without.value is None


def test_leaving_domain():
    """The library of level 8: the named side's king keeps off the files of its pawns left out (it
    never passes); the other side, not in check, with no pawn move and its king's moves all onto
    the reach (those files and the files beside them), is stalemated; exact against
    python-chess's moves."""
    with pytest.raises(ValueError, match="never passes"):
        Domain((0,), (6, 7), defender_colour=chess.WHITE, defender_waits=True, defender_reach=(0, 1, 2))
    leaving = Domain((1,), (6, 7), defender_colour=chess.WHITE, defender_barred=(0,), defender_reach=(0, 1))
    assert leaving.name() == "b-vs-gh-white-barred-a-reach-ab"
    db = open_database(leaving, quiet=True)
    rng = random.Random(11)
    assert verify(db, [rng.randrange(leaving.size) for _ in range(3000)]) == []
    # Black's king on a8, its pawns gone: its one move, Ka7, onto the reach: stalemated, where the
    # same game without the reach has White win in 6
    cornered = chess.Board("k7/2K5/8/1P6/8/8/8/8 b - - 0 1")
    assert leaving.children(cornered) == [] and db.value(cornered) == DRAW
    reachless = Domain((1,), (6, 7), defender_colour=chess.WHITE, defender_barred=(0,))
    assert describe(open_database(reachless, quiet=True).value(cornered)) == "loss in 6"
    # with a pawn it has a pawn move; from c8 a move off the reach; in check it is not stalemated
    assert leaving.children(chess.Board("k7/2K3p1/8/1P6/8/8/8/8 b - - 0 1"))
    assert leaving.children(chess.Board("2k5/8/8/1P6/8/8/8/7K b - - 0 1"))
    assert leaving.children(chess.Board("k7/1P6/8/8/8/8/8/7K b - - 0 1"))


@pytest.mark.parametrize("fen, winner, plies", [
    ("8/8/6pp/P2k4/1P6/8/K7/8 b - - 0 1", chess.BLACK, 17),    # the king stops both pawns, h runs; g never moves
    ("8/8/PP6/6p1/5K1k/7p/8/8 w - - 0 1", chess.WHITE, 15),    # the king stops both pawns, b runs; a never moves
])
def test_level_8_wins_with_a_pawn_left_out(two, fen, winner, plies):
    """Wins that levels 1-7 neither decide nor bound as such: the winner wins keeping one pawn and
    never moving the other, so level 8 decides them at the root, where the search without it needs
    hundreds of nodes (702 for the second) or does not finish within 5,000."""
    board = chess.Board(fen)
    assert describe(two.value(board)) == f"win in {plies}"
    level, result = classify(TWO, board, levels=range(1, 8))
    assert not isinstance(result, Wins) and result != DRAWN
    assert classify(TWO, board) == (8, Wins(winner, (plies + 1) // 2))
    with_level, without = solve(board, TWO, max_nodes=5_000), solve(board, TWO, levels=range(1, 8), max_nodes=5_000)
    assert with_level.value == 1 and with_level.total < 10
    assert without.value is None or without.total > 500


@pytest.mark.parametrize("fen, winner, value, moves", [
    ("8/8/8/8/P6p/1P4p1/8/1k5K w - - 0 1", chess.WHITE, "win in 13", 9),       # Kh1 shuffles; Kb1 must go
    ("7K/8/k6p/8/1P6/8/P7/8 b - - 0 1", chess.BLACK, "win in 15", 15),          # Ka6 shuffles; Kh8 must go
    ("7K/8/Pk5p/6p1/1P6/8/8/8 w - - 0 1", chess.BLACK, "loss in 12", 10),       # Kb6 holds; White to move
])
def test_level_9_wins_the_tempo_battle_of_a_king_with_moves_to_spare(two, fen, winner, value, moves):
    """Tempo battles that levels 1-8 only bound: the winner's king holds the other side's pawns
    with a move always to spare, and the other king, held in front of the winner's pawns, must
    move and give way. Level 9 decides them at the root (its bound no shorter than the database's
    win), where the search without it needs a thousand nodes or more."""
    board = chess.Board(fen)
    assert describe(two.value(board)) == value
    assert not isinstance(classify(TWO, board, levels=range(1, 9))[1], Wins)
    assert zugzwang(TWO, board) == Wins(winner, moves)
    assert agrees(Wins(winner, moves), two.value(board), board.turn)
    with_level, without = solve(board, TWO, max_nodes=5_000), solve(board, TWO, levels=range(1, 9), max_nodes=5_000)
    assert with_level.value == without.value == (1 if winner == board.turn else -1)
    assert with_level.total < 20 and without.total > 1_000


@pytest.mark.parametrize("fen, winner, moves", [
    ("8/8/k7/2P2p2/6p1/PP6/6Kp/8 b - - 0 1", chess.BLACK, 19),        # the database: a win in 15
    ("8/2Pk1p1p/6p1/1P6/P7/4K3/8/8 w - - 0 1", chess.WHITE, 23),      # the database: a win in 13
])
def test_level_9_without_waiting_where_the_holding_king_has_no_move_to_spare(monkeypatch, fen, winner, moves):
    """Wins of the paper's domain (values from its exact database, which levels 1-8 do not decide)
    where the winner's king holds the other side's pawns only by answering their moves: running
    wins without a pass and holding is held against none. Asked to hold against passes without
    end — as where its king has a move always to spare — it is not: the tempi are counted."""
    board = chess.Board(fen)
    assert zugzwang(PAPER, board) == Wins(winner, moves)

    def any_pass_wins(colour, files, *, confined=None, refuge=0):
        values = tempo_library(colour, files, confined=confined, refuge=refuge)
        return values if confined is None else [None if value is None else (-math.inf, value[1]) for value in values]

    monkeypatch.setattr(schemas, "tempo_library", any_pass_wins)
    assert zugzwang(PAPER, board) is None


def test_level_9_lets_the_other_king_stand_behind_its_pawns(two):
    """The other king may stand anywhere but next to the holding king's region and on or in front
    of its own pawns: here White's king on b1, behind its b-pawn, cannot stop Black's h-pawn nor
    help the b-pawn past Black's king in time. Levels 1-8 only bound it; level 9 decides it. With
    the b-pawn on b2, though, running's king could step onto the pawn's square, which the board
    does not allow (a move fewer than the game's: a stalemate the game would not see), so the
    pawn's path is a refuge and the proof is refused."""
    board = chess.Board("8/8/1Pk5/7p/8/8/8/1K6 b - - 0 1")
    assert describe(two.value(board)) == "win in 9"
    assert not isinstance(classify(TWO, board, levels=range(1, 9))[1], Wins)
    assert zugzwang(TWO, board) == Wins(chess.BLACK, 6)
    assert zugzwang(TWO, chess.Board("8/8/2k5/7p/8/8/1P6/1K6 b - - 0 1")) is None


_JOINT_REGION = chess.BB_FILE_A | chess.BB_FILE_B | chess.BB_FILE_C


@pytest.mark.parametrize("floors", [(2, 2, 1, 3), (0, 4, 2, 0)])
def test_joint_game_is_the_board_with_its_two_rules_and_its_wins_are_the_boards(two, floors):
    """A joint game of level 10 (Black's king kept to a-c, White's in refuge on a-d): its solved
    values are one ply of minimax over python-chess's moves under its two rules (``verify``, on a
    seeded sample), the configurations below its floors are not solved (invalid), and every
    position it counts won for Black is won for Black on the board, no later (the exact database;
    each fails where White's king in the refuge counts as Black's win: tried)."""
    game = Domain(TWO.white_files, TWO.black_files, floors=floors, joint_colour=chess.BLACK,
                  joint_region=_JOINT_REGION, joint_refuge=_JOINT_REGION | chess.BB_FILE_D)
    db = open_database(game, quiet=True)
    rng = random.Random(29)
    sample = []
    while len(sample) < 4000:
        index = rng.randrange(game.size)
        if game.allows_config(index // 8192) or len(sample) % 4 == 0:
            sample.append(index)
    assert verify(db, sample) == []
    assert all(db.block(config) == bytes([INVALID]) * 8192 for config in range(game.configs)
               if not game.allows_config(config))
    won, disagreements = joint_wins(two, db)
    assert won > 5_000 and [TWO.board(index).fen() for index in disagreements] == []


@pytest.mark.parametrize("fen, moves", [
    ("8/8/1k6/5ppp/P1P5/1P6/6K1/8 b - - 0 1", 20),        # CH.001's ply 21: the database, a win in 39 plies
    ("2k5/8/8/2P5/P4ppp/1P6/6K1/8 w - - 0 1", 15),        # its ply 30: a loss in 30 plies
])
def test_level_10_breaks_level_9s_ties(fen, moves):
    """Positions of the longest win of the paper's domain where level 9's counts tie: Black's pawns
    need one move to spare beating White's king, and White's pawns, held by Black's king, one to
    break through. No count tells who wins; the two games played as one do (Black, in the
    database's moves), where levels 1 to 9 do not."""
    board = chess.Board(fen)
    assert any(game.joint_colour == chess.BLACK for game in joint_games(PAPER, board))     # Black's counts tie
    assert not isinstance(classify(PAPER, board, levels=range(1, 10))[1], Wins)
    assert joint(PAPER, board) == Wins(chess.BLACK, moves)


def test_a_search_shares_level_10s_tables_between_its_positions(monkeypatch):
    """Within a search from CH.001's ply 21 (``joint_tables_from``), the table level 10 builds for
    its ply 30 has its floors lowered to ply 21's pawns; so it also decides ply 21, with no table
    of its own and the same wins as tables of their own give. Outside a search each position's
    table starts at its own pawns."""
    monkeypatch.setattr(schemas, "_joint_tables", {})
    root = chess.Board("8/8/1k6/5ppp/P1P5/1P6/6K1/8 b - - 0 1")
    later = chess.Board("2k5/8/8/2P5/P4ppp/1P6/6K1/8 w - - 0 1")
    codes = PAPER.codes(later, chess.WHITE) + PAPER.codes(later, chess.BLACK)
    assert schemas._joint_floors(PAPER, codes, chess.BLACK) == [(3, 2, 4, 4, 4, 4)]
    with schemas.joint_tables_from(PAPER, root):
        assert schemas._joint_floors(PAPER, codes, chess.BLACK) == [
            (3, 2, 3, 3, 3, 3),         # ply 21's pawns: 18,750 configurations
            (3, 2, 4, 3, 3, 3),         # Black's alone (White's lowered widen the refuge)
            (3, 2, 4, 4, 4, 4)]         # ply 30's own
        assert joint(PAPER, later) == Wins(chess.BLACK, 15)
        assert [game.floors for game in itertools.chain(*schemas._joint_tables.values())] == [(3, 2, 3, 3, 3, 3)]
        assert joint(PAPER, root) == Wins(chess.BLACK, 20)
        assert joint_games_open() == 1


def test_level_9_asks_its_king_to_keep_to_its_region_and_the_other_king_out_of_reach():
    """Level 9's proof needs the kings apart: the holding king on the files of the pawns it holds
    (or one beside them), the other king off those and the file beside them. The first position
    is decided; with the holding king moved off its region, or the other king brought next to it,
    it is not."""
    assert zugzwang(TWO, chess.Board("8/8/8/8/P6p/1P4p1/8/1k5K w - - 0 1")) == Wins(chess.WHITE, 9)
    assert zugzwang(TWO, chess.Board("8/8/8/8/P6p/1P4p1/8/1k2K3 w - - 0 1")) is None     # Ke1: off f-h
    assert zugzwang(TWO, chess.Board("8/8/8/8/P6p/1P4p1/8/4k2K w - - 0 1")) is None     # Ke1: next to f


def test_king_areas_follow_a_winning_strategy():
    """A won state's area holds its king's square and the area of a winning move (the attacker to
    move) or of every defence (the defender to move)."""
    alone = Domain((0, 1), (), defender_passes=True)
    db = open_database(alone, quiet=True)
    rng = random.Random(6)
    checked = 0
    while checked < 300:
        index = rng.randrange(alone.size)
        value = db.value_at(index)
        board = alone.board(index)
        if value in (INVALID, DRAW) or (value < LOSS) != (board.turn == chess.WHITE):
            continue
        checked += 1
        area = db.area_at(index)
        assert area & chess.BB_SQUARES[board.king(chess.WHITE)]
        areas = [0 if outcome == "win" else db.area_at(alone.index(outcome[1]))
                 for _, outcome in alone.children(board)]
        if board.turn == chess.WHITE:
            assert any(a & ~area == 0 for a in areas)
        else:
            assert all(a & ~area == 0 for a in areas)


def test_race_needs_a_king_off_the_paths():
    """White's a-pawn runs (win in 9) but its own king stands on a5, in its path: no race (level
    2, where the king may step aside, sees the win)."""
    board = chess.Board("8/8/8/K7/8/8/P5k1/8 w - - 0 1")
    assert classify(ONE, board, levels=[1]) == (None, None)
    assert classify(ONE, board) == (2, Wins(chess.WHITE, 6))   # its strategy: a move more than the exact 5
    board = chess.Board("8/8/8/8/8/8/P5k1/1K6 w - - 0 1")
    assert classify(ONE, board, levels=[1]) == (1, Wins(chess.WHITE, 5))


@pytest.mark.parametrize("fen", [
    "2k5/8/8/2K5/P7/1P4p1/8/8 w - - 0 1",        # lost in 4
    "2k5/8/P7/8/7p/5Kp1/8/8 b - - 0 1",          # won in 25
    "4K3/1k5p/8/8/P5p1/8/1P6/8 w - - 0 1",       # lost in 8
    "8/7p/P3k3/6p1/8/1P5K/8/8 b - - 0 1",        # lost in 6
])
def test_search_finds_the_database_result(two, fen):
    board = chess.Board(fen)
    value = two.value(board)
    solution = solve(board, TWO, max_nodes=50_000)
    assert solution.value == (1 if 0 < value < LOSS else -1)
    assert solution.nodes["interior"] > 1 and any(solution.nodes[f"level {level}"] for level in SCHEMAS)
    for move in solution.line:                  # a legal line to what decided it
        assert move in board.legal_moves
        board.push(move)
    assert solution.ending in ("promotion", "mate") or solution.ending.startswith("level ")
    if solution.ending.startswith("level "):
        level, result = classify(TWO, board)
        assert level == int(solution.ending.split()[1])
        assert result.colour == (board.turn if solution.value * (-1) ** len(solution.line) > 0 else not board.turn)


def test_proofs_win_the_game_against_the_best_defence(two):
    """CHUNKER's proof's first move, played each turn as the engine's hand-off plays it, against
    the exact database's longest defence (``play_out``): every seeded won position it proves at
    the start stays proved and ends in a safe promotion, no position standing three times, in at
    most twice the database's plies. (A proof keeps a won position won; only the schemas' bounds
    on their wins, the proof's move order and the positions to avoid make it go forward.)"""
    rng, played = random.Random(11), 0
    while played < 12:
        index = rng.randrange(TWO.size)
        value = two.value_at(index)
        if not 9 <= value < LOSS or solve(TWO.board(index), TWO, max_nodes=5_000).value != 1:
            continue
        played += 1
        ending, length = play_out(two, TWO.board(index))
        assert ending == "won" and length <= 2 * value, (TWO.board(index).fen(), describe(value), ending, length)


def test_visited_names_the_games_positions_since_its_last_pawn_move_mirrored_as_placed():
    """Black's b-pawn against White's king, placed mirrored (the g-pawn): the positions with White
    to move since the pawn's step (the one it made included) are visited, in the mirrored
    domain; the one on the board (Black to move) is not."""
    game = chess.Board("8/8/8/1K6/1p6/2k5/8/8 b - - 0 1")
    for uci in ("b4b3", "b5a4", "c3c2", "a4a3", "c2c3", "a3a4"):
        game.push_uci(uci)
    inside, mirrored = place(game)
    stood = ("8/8/8/1K6/8/1pk5/8/8 w - - 0 1", "8/8/8/8/K7/1p6/2k5/8 w - - 0 1", "8/8/8/8/8/Kpk5/8/8 w - - 0 1")
    assert mirrored and visited(game, mirrored) == {PAPER.index(chess.Board(fen).transform(chess.flip_horizontal))
                                                    for fen in stood}
    assert PAPER.index(inside) not in visited(game, mirrored)


def test_search_without_schemas_needs_more_nodes():
    """And a search tells its progress after each depth that proved nothing: every such depth, in
    order, with the nodes searched so far."""
    board = chess.Board("4K3/1k5p/8/8/P5p1/8/1P6/8 w - - 0 1")
    with_schemas = solve(board, TWO, max_nodes=200_000)
    told = []
    without = solve(board, TWO, levels=(), max_nodes=200_000, progress=lambda *said: told.append(said))
    assert with_schemas.value == without.value == -1
    assert with_schemas.total < without.total
    depths, nodes = zip(*told)
    assert list(depths) == list(range(1, without.depth)) and list(nodes) == sorted(set(nodes))
    assert 0 < nodes[-1] < without.nodes["interior"] + without.nodes["horizon"]


def test_killer_goes_first_among_the_moves_nothing_is_known_of():
    """The move that last decided a node with as many plies left is tried before the others that
    the table and the schemas know nothing of, and a decided node leaves its move as the killer."""
    from host.chunker.search import _Search

    board = chess.Board("4K3/1k5p/8/8/P5p1/8/1P6/8 w - - 0 1")
    search = _Search(TWO, None, 10_000)
    plain = [move for move, _, _ in search._ordered(board, "win")]
    earlier = 0
    for killer in plain:
        ordered = [move for move, _, _ in search._ordered(board, "win", killer=killer)]
        assert set(ordered) == set(plain) and ordered.index(killer) <= plain.index(killer)
        earlier += ordered.index(killer) < plain.index(killer)
    assert earlier >= 2
    search = _Search(TWO, range(1, 9), 10_000)               # a tempo battle levels 1-8 do not decide
    board = chess.Board("7K/8/Pk5p/6p1/1P6/8/8/8 w - - 0 1")
    assert search.prove("loss", board, 8, root=True)
    assert board.color_at(search.killers[7].from_square) == chess.BLACK     # Black's, at the root's children
    assert board.color_at(search.killers[6].from_square) == chess.WHITE     # a White move refuted, two plies down


def test_search_proves_a_draw_where_every_line_is_decided():
    """The rook pawn's corner draw (Black's pawns all gone: level 3's library decides every
    child), and a position a capture leads into it."""
    for fen in ("k7/2K5/P7/8/8/8/8/8 w - - 0 1", "k7/2K5/P7/8/8/8/8/8 b - - 0 1"):
        solution = solve(chess.Board(fen), ONE, max_nodes=10_000)
        assert solution.value == 0 and solution.nodes["level 3"] > 0
        assert open_database(ONE, quiet=True).value(chess.Board(fen)) == DRAW


def test_failures_kept_for_good_and_proofs_agree_with_the_database(two):
    """A goal that failed with every line decided (no horizon met) is kept as failed at every
    depth (``EXACT``) and never searched again, and it proves its complement (a win's failure
    so kept, that the side does not win): on seeded positions and all four goals, every such
    failure and every proof is true by the exact database (a win not there, a loss not there, a
    draw's half failed only where the side loses or wins), and the root's goal once so failed
    stays closed; a failure that met the horizon stays open."""
    from host.chunker.search import EXACT, OutOfNodes, _Search
    rng, kept, proved = random.Random(11), collections.Counter(), collections.Counter()
    failed_by = {"win": lambda value: not is_win(value), "loss": lambda value: not is_loss(value),
                 "notloss": is_loss, "notwin": is_win}
    for _ in range(40):
        index = rng.randrange(TWO.size)
        if not TWO.valid(index):
            continue
        search = _Search(TWO, None, 3_000)
        board = TWO.board(index)
        for goal in failed_by:
            for depth in (2, 4, 6):
                try:
                    search.prove(goal, board, depth, root=True)
                except OutOfNodes:                  # what failed so far still counts
                    break
        for (position, goal), depth in search.failed.items():
            if depth == EXACT and TWO.valid(position):
                kept[goal] += 1
                assert failed_by[goal](two.value_at(position)), (TWO.board(position).fen(), goal)
        for position, goal in search.proved:
            if TWO.valid(position):
                proved[goal] += 1
                assert failed_by[_Search.COMPLEMENTS[goal]](two.value_at(position)), (TWO.board(position).fen(), goal)
    assert all(kept[goal] > 0 and proved[goal] > 0 for goal in failed_by), (kept, proved)
    search, board = _Search(ONE, None, 10_000), chess.Board("k7/2K5/P7/8/8/8/8/8 w - - 0 1")
    assert not search.prove("win", board, 1, root=True) and not search.may_hold("win", ONE.index(board))
    count = search.count
    assert not search.prove("win", board, 9) and search.count == count and search.nodes["table"] == 1
    search, board = _Search(TWO, None, 10_000), chess.Board("2k5/8/P7/8/7p/5Kp1/8/8 b - - 0 1")
    assert not search.prove("win", board, 1, root=True) and search.may_hold("win", TWO.index(board))


def test_built_only_builds_no_database_and_libraries_name_all_the_schemas_ask(monkeypatch, tmp_path):
    """Under ``built_only`` an empty cache gets no database: only levels 1 and 9 (their chunk games
    are solved in the process; level 9's tempo libraries are kept in the cache as it asks them,
    each one that ``tempo_libraries`` names) and level 5 where it needs no database classify, and
    the search proves nothing false. Once ``libraries`` are built (``suprem chunker --prepare``),
    every schema answers under ``built_only`` as it does when it builds what it asks: so they are
    all a schema asks."""
    monkeypatch.setenv("SUPREM_CACHE", str(tmp_path))
    monkeypatch.setattr(schemas, "tempo_library", functools.lru_cache(tempo_library.__wrapped__))    # none kept yet
    domain = Domain((1,), (6,))                     # b against g: asked by no other test
    assert unbuilt(domain) == libraries(domain) and len(libraries(domain)) == 12
    rng, boards = random.Random(23), []
    while len(boards) < 1500:
        index = rng.randrange(domain.size)
        if domain.valid(index):
            boards.append(domain.board(index))
    with built_only():
        with pytest.raises(NotBuilt):
            open_database(libraries(domain)[0])
        bare = [classify(domain, board) for board in boards]
        race = chess.Board("8/8/8/8/6p1/1P6/8/k3K3 w - - 0 1")
        solution = solve(race, domain, max_nodes=3_000)
    assert not any((tmp_path / "chunker").glob("*.db"))
    asked = {path.name for path in (tmp_path / "chunker").glob("tempi-*.npz")}     # level 9's, made as it asked
    named = {tempo_path(colour, files, **rules).name for colour, files, rules in tempo_libraries(domain)}
    assert asked and asked <= named
    assert {level for level, _ in bare} <= {None, 1, 5, 9}  # level 5: where a side has no pawns to fear
    assert solution.value in (None, _exact_result(domain, race))
    for library_domain in libraries(domain):
        build(library_domain)
    assert unbuilt(domain) == [] and len(unmade_tempo_libraries(domain)) == len(tempo_libraries(domain)) - len(asked)
    with built_only():
        prepared = [classify(domain, board) for board in boards]
    assert prepared == [classify(domain, board) for board in boards]
    assert {level for level, _ in prepared} >= {1, 2, 3, 4, 5}, collections.Counter(level for level, _ in prepared)
    assert {path.name for path in (tmp_path / "chunker").glob("*.db")} == \
        {database_path(library_domain).name for library_domain in [domain, *libraries(domain)]}    # domain's own: above


def _exact_result(domain, board):
    """The database's result (1, 0, -1) for the side to move."""
    value = open_database(domain, quiet=True).value(board)
    return 0 if value == DRAW else 1 if value < LOSS else -1


def test_a_stop_ends_the_search_as_its_budget_would():
    asked = []

    def stop():
        asked.append(True)
        return len(asked) >= 3
    solution = solve(chess.Board("4K3/1k5p/8/8/P5p1/8/1P6/8 w - - 0 1"), TWO, levels=(), max_nodes=200_000, stop=stop)
    assert solution.value is None and len(asked) == 3
    assert solution.nodes["interior"] + solution.nodes["horizon"] <= 3 * 64


def test_search_never_proves_a_drawn_position_won_or_lost():
    """A drawn position where both sides keep pawns and no schema of levels 1-6 decides: within the
    budget the search with those levels proves the draw or nothing, never a win or a loss (level
    7 decides almost every drawn position of this domain, leaving the search nothing to do)."""
    db = open_database(TWO, quiet=True)
    rng, levels = random.Random(4), range(1, 7)
    while True:
        index = rng.randrange(TWO.size)
        board = TWO.board(index)
        if db.value_at(index) == DRAW and classify(TWO, board, levels)[0] is None and \
                board.pieces(chess.PAWN, chess.WHITE) and board.pieces(chess.PAWN, chess.BLACK):
            break
    assert solve(TWO.board(index), TWO, max_depth=8, levels=levels, max_nodes=20_000).value in (None, 0)


# -- the command line ------------------------------------------------------------------------

def test_cli_solves_and_mirrors(capsys):
    from host.cli import main
    fen = "8/8/P4p2/6p1/7p/1kP5/1P5K/8 b - - 0 1"        # White wins: 1...Kc4 2. a7 Kd5 3. a8=Q+
    assert main(["chunker", fen, "--no-database"]) == 0
    out = capsys.readouterr().out
    assert "domain: abc-vs-fgh\n" in out and "result: White wins" in out
    line = next(text for text in out.splitlines() if text.startswith("line: "))
    mirrored = chess.Board(fen).transform(chess.flip_horizontal)
    assert main(["chunker", mirrored.fen(), "--no-database"]) == 0
    out = capsys.readouterr().out
    assert "(mirrored left to right)" in out and "result: White wins" in out
    mirrored_line = next(text for text in out.splitlines() if text.startswith("line: "))
    flip = str.maketrans("abcdefgh", "hgfedcba")
    assert mirrored_line.split("  (")[0] == "line: " + line.split("  (")[0][6:].translate(flip)


def test_cli_prepares_the_libraries_once(capsys, monkeypatch, tmp_path):
    """``--prepare --levels 2`` builds level 2's two libraries into an empty cache, saying each, and
    the next run finds them built; a solve that lacks libraries says it builds them first."""
    from host.cli import main
    monkeypatch.setenv("SUPREM_CACHE", str(tmp_path))
    assert main(["chunker", "--prepare", "--levels", "2"]) == 0
    out = capsys.readouterr().out
    assert "CHUNKER's libraries for levels 2: 2, 0 built already" in out and "\nbuilt 2 (" in out
    assert "1/2 abc-vs-none-passing: 2,809,856 positions" in out
    assert main(["chunker", "--prepare", "--levels", "2"]) == 0
    assert "2, 2 built already" in capsys.readouterr().out
    assert main(["chunker", "8/8/P4p2/6p1/7p/1kP5/1P5K/8 b - - 0 1", "--levels", "2,3", "--no-database"]) == 0
    captured = capsys.readouterr()
    assert "CHUNKER's libraries for levels 2,3: 4, 2 built already" in captured.err
    assert "result: White wins" in captured.out


@pytest.mark.parametrize("args, message", [
    (["8/8/8/8/8/8/P5k1/1K1N4 w - - 0 1"], "not a position of CHUNKER's domain"),
    (["8/8/8/8/3P4/8/6k1/1K6 w - - 0 1"], "not a position of CHUNKER's domain"),
    ([], "give a FEN"),
    (["--prepare", "--levels", "11"], "no level 11: the levels are 1 to 10"),
    (["--prepare", "--levels", "1,x"], "levels are whole numbers"),
    (["8/8/8/8/8/8/P5k1/1K6 w - - 0 1", "--nodes", "0"], None),
])
def test_cli_refuses_bad_input(capsys, args, message):
    from host.cli import main
    if message is None or "level" in message:
        with pytest.raises(SystemExit):
            main(["chunker", *args])
        assert (message or "must be above 0") in capsys.readouterr().err
        return
    assert main(["chunker", *args, "--no-database"]) == 2
    assert message in capsys.readouterr().err


# -- the shipped test positions --------------------------------------------------------------

def _shipped():
    """``[(board, {operation: text without its quotes})]``."""
    from sim.testing import reference_positions
    return [(record.board, {name: text.strip('"') for name, text in record.operations.items()})
            for record in reference_positions("chunker-positions.epd")]


def test_shipped_positions_are_of_the_domain_in_every_class():
    records = _shipped()
    classes = collections.Counter(operations["c0"] for _, operations in records)
    assert set(classes) == {"longest", "won", "lost", "drawn", "deep won", "deep lost", "natural move loses"}
    for board, _ in records:
        PAPER.index(board)                          # raises outside the domain
        assert board.is_valid()


@pytest.mark.slow
def test_shipped_positions_have_the_database_values():
    """The paper domain's database (about 90 s to build once) gives each shipped line its c1, and
    each "natural move loses" line's move loses."""
    db = open_database(PAPER, quiet=True)
    for board, operations in _shipped():
        assert describe(db.value(board)) == operations["c1"], board.fen()
        if operations["c0"] == "natural move loses":
            move = board.parse_san(operations["c2"].split()[0])
            outcome = dict(PAPER.children(board))[move]
            after = db.value(outcome[1])
            assert (0 < after < LOSS) if outcome[0] == 1 else after >= LOSS


def test_a_new_build_leaves_the_files_of_other_solvers():
    """A build under its key leaves the same domain's files of other keys (another checkout's
    solver, which may be using them: a match from a worktree beside the tests) and those of
    other domains (``a-vs-none`` beside ``a-vs-none-passing``); they are the cache's entries,
    which ``suprem cache --prune`` removes once unused (``tests/test_cache.py``)."""
    from host.chunker.database import database_path
    from sim.cache import entries
    bare, passing = Domain((0,), ()), Domain((0,), (), defender_passes=True)
    kept = build(passing).path
    other = database_path(bare).with_name(f"{bare.name()}-0123456789abcdef.db")
    other.write_bytes(b"another solver's database")
    report = build(bare, force=True)
    assert other.exists() and other.read_bytes() == b"another solver's database"
    assert report.path.exists() and kept.exists() and report.path != other
    assert other in {entry.path for entry in entries() if entry.kind == "chunker"}      # the prune's to remove
    other.unlink()
