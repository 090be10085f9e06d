"""Where a match's points were won and lost: the machine's expected score, judged by Stockfish
along each game, as the game passes from one phase to the next.

    python -m benchmarks.phases FILE.pgn ... [--nodes N] [--bounds 50,30,12] [--lead CP] [--save TRACES]
    python -m benchmarks.phases --load TRACES [--bounds ...] [--lead CP]

Every position of every game (of PGN files :mod:`benchmarks.match` wrote; the machine is the
player named SUPREM) is scored by Stockfish at ``--nodes`` nodes, and the score turned into the
machine's expected points by Stockfish 15.1's own win-draw-loss model (python-chess's
``wdl(model="sf15.1")``). The game's phase is the non-pawn material on the board (knight and
bishop 3, rook 5, queen 9; 62 at the start): a game enters the phase below each of ``--bounds``
at the first position whose material is at most that bound, and its expectation there (the
mean of that position's and the next two) is where the phase before ends. So each game's points
above one half split into what changed in each phase — from 0.5 at the start to the expectation
where the game enters the first bound's phase, and so on, the last phase a game reaches ending
in its result (a phase it never reaches adds nothing) — and their sums over the games say in
which phase the machine gained or lost its points, each with its 95 % interval (normal
approximation over the games). What a knowledge or search change gains is read there, by phase,
from the games of its match.

Each phase's points after the first are then split (:func:`lead_split`): a least-squares line
through each game's gain there against the lead it entered the phase with says how much of them
the leads explain (Stockfish's model expects more of a lead than players at a few thousand nodes
convert, so the side ahead more often gives back points in every later phase whatever its
knowledge), and the rest, the line's value for a game entered level, is the machine's own. A
side that is ahead more often shows a loss in the later phases that is not its play: read a
phase's own points, not its sum. (Every game enters the first phase level, at one half: it has
no leads to split.)

Then each side's moves by phase (:func:`move_losses`): where the position before the move stood
within ``BALANCED`` centipawns of level, how much of Stockfish's score the move gave away (capped
at ``LOSS_CAP``) on the mean, and how many moves gave away 100 or more — the same games read
move by move, where a phase's points also carry the leads it was entered with.

Printed too: the won positions each side did not win, by Stockfish — a side standing ``--lead``
centipawns (300) or more ahead for four positions running — and how those games ended.

``--save TRACES`` keeps what Stockfish said (a JSON line a game: its points, how it ended, and
each position's FEN, expectation, score and material), and ``--load TRACES`` reads it again
instead of the games, without Stockfish: other bounds or leads, or other screens of the same
positions, cost nothing more.

Stockfish comes from Debian's package (``apt-get install stockfish``); it is a peer engine of
the benchmarks, not a dependency. Its scores at a node budget are deterministic on one thread.
"""

import argparse
import gzip
import json
import math
import sys
from typing import NamedTuple

import chess
import chess.engine

from host.cli import positive_number
from host.patterns import KingSafety

from .match import pgn_games
from .peers import open_engine

__all__ = ["material", "GameTrace", "MATE_SCORE", "PhaseGains", "phase_gains", "LeadSplit", "lead_split",
           "MoveLosses", "move_losses", "BALANCED", "LOSS_CAP", "ERROR",
           "Conversions", "conversions", "DEFAULT_BOUNDS", "LEAD_PLIES", "save_traces", "load_traces"]

#: The phases' lower bounds of non-pawn material: the opening down to 50, the middlegame to
#: 30, the ending with pieces to 12, the ending of a piece or none a side.
DEFAULT_BOUNDS = (50, 30, 12)

#: A lead counts once it stands for this many positions running.
LEAD_PLIES = 4

#: Positions whose expectations are averaged where a game enters a phase.
SMOOTHING = 3


