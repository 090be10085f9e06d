"""Games of the machine against another UCI engine at a fixed node budget per move.

    python -m benchmarks.match [--opponent sunfish|stockfish|suprem] [--nodes N] [--opponent-nodes N] [--games G]
                               [--elo E] [--max-plies P] [--pgn FILE]
                               [--features SET] [--opponent-features SET]
                               [--root board|host] [--opponent-root board|host]
                               [--knowledge K] [--opponent-knowledge K] [--without F,...]
                               [--opponent-without F,...] [--weights P=W,...] [--opponent-weights P=W,...]
                               [--first N] [--resume] [--movetime MS]
                               [--variant chess|antichess]
    python -m benchmarks.match --score FILE.pgn ... [--against FILE.pgn ...]

Each opening of ``data/openings.txt`` (main lines of theory, in order) is played twice, the
machine White in one game and Black in the other, until ``--games`` games are played. Every
move of either engine is a search of ``--nodes`` nodes (``go nodes``); a game ends by the rules
(mate, stalemate, too little material; a draw once a position stands on the board for the
third time or fifty moves pass without a capture or a pawn move, as cutechess-cli adjudicates:
a repetition the side to move *could* claim by announcing a move is played on, since a side
that is winning would not claim it) or is adjudicated a draw after ``--max-plies`` plies.
Printed: each game's result, then the machine's score, the Elo difference and its 95 %
interval (normal approximation over the games' scores), and the nodes a move each engine says
it searched (its ``info nodes``), on average: an engine that does not stop at the budget shows
here (sunfish stops a ``go nodes`` search only between two of its MTD probes), and
``--opponent-nodes`` gives the opponent a budget of its own, so that the nodes searched can be
made equal. The machine runs on a simulated board: its node budget is the same as on a real one,
only slower.

``--movetime MS`` gives each move a time instead (``go movetime``): the opponent its wall
time, the machine its *hardware* time — its cycles at its board's clock, which a simulated
board counts as a real one would spend them — so that, against Stockfish with ``--elo``, the
machine plays with the time a board would have. The machine's ``Move Overhead`` is 0 then
(hardware time loses nothing to the link; Stockfish too searches its whole ``movetime``).

``--features`` sets the machine's search features (``all``, ``none``, ``-lmr``...: the UCI
check options); against ``--opponent suprem`` with ``--opponent-features`` the machine plays
itself with a feature switched off, which measures that feature on one build; ``--root`` and
``--opponent-root`` the same for who searches the root (the board, or the host's root loop),
``--knowledge`` and ``--opponent-knowledge`` for the Oracle's knowledge (phase, root, material),
``--without`` and ``--opponent-without`` for pattern families, or single patterns by library
name, root knowledge leaves out (a family's worth: ``--knowledge root --opponent-knowledge root
--opponent-without king``; one pattern's: ``--opponent-without pawn-ending-kings``).

``--variant antichess`` plays antichess (captures compulsory, losing every piece wins) from
``data/antichess-openings.txt`` against Fairy-Stockfish (``--opponent fairy-stockfish``) or the
machine: python-chess's client sets each engine's ``UCI_Variant`` from the board.

A long match can be played in parts: ``--first N`` starts at game N (its opening and colours
as in the whole match; ``--games`` stays the last game's number), and ``--score`` adds up the
games of the parts' PGN files (the machine is the player named SUPREM) with the Elo
difference of them all. A match stopped part-way goes on with ``--resume``: the games its
``--pgn`` file already holds (each the same match's, by its Event header) are kept and count
in the score, and only the match's games the file lacks are played, appended to it.

Each game's ``SupremCode`` header names the code that played it (``benchmarks.provenance``: the
commit of the checkout the match imported its modules from, ``+changes`` where that code was
changed and not committed). ``--resume`` refuses a file whose games another code played, and
``--score`` says which code played each run: a comparison of two runs is one change's only
where the same code played both but for that change.

Both engines are deterministic at a node budget, so two runs of the same games that differ in
one change of the machine play a game move for move the same wherever the change never acts.
``--score A.pgn ... --against B.pgn ...`` pairs the games of the two runs by their number in the
match (each game's PGN Round header; runs of older files without it are paired in file order),
each pair the same opening with the machine the same colour; it counts the pairs played the same, and
gives the difference of the scores over the pairs that differ, with its 95 % interval (normal
approximation over the pairs' differences): a change's effect without the noise of the games it
does not touch. Games only one run holds (a run still going, played in other parts) are left out
and counted.
"""

