"""``suprem chunker --check N``: the exact database and every schema, checked on seeded positions.

Draws ``N`` valid positions of the paper's domain at random (seeded), and for each: the
database's value against one ply of minimax over python-chess's moves and the database's own
values of the children (``database.verify``: with no disagreement anywhere the database is
exact), and every schema that classifies it against the database's result (a bound, levels 5
to 7's "this side does not lose", against the result it allows; a win's moves against the exact
distance). Level 10 solves a game of its own for each position it asks (seconds, some in a
thousand positions): it is asked of the first ``joint`` of them only, and every state each of its
games wins is checked against the database (:func:`joint_wins`), millions a game. Prints the
counts (positions, each schema's classified count and disagreements, the database's
disagreements) and returns whether nothing disagreed; ``progress``, where given, is told the
count so far and the schemas' disagreements every :data:`PROGRESS_EVERY` positions.

:func:`play_out` plays a proved win to its end as the engine's hand-off does, against the
database's longest defence (``tests/test_chunker.py``, ``python -m benchmarks.chunker --play``).
"""

import collections
import random
import time

import chess
import numpy

from . import visited
from .database import open_database, verify
from .domain import DRAW, INVALID, PAPER, STATES, capture_of, is_win, plies
from .schemas import COSTLY, DRAWN, SCHEMAS, Holds, agrees, joint_games
from .search import solve

__all__ = ["check", "joint_wins", "play_out"]


#: How many positions level 10 is asked of in a check (each solves its games: seconds apiece).
JOINT_POSITIONS = 20

#: How many positions a check reports its progress after.
PROGRESS_EVERY = 50_000


def check(count, seed=1, domain=PAPER, out=print, joint=JOINT_POSITIONS, progress=None):
    db = open_database(domain)
    rng = random.Random(seed)
    start = time.monotonic()
    classified, bounded, wrong, results = (collections.Counter() for _ in range(4))
    indices, games = [], {}             # games: level 10's, checked whole
    asked = 0                           # the positions level 10 was asked of
    while len(indices) < count:
        index = rng.randrange(domain.size)
        value = db.value_at(index)
        if value == INVALID:
            continue
        indices.append(index)
        board = domain.board(index)
        truth = DRAWN if value == DRAW else board.turn if is_win(value) else not board.turn
        results["draw" if truth == DRAWN else "won by the side to move" if truth == board.turn else
                "lost by the side to move"] += 1
        for level, schema in SCHEMAS.items():
            if level in COSTLY:
                if asked == joint:
                    continue
                asking = list(joint_games(domain, board))
                if not asking:
                    continue
                asked += 1
                games.update(dict.fromkeys(asking))
            result = schema(domain, board)
            if result is not None:
                classified[level] += 1
                bounded[level] += isinstance(result, Holds)
                wrong[level] += not agrees(result, value, board.turn)
        if progress is not None and len(indices) % PROGRESS_EVERY == 0:
            progress(f"{len(indices):,} of {count:,} positions, {time.monotonic() - start:.0f} s: "
                     f"{sum(wrong.values())} disagreements of the schemas so far")
    mismatches = verify(db, indices)
    won = 0
    for game in games:
        wins, disagreements = joint_wins(db, open_database(game))
        won += wins
        wrong[max(COSTLY)] += len(disagreements)
    out(f"{count:,} positions of {domain.name()} (seed {seed}): " +
        ", ".join(f"{n:,} {kind}" for kind, n in sorted(results.items())))
    out(f"exact database: {len(mismatches)} disagreements with one ply of python-chess minimax")
    for level, schema in SCHEMAS.items():
        bounds = f" ({bounded[level]:,} of them a bound: one side does not lose)" if bounded[level] else ""
        of = f"{100 * classified[level] / count:.1f} %" if level not in COSTLY else \
            f"of the {asked:,} positions asked, {len(games):,} games whose {won:,} won states are checked too"
        out(f"schema level {level} ({schema.__name__}): classifies {classified[level]:,} "
            f"({of}){bounds}, {wrong[level]} disagreements")
    out(f"{time.monotonic() - start:.0f} s")
    return not mismatches and not any(wrong.values())


def joint_wins(db, game_db):
    """``(won, disagreements)``: how many states the joint game ``game_db`` (a level 10 game's
    database, of ``db``'s layout) wins for its side, and those of them (indices) that ``db`` (the
    exact database) does not count a win for that side, or counts a longer one."""
    game = game_db.domain
    side = 0 if game.joint_colour == chess.WHITE else 1
    ours_to_move = numpy.arange(STATES) // (STATES // 2) == side    # the states with its side to move
    won, disagreements = 0, []
    for config in game.allowed_configs():
        ours = numpy.frombuffer(game_db.block(config), numpy.uint8)
        exact = numpy.frombuffer(db.block(config), numpy.uint8)
        winning = _DECIDED[ours] & (_WON[ours] == ours_to_move)
        wrong = winning & ((_WON[exact] != _WON[ours]) | ~_DECIDED[exact] | (_PLIES[exact] > _PLIES[ours]))
        won += int(winning.sum())
        disagreements.extend(config * STATES + int(state) for state in numpy.flatnonzero(wrong))
    return won, disagreements


#: Per value byte: whether it is decided (neither a draw nor invalid), won by the side to move,
#: and its plies (:mod:`.domain`'s encoding, looked up a block at a time).
_DECIDED = numpy.array([value not in (DRAW, INVALID) for value in range(256)])
_WON = numpy.array([is_win(value) for value in range(256)])
_PLIES = numpy.array([plies(value) for value in range(256)])


def play_out(db, board, nodes=5_000, levels=None, max_plies=300):
    """Play ``board`` (a position of ``db``'s domain), proved won by CHUNKER, to its end: the
    winner's moves are CHUNKER's, as the search driver's hand-off plays them (each a fresh
    proof of ``nodes`` nodes by the schema ``levels``, all by default, the game's positions since
    its last pawn move to avoid), the loser's the database's longest defence (a position the game
    has stood in first, among equals). Returns ``(ending, plies)``: ``"won"`` (the winner's safe
    promotion), a draw by the rules (``"repetition"``: a position stood three times; ``"fifty
    moves"`` without a pawn move or capture), ``"unproved"`` (a proof not found within ``nodes``)
    or ``"too long"`` (``max_plies`` played), and the plies played."""
    domain = db.domain
    game, winner = board.copy(stack=False), board.turn

    def played(move, outcome):
        after = game.copy()
        after.push(move)
        if outcome[0] == 2:                     # an unsafe promotion and the capture it meets
            after.push(capture_of(after, move.to_square))
        return after

    def resistance(child):
        after = played(*child)
        return plies(db.value(after)), after.is_repetition(2)

    while len(game.move_stack) < max_plies:
        if game.is_repetition(3):
            return "repetition", len(game.move_stack)
        if game.halfmove_clock >= 100:
            return "fifty moves", len(game.move_stack)
        children = domain.children(game)
        if game.turn == winner:
            solution = solve(game.copy(stack=False), domain, max_nodes=nodes, levels=levels,
                             avoid=visited(game, False, domain))
            if solution.value != 1:
                return "unproved", len(game.move_stack)
            outcome = dict(children)[solution.line[0]]
            if outcome == "win":
                return "won", len(game.move_stack) + 1
            game = played(solution.line[0], outcome)
        else:
            game = played(*max((child for child in children if child[1] != "win"), key=resistance))
    return "too long", len(game.move_stack)