def material(board):
    """The non-pawn material on ``board``, both sides, as the evaluator's phase counts it
    (``KingSafety.MATERIAL``: 62 at the start)."""
    return sum(value * len(board.pieces(piece, colour))
               for piece, value in KingSafety.MATERIAL.items() for colour in chess.COLORS)


class GameTrace(NamedTuple):
    """One game as the phases see it: the machine's points, and for each position after a move
    the machine's expected points, Stockfish's score for it in centipawns (a mate
    +-:data:`MATE_SCORE`) and the non-pawn material on the board."""
    points: float
    expectations: list
    scores: list
    materials: list
    end: str = ""               #: how the game ended (:func:`ending`)
    machine_white: bool = True  #: the machine's colour (the scores and expectations are its)


#: A mate's score in a :class:`GameTrace`, in centipawns.
MATE_SCORE = 10000


class PhaseGains(NamedTuple):
    """Points gained in each phase, summed over the games (``bounds`` gives ``len(bounds) + 1``
    phases), each with its 95 % interval, and the games' points above one half."""
    gains: list                 #: per phase
    lows: list
    highs: list
    surplus: float              #: sum of (points - 0.5): the sum of ``gains``
    games: int


def _entering(trace, bound):
    """The game's expectation where it enters the phase of material ``bound`` or less (the mean
    of the entering position's and the next ``SMOOTHING - 1``), or None if it never does."""
    ply = next((ply for ply, value in enumerate(trace.materials) if value <= bound), None)
    if ply is None:
        return None
    window = trace.expectations[ply:ply + SMOOTHING]
    return sum(window) / len(window)


def phase_gains(traces, bounds=DEFAULT_BOUNDS):
    """Each phase's share of the games' points above one half (:class:`PhaseGains`). ``bounds``
    must fall strictly. A game's expectation where it enters a phase is the mean of the
    expectations of the position that enters it and of the next ``SMOOTHING - 1`` ones (one move
    of a capture's exchange does not decide where a phase ends)."""
    if any(a <= b for a, b in zip(bounds, bounds[1:])) or not bounds:
        raise ValueError(f"the bounds must fall strictly: {', '.join(map(str, bounds))}")
    per_game = []
    for trace in traces:
        if len(trace.expectations) != len(trace.materials):
            raise ValueError("a game's expectations and materials differ in length")
        shares, before, phase = [0.0] * (len(bounds) + 1), 0.5, 0
        for phase, bound in enumerate(bounds):
            now = _entering(trace, bound)
            if now is None:
                break
            shares[phase] += now - before
            before = now
        else:
            phase = len(bounds)
        shares[phase] += trace.points - before
        per_game.append(shares)
    n = len(per_game)
    gains, lows, highs = [], [], []
    for phase in range(len(bounds) + 1):
        values = [shares[phase] for shares in per_game]
        total = sum(values)
        mean = total / n if n else 0.0
        spread = 1.96 * math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n) * n if n > 1 else 0.0
        gains.append(total)
        lows.append(total - spread)
        highs.append(total + spread)
    return PhaseGains(gains, lows, highs, sum(t.points - 0.5 for t in traces), n)


class LeadSplit(NamedTuple):
    """A phase's points split by a least-squares line over the games that reach it
    (:func:`lead_split`): each game's gain there (its expectation where it leaves the phase, or
    its points if it ends there, less its expectation on entering) against its lead on entering
    (that expectation less one half)."""
    games: int
    own: float                  #: the line's intercept over the games: points no lead explains
    own_low: float
    own_high: float
    slope: float                #: the gain a game per point of expected lead (below 0: leads fade)
    slope_low: float
    slope_high: float
    from_leads: float           #: ``slope`` times the leads summed: the points the leads explain