import argparse
import collections
import datetime
import math
import sys
from typing import NamedTuple

import chess
import chess.engine
import chess.pgn

from hdl.search.features import SearchFeatures
from host.oracle import KNOWLEDGE
from models.position import VARIANTS, new_board
from sim.testing import DATA

from .peers import ENGINES, ROOTS, engine_command, machine_options, open_engine, pattern_families, pattern_weights
from .provenance import code_line, code_version

__all__ = ["read_openings", "elo_difference", "PlayedGame", "pgn_scores", "pgn_games", "Pairing", "paired_difference",
           "played_by", "POINTS"]


#: White's points for each finished game's Result header.
POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}

#: Each variant's openings file.
OPENINGS = {"chess": DATA / "openings.txt", "antichess": DATA / "antichess-openings.txt"}


def read_openings(path=None, variant="chess"):
    """``[(name, board)]``: every line ``name: SAN moves`` of an openings file (``variant``'s by
    default), played out on boards of ``variant``."""
    path = OPENINGS[variant] if path is None else path
    openings = []
    for number, line in enumerate(open(path).read().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, moves = line.partition(":")
        board = new_board(variant)
        try:
            for san in moves.split():
                board.push_san(san)
        except ValueError as error:
            raise ValueError(f"{path}:{number}: {name}: {error}") from None
        openings.append((name.strip(), board))
    return openings


def elo_difference(scores):
    """``(elo, low, high)``: the Elo difference that the games' ``scores`` (each 0, 0.5 or 1)
    mean, with its 95 % interval (the normal approximation of their mean). A mean of 0 or 1 is
    clamped to +-2400, and when every game had the same result the interval is that point:
    play more games."""
    n = len(scores)
    mean = sum(scores) / n
    deviation = math.sqrt(sum((g - mean) ** 2 for g in scores) / n / n) if n > 1 else 0.5

    def elo(p):
        p = min(max(p, 1e-6), 1 - 1e-6)
        return 400 * math.log10(p / (1 - p))

    return elo(mean), elo(mean - 1.96 * deviation), elo(mean + 1.96 * deviation)


def game_result(board):
    """The result text of a game that ends at ``board`` by the rules, or None while it goes on:
    mate, stalemate and too little material; a draw once the position stands for the third time
    or fifty moves passed without a capture or pawn move (not when the side to move could only
    *announce* a move that makes it so: a winning side would not)."""
    if board.outcome() is not None:
        return board.result()
    if board.is_repetition(3) or board.is_fifty_moves():
        return "1/2-1/2"
    return None


def play(white, black, start, limits, max_plies, searched=None):
    """One game from ``start``, each engine's moves searched to its limit in ``limits`` (a
    ``chess.engine.Limit`` by engine); returns the finished ``chess.Board`` and the result text.
    ``searched`` (``[nodes, moves]`` by engine), if given, adds up the nodes each engine says it
    searched (its last ``info nodes``) over its moves that said."""
    board = start.copy()
    engines = {chess.WHITE: white, chess.BLACK: black}
    game_id = object()
    while (text := game_result(board)) is None:
        if len(board.move_stack) - len(start.move_stack) >= max_plies:
            return board, "1/2-1/2"
        engine = engines[board.turn]
        result = engine.play(board, limits[engine], game=game_id, info=chess.engine.INFO_BASIC)
        move = result.move
        if move is None or move not in board.legal_moves:
            side = "White" if board.turn else "Black"
            raise RuntimeError(f"{side} played {move} in {board.fen()}")
        if searched is not None and "nodes" in result.info:
            searched[engine][0] += result.info["nodes"]
            searched[engine][1] += 1
        board.push(move)
    return board, text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", choices=ENGINES, default="sunfish")
    parser.add_argument("--nodes", type=int, default=10_000, help="nodes per move, both engines (10000)")
    parser.add_argument("--opponent-nodes", type=int,
                        help="the opponent's nodes per move, if not --nodes (an engine that overshoots its budget)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--elo", type=int, help="Stockfish's UCI_Elo (UCI_LimitStrength)")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--pgn", help="write the games here")
    parser.add_argument("--features", type=SearchFeatures.parse, default=SearchFeatures(),
                        help="the machine's search features (all)")
    parser.add_argument("--opponent-features", type=SearchFeatures.parse,
                        help="with --opponent suprem: the opponent's search features")
    parser.add_argument("--root", choices=ROOTS, help="who searches the machine's root (the engine's default)")
    parser.add_argument("--opponent-root", choices=ROOTS, help="with --opponent suprem: the opponent's root")
    parser.add_argument("--knowledge", choices=KNOWLEDGE, help="the machine's Oracle knowledge (the default)")
    parser.add_argument("--opponent-knowledge", choices=KNOWLEDGE, help="with --opponent suprem: the opponent's")
    parser.add_argument("--without", type=pattern_families, default=(), help="families root knowledge leaves out")
    parser.add_argument("--opponent-without", type=pattern_families, default=(),
                        help="with --opponent suprem: the families or patterns its root knowledge leaves out")
    parser.add_argument("--weights", type=pattern_weights, default={},
                        help="name=weight,...: weights in place of the fitted ones for root knowledge")
    parser.add_argument("--opponent-weights", type=pattern_weights, default={},
                        help="with --opponent suprem: the same for its root knowledge")
    parser.add_argument("--first", type=int, default=1, help="the first game's number (a match played in parts)")
    parser.add_argument("--resume", action="store_true",
                        help="with --pgn: keep the file's games of this match and play only those it lacks")
    parser.add_argument("--score", nargs="+", metavar="PGN", help="only add up the games of these PGN files")
    parser.add_argument("--against", nargs="+", metavar="PGN",
                        help="with --score: pair its games with these, a run of the same games (file order)")
    parser.add_argument("--movetime", type=int, metavar="MS",
                        help="milliseconds per move instead of nodes (the machine's: hardware time)")
    parser.add_argument("--variant", choices=tuple(VARIANTS), default="chess",
                        help="the rules (antichess: from data/antichess-openings.txt, against "
                             "--opponent fairy-stockfish or suprem)")
    args = parser.parse_args(argv)
    if args.against and not args.score:
        parser.error("--against goes with --score")
    if args.resume and not args.pgn:
        parser.error("--resume goes with --pgn (the file whose games are kept)")
    if args.score:
        return _score(args.score, args.against)
    if (args.opponent_features is not None or args.opponent_root or args.opponent_knowledge
            or args.opponent_without or args.opponent_weights) and args.opponent != "suprem":
        parser.error("--opponent-features, --opponent-root, --opponent-knowledge, --opponent-without and "
                     "--opponent-weights need --opponent suprem")
    for families, weights, knowledge in ((args.without, args.weights, args.knowledge),
                                         (args.opponent_without, args.opponent_weights, args.opponent_knowledge)):
        if (families or weights) and knowledge != "root":
            parser.error("--without, --weights and their --opponent- forms need that side's knowledge to be root")
    if args.opponent_nodes is not None and (args.opponent_nodes <= 0 or args.movetime):
        parser.error("--opponent-nodes must be a positive number of nodes, and goes with a node budget, not --movetime")
    if args.movetime is not None and args.movetime <= 0:
        parser.error("--movetime must be a positive number of milliseconds")
    if not 1 <= args.first <= args.games:
        parser.error(f"--first {args.first} plays no game of a match of --games {args.games} "
                     f"(--games is the last game's number: games {args.first} to {args.games} are played)")
    limit = chess.engine.Limit(time=args.movetime / 1000) if args.movetime else chess.engine.Limit(nodes=args.nodes)
    opponent_limit = limit if args.opponent_nodes is None else chess.engine.Limit(nodes=args.opponent_nodes)
    budget = f"{args.movetime} ms per move" if args.movetime else f"{args.nodes} nodes per move" + (
        f" (the opponent's {args.opponent_nodes})" if args.opponent_nodes is not None else "")
    if args.variant != "chess" and args.opponent not in ("fairy-stockfish", "suprem"):
        parser.error(f"--variant {args.variant} needs --opponent fairy-stockfish or suprem")
    openings = read_openings(variant=args.variant)
    event_opponent = args.opponent if args.opponent != "suprem" else _machine_name(
        args.opponent_features or SearchFeatures(), args.opponent_root, args.opponent_knowledge, args.opponent_without,
        args.opponent_weights)
    budget = budget if args.variant == "chess" else f"{args.variant}, {budget}"
    machine_name = _machine_name(args.features, args.root, args.knowledge, args.without, args.weights)
    event = f"{machine_name} vs {event_opponent}, {budget}"
    played = _played(args.pgn, event, parser) if args.resume else {}
    print(code_line(), flush=True)
    machine = open_engine("suprem")
    overhead = {"Move Overhead": 0} if args.movetime else {}
    machine.configure({**machine_options(args.features, args.root, args.knowledge, args.without, args.weights),
                       **overhead})
    opponent = open_engine(args.opponent, args.elo)
    if args.opponent == "sunfish":
        print(f"sunfish runs as: {' '.join(engine_command('sunfish'))}", flush=True)
    if args.opponent == "suprem":
        opponent.configure({**machine_options(args.opponent_features or SearchFeatures(), args.opponent_root,
                                              args.opponent_knowledge, args.opponent_without, args.opponent_weights),
                            **overhead})
        args.opponent = event_opponent
    scores, pgn = [], open(args.pgn, "a" if args.resume else "w") if args.pgn else None
    limits = {machine: limit, opponent: opponent_limit}
    searched = {machine: [0, 0], opponent: [0, 0]}       # nodes the engines say they searched, moves
    try:
        for number in range(args.first - 1, args.games):
            name, start = openings[(number // 2) % len(openings)]
            machine_white = number % 2 == 0
            if number + 1 in played:
                scores.append(played[number + 1].score)
                print(f"game {number + 1}: {name}, SUPREM {'White' if machine_white else 'Black'}: kept from "
                      f"{args.pgn}; score {sum(scores)}/{len(scores)}", flush=True)
                continue
            white, black = (machine, opponent) if machine_white else (opponent, machine)
            board, result = play(white, black, start, limits, args.max_plies, searched)
            points = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            scores.append(points if machine_white else 1 - points)
            print(f"game {number + 1}: {name}, SUPREM {'White' if machine_white else 'Black'}: {result} "
                  f"({len(board.move_stack)} plies); score {sum(scores)}/{len(scores)}", flush=True)
            if pgn:
                game = chess.pgn.Game.from_board(board)
                game.headers.update(Event=event, Round=str(number + 1),
                                    Date=datetime.date.today().strftime("%Y.%m.%d"), Opening=name,
                                    White="SUPREM" if machine_white else args.opponent,
                                    Black=args.opponent if machine_white else "SUPREM", Result=result,
                                    SupremCode=code_version())
                print(game, file=pgn, end="\n\n", flush=True)
    finally:
        machine.quit()
        opponent.quit()
        if pgn:
            pgn.close()
    elo, low, high = elo_difference(scores)
    print(f"{machine_name} vs {args.opponent}"
          f"{f' (Elo {args.elo})' if args.elo else ''}, "
          f"{budget}: "
          f"{sum(scores)}/{len(scores)} ({100 * sum(scores) / len(scores):.1f} %), "
          f"Elo difference {elo:+.0f} (95 %: {low:+.0f} to {high:+.0f})")
    print(_searched((("SUPREM", searched[machine]), (args.opponent, searched[opponent]))))
    return 0


def _machine_name(features, root, knowledge, without, weights=None):
    """The machine as a match names it: its features, root, knowledge, the families left out and
    the weights changed."""
    weighed = "".join(f", {name} x{weight:g}" for name, weight in (weights or {}).items())
    return (f"SUPREM ({features}, root {root or 'default'}, knowledge {knowledge or 'default'}"
            f"{_without(without)}{weighed})")


def _played(path, event, parser):
    """``{number: PlayedGame}``: the games a match's PGN file holds (none if it does not exist), each
    checked to be of the match ``event`` and played by this code (its SupremCode header, where it
    has one); a game of another match, of other code or without a number is refused."""
    try:
        games = pgn_games([path])
    except FileNotFoundError:
        return {}
    for game in games:
        if game.event != event or game.number is None:
            parser.error(f"--resume: {path} holds a game of another match (game {game.number}: "
                         f"{game.event!r}, not {event!r}); nothing was played or written")
        if game.code not in (None, code_version()):
            parser.error(f"--resume: {path}'s game {game.number} was played by the code {game.code}, this is "
                         f"{code_version()}: one match's games would mix two machines (play the rest as a "
                         "part of their own, --first); nothing was played or written")
    return {game.number: game for game in games}


def _searched(engines):
    """The nodes a move each engine says it searched (its ``info nodes``), on average, from
    ``(name, [nodes, moves])`` pairs: a budget of nodes is one only if both engines stop at it."""
    parts = [f"{name} {nodes / moves:,.0f} over {moves} moves" if moves else f"{name}: no node counts reported"
             for name, (nodes, moves) in engines]
    return "nodes searched a move (the engines' own counts): " + ", ".join(parts)


def _without(families):
    return f" without {','.join(families)}" if families else ""


class PlayedGame(NamedTuple):
    """A game of a PGN file the machine played (as the player named "SUPREM")."""
    opening: str                #: the Opening header
    machine_white: bool
    moves: list                 #: the moves played, UCI
    score: float                #: the machine's
    number: int | None          #: the game's number in its match (the Round header; None if not a number)
    event: str = "?"            #: the Event header: the match it belongs to
    code: str | None = None     #: the SupremCode header: the machine's code (``provenance.code_version``)


def pgn_games(paths):
    """The games of the PGN files ``paths``, in file order, each a :class:`PlayedGame`."""
    games = []
    for path in paths:
        with open(path) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                points = POINTS[game.headers["Result"]]
                if "SUPREM" not in (game.headers["White"], game.headers["Black"]):
                    raise ValueError(f"{path}: a game without SUPREM ({game.headers['White']} - "
                                     f"{game.headers['Black']})")
                white = game.headers["White"] == "SUPREM"
                moves = [move.uci() for move in game.mainline_moves()]
                round_ = game.headers.get("Round", "?")
                games.append(PlayedGame(game.headers.get("Opening", "?"), white, moves,
                                        points if white else 1 - points, int(round_) if round_.isdigit() else None,
                                        game.headers.get("Event", "?"), game.headers.get("SupremCode")))
    return games


def pgn_scores(paths):
    """The machine's score in each game of the PGN files ``paths`` (it plays as "SUPREM"), in
    file order."""
    return [game.score for game in pgn_games(paths)]


class Pairing(NamedTuple):
    """Two runs of the same games compared pair by pair (:func:`paired_difference`)."""
    same: int                   #: pairs played move for move the same
    differ: int                 #: pairs that differ
    score: float                #: the first run's score over the pairs that differ
    other: float                #: the second run's
    low: float                  #: the 95 % interval of score - other
    high: float
    unpaired: int               #: games of one run only (runs numbered by game), left out


def paired_difference(games, others):
    """Two runs of the same games (:func:`pgn_games`) paired, and the difference of their
    scores over the pairs that differ, with its 95 % interval (normal approximation over the
    pairs' differences): a :class:`Pairing`. Where every game of both runs has its number in
    its match (the Round header), the games of the same number are paired, and games that only
    one run holds are left out (a match still running against a finished one); otherwise the
    games are paired in order and the runs must hold as many. Raises ValueError if a pair is not
    the same game (opening and colours), or if no game is paired."""
    if all(game.number is not None for game in (*games, *others)):
        mine, theirs = {game.number: game for game in games}, {game.number: game for game in others}
        numbers = sorted(mine.keys() & theirs.keys())
        pairs = [(number, mine[number], theirs[number]) for number in numbers]
        unpaired = len(mine.keys() ^ theirs.keys())
    elif len(games) != len(others):
        raise ValueError(f"the runs hold {len(games)} and {len(others)} games: not the same games "
                         "(and not numbered by game, so they are paired in order)")
    else:
        pairs, unpaired = [(number, *pair) for number, pair in enumerate(zip(games, others), 1)], 0
    if not pairs:
        raise ValueError("the runs hold no game of the same number")
    differ = []
    for number, game, other in pairs:
        if game[:2] != other[:2]:
            raise ValueError(f"game {number} of the runs is not the same game: {game.opening} with the machine "
                             f"{'White' if game.machine_white else 'Black'} against {other.opening} with it "
                             f"{'White' if other.machine_white else 'Black'}")
        if game.moves != other.moves:
            differ.append((game.score, other.score))
    n = len(differ)
    score, other = sum(mine for mine, _ in differ), sum(theirs for _, theirs in differ)
    mean = (score - other) / n if n else 0.0
    spread = 1.96 * math.sqrt(sum((a - b - mean) ** 2 for a, b in differ) / (n - 1) / n) * n if n > 1 else 0.0
    return Pairing(len(pairs) - n, n, score, other, n * mean - spread, n * mean + spread, unpaired)


def played_by(games):
    """Which code played ``games`` (:class:`PlayedGame`), as text: ``played by a6bdc70 (100
    games)``, the codes in order of first appearance, ``unrecorded`` for games without the
    header."""
    counts = collections.Counter(game.code or "unrecorded" for game in games)
    return "played by " + ", ".join(f"{code} ({count} games)" for code, count in counts.items())


def _score(paths, against=None):
    games = pgn_games(paths)
    scores = [game.score for game in games]
    if not scores:
        print("no games")
        return 1
    elo, low, high = elo_difference(scores)
    print(f"SUPREM: {sum(scores)}/{len(scores)} ({100 * sum(scores) / len(scores):.1f} %), "
          f"Elo difference {elo:+.0f} (95 %: {low:+.0f} to {high:+.0f}); {played_by(games)}")
    if against:
        others = pgn_games(against)
        try:
            pairing = paired_difference(pgn_games(paths), others)
        except ValueError as error:
            print(f"--against: {error}", file=sys.stderr)
            return 2
        same, differ, score, other, low, high, unpaired = pairing
        left_out = f"; {unpaired} games of one run only left out" if unpaired else ""
        print(f"against {sum(game.score for game in others)}/{len(others)}: {same} games played the same, "
              f"{differ} differ: {score}/{differ} against {other}/{differ}, a difference of {score - other:+.1f} "
              f"(95 %: {low:+.1f} to {high:+.1f}){left_out}")
        print(f"against: {played_by(others)}")
        if len(codes := {game.code for game in (*games, *others)}) > 1 or None in codes:
            print("note: the runs were not all played by one recorded code: the difference is the change's "
                  "and that of any other change between the codes that played", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