def lead_split(traces, entered, left=None):
    """:class:`LeadSplit` of the phase that games enter at material ``entered`` or less and leave
    at ``left`` or less (None: the last phase, which ends in the result), over the games of
    ``traces`` that reach it (None with fewer than three, or leads all equal). Stockfish's
    win-draw-loss model is made for Stockfish's play: where the players convert a lead less
    surely, the side that enters a phase ahead loses points there whatever its knowledge, and a
    match in which one side is ahead more often shows that as its loss in the later phases. The
    intercept is what is left: the machine's own gain or loss in that phase, for a game entered
    level."""
    leads, gains = [], []
    for trace in traces:
        entering = _entering(trace, entered)
        if entering is None:
            continue
        leaving = None if left is None else _entering(trace, left)
        leads.append(entering - 0.5)
        gains.append((trace.points if leaving is None else leaving) - entering)
    n = len(leads)
    if n < 3:
        return None
    mean_lead, mean_gain = sum(leads) / n, sum(gains) / n
    spread = sum((x - mean_lead) ** 2 for x in leads)
    if spread == 0:
        return None
    slope = sum((x - mean_lead) * (y - mean_gain) for x, y in zip(leads, gains)) / spread
    intercept = mean_gain - slope * mean_lead
    residual = sum((y - intercept - slope * x) ** 2 for x, y in zip(leads, gains)) / (n - 2)
    own_half = 1.96 * math.sqrt(residual * (1 / n + mean_lead ** 2 / spread)) * n
    slope_half = 1.96 * math.sqrt(residual / spread)
    return LeadSplit(n, intercept * n, intercept * n - own_half, intercept * n + own_half,
                     slope, slope - slope_half, slope + slope_half, slope * sum(leads))


class Conversions(NamedTuple):
    """Games in which one side stood won by Stockfish (:func:`conversions`), by their result for
    that side, with how the games it did not win ended."""
    won: int
    drawn: int
    lost: int
    endings: dict               #: how the games not won ended -> count


#: The positions whose moves :func:`move_losses` judges: Stockfish's score within this many
#: centipawns of level (in a won or lost position a move's loss says little).
BALANCED = 300
#: The most a move counts as giving away, in centipawns.
LOSS_CAP = 300
#: A move that gives away this many centipawns or more is an error.
ERROR = 100


class MoveLosses(NamedTuple):
    """One side's moves in one phase (:func:`move_losses`)."""
    moves: int
    mean_loss: float            #: centipawns of Stockfish's score a move gave away, on the mean
    errors: int                 #: moves that gave away ``ERROR`` centipawns or more


def move_losses(traces, bounds=DEFAULT_BOUNDS, machine=True):
    """``[MoveLosses]`` a phase (``bounds`` as :func:`phase_gains` has them, applied to the
    material on the board before each move: a promotion can put a position back in an earlier
    phase, where :func:`phase_gains` never goes back) of the machine's moves (or with ``machine``
    false its opponent's): each move from a position that Stockfish scored within :data:`BALANCED`
    of level, its loss the fall of the mover's score from the position before to the one after (at
    most :data:`LOSS_CAP`; a move that raises it loses 0). A trace's positions are those after each
    move, so White's first move has no position before it and is not judged."""
    totals = [[0, 0, 0] for _ in range(len(bounds) + 1)]
    for trace in traces:
        for index in range(1, len(trace.scores)):
            white_moved = index % 2 == 0        # position ``index`` follows the game's (index + 1)-th move
            if (white_moved == trace.machine_white) != machine:
                continue
            before, after = trace.scores[index - 1], trace.scores[index]      # the machine's view
            if abs(before) > BALANCED:
                continue
            loss = min(LOSS_CAP, max(0, before - after if machine else after - before))
            phase = sum(trace.materials[index - 1] <= bound for bound in bounds)
            totals[phase][0] += 1
            totals[phase][1] += loss
            totals[phase][2] += loss >= ERROR
    return [MoveLosses(moves, total / moves if moves else 0.0, errors) for moves, total, errors in totals]


def conversions(traces, machine=True, lead=300):
    """The games in which the machine (or with ``machine`` false its opponent) stood ``lead``
    centipawns or more ahead for :data:`LEAD_PLIES` positions running, by their result for that
    side (:class:`Conversions`)."""
    won = drawn = lost = 0
    endings = {}
    for trace in traces:
        run = 0
        for score in trace.scores:
            run = run + 1 if (score if machine else -score) >= lead else 0
            if run >= LEAD_PLIES:
                break
        else:
            continue
        points = trace.points if machine else 1 - trace.points
        if points == 1:
            won += 1
            continue
        if points == 0.5:
            drawn += 1
        else:
            lost += 1
        key = trace.end if points == 0.5 else "lost"
        endings[key] = endings.get(key, 0) + 1
    return Conversions(won, drawn, lost, endings)


def ending(board):
    """How a drawn game ended at ``board``: stalemate, insufficient material, fifty moves,
    repetition (on the board, or one the side to move could claim: older matches drew there), or
    adjudicated (none of those: the match's ``--max-plies``)."""
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient material"
    if board.is_fifty_moves() or board.can_claim_fifty_moves():
        return "fifty moves"
    if board.is_repetition(3) or board.can_claim_threefold_repetition():
        return "repetition"
    return "adjudicated"


def trace_game(game, engine, nodes):
    """``(trace, fens)``: a :class:`GameTrace` of ``game`` (a :class:`benchmarks.match.PlayedGame`),
    each position after a move scored by ``engine`` at ``nodes`` nodes (a position where the game
    is over given its result's points), and those positions' FENs."""
    board = chess.Board()
    expectations, scores, materials, fens = [], [], [], []
    for uci in game.moves:
        board.push(chess.Move.from_uci(uci))
        fens.append(board.fen())
        if board.is_checkmate():
            machine_mated = board.turn == game.machine_white
            expectations.append(0.0 if machine_mated else 1.0)
            scores.append(-MATE_SCORE if machine_mated else MATE_SCORE)
        elif board.is_stalemate() or board.is_insufficient_material():
            expectations.append(0.5)
            scores.append(0)
        else:
            score = engine.analyse(board, chess.engine.Limit(nodes=nodes))["score"]
            mine = score.pov(chess.WHITE if game.machine_white else chess.BLACK)
            expectations.append(mine.wdl(model="sf15.1", ply=board.ply()).expectation())
            scores.append(mine.score(mate_score=MATE_SCORE))
        materials.append(material(board))
    return GameTrace(game.score, expectations, scores, materials, ending(board) if game.score == 0.5 else "",
                     game.machine_white), fens


def _open(path, mode):
    return (gzip.open if str(path).endswith(".gz") else open)(path, mode)


def save_traces(path, traces):
    """Write ``traces`` (``(GameTrace, fens)`` pairs) as ``--save`` does (gzipped where the
    name ends in ``.gz``)."""
    with _open(path, "wt") as f:
        for trace, fens in traces:
            f.write(json.dumps({**trace._asdict(), "fens": fens}) + "\n")


def load_traces(path):
    """The ``(GameTrace, fens)`` pairs a ``--save`` file holds. Raises ValueError naming the
    line that is not one."""
    traces = []
    with _open(path, "rt") as f:
        for number, line in enumerate(f, 1):
            try:
                entry = json.loads(line)
                fens = entry.pop("fens")
                trace = GameTrace(**entry)
                if not len(fens) == len(trace.expectations) == len(trace.scores) == len(trace.materials):
                    raise ValueError
            except (ValueError, TypeError, KeyError, AttributeError):
                raise ValueError(f"{path}:{number}: not a game of a --save file") from None
            traces.append((trace, fens))
    return traces


def _bounds(text):
    try:
        bounds = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if any(a <= b for a, b in zip(bounds, bounds[1:])) or any(b < 0 or b > 62 for b in bounds):
        raise argparse.ArgumentTypeError(f"the bounds must fall strictly within 0..62: {text!r}")
    return bounds


def _phase_names(bounds):
    edges = (62, *bounds)
    names = [f"material {edges[k]} to {edges[k + 1] + 1}" for k in range(len(bounds))]
    return names + [f"material {bounds[-1]} or less, to the result"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="*", help="PGN files of a match (the machine named SUPREM)")
    parser.add_argument("--save", help="keep what Stockfish said of each game in this file")
    parser.add_argument("--load", help="a --save file to read instead of the games (no Stockfish)")
    parser.add_argument("--nodes", type=positive_number, default=20000, help="Stockfish's nodes a position (20000)")
    parser.add_argument("--bounds", type=_bounds, default=DEFAULT_BOUNDS,
                        help="the phases' lower bounds of non-pawn material, falling (50,30,12)")
    parser.add_argument("--lead", type=positive_number, default=300, help="a won position's lead in centipawns (300)")
    args = parser.parse_args(argv)
    if bool(args.pgn) == bool(args.load):
        parser.error("give the games' PGN files, or --load a --save file: one of them")
    if args.load:
        try:
            traced = load_traces(args.load)
        except (OSError, ValueError) as error:
            parser.error(f"--load: {error}")
        if not traced:
            parser.error(f"--load: {args.load} holds no games")
        judged = f"as {args.load} keeps them"
    else:
        try:
            games = pgn_games(args.pgn)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"cannot read the games: {error}")
        if not games:
            parser.error("the files hold no games")
        engine = open_engine("stockfish")
        try:
            engine.configure({"Threads": 1})
            traced = []
            for number, game in enumerate(games, 1):
                traced.append(trace_game(game, engine, args.nodes))
                print(f"game {number}/{len(games)}: {game.score} for SUPREM", file=sys.stderr, flush=True)
        finally:
            engine.quit()
        if args.save:
            save_traces(args.save, traced)
        judged = f"Stockfish at {args.nodes} nodes a position"
    traces = [trace for trace, _ in traced]
    result = phase_gains(traces, args.bounds)
    print(f"{result.games} games, SUPREM {sum(t.points for t in traces)} points "
          f"({result.surplus:+.1f} above one half), {judged}")
    for name, gain, low, high in zip(_phase_names(args.bounds), result.gains, result.lows, result.highs):
        print(f"  {name:40s} {gain:+6.1f} points (95 %: {low:+.1f} to {high:+.1f})")
    print("  split by the leads the games entered each phase with:")
    for name, entered, left in zip(_phase_names(args.bounds)[1:], args.bounds, (*args.bounds[1:], None)):
        if split := lead_split(traces, entered, left):
            print(f"  {name:40s} {split.own:+6.1f} SUPREM's own (95 %: {split.own_low:+.1f} to {split.own_high:+.1f}), "
                  f"{split.from_leads:+.1f} from the leads ({split.games} games; a game's gain {split.slope:+.3f} a "
                  f"point of expected lead, 95 %: {split.slope_low:+.3f} to {split.slope_high:+.3f})")
    sides = (("SUPREM", True), ("its opponent", False))
    print(f"  each side's moves from positions within {BALANCED} cp of level: mean loss of Stockfish's score "
          f"(cp, at most {LOSS_CAP}), moves that lost {ERROR} or more:")
    losses = [move_losses(traces, args.bounds, machine) for _, machine in sides]
    for k, name in enumerate(_phase_names(args.bounds)):
        print(f"  {name:40s} " + "; ".join(
            f"{side} {lost[k].mean_loss:5.1f} over {lost[k].moves} moves, {lost[k].errors} errors"
            for (side, _), lost in zip(sides, losses)))
    for side, machine in sides:
        c = conversions(traces, machine, args.lead)
        ends = ", ".join(f"{count} {how}" for how, count in sorted(c.endings.items())) or "none"
        print(f"{side} stood {args.lead} cp ahead in {c.won + c.drawn + c.lost} games: won {c.won}, "
              f"drew {c.drawn}, lost {c.lost} (not won: {ends})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
