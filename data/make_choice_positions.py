"""Make the move-choice positions of ``benchmarks/choice.py``: ``choice-positions.jsonl``, or
with ``--errors`` the machine's own errors, ``error-positions.jsonl``.

    python data/make_choice_positions.py [--count 240] [--seed 7] [--depth 10]
    python data/make_choice_positions.py --errors 100 [--pgn GLOB ...] [--count 240] [--seed 7]
    python data/make_choice_positions.py --endings [--count 150] [--seed 7] [--depth 12]
    python data/make_choice_positions.py --lone-minor [--count 100] [--seed 7] [--depth 12]
    python data/make_choice_positions.py --material 13,30 [--count 240] [--seed 7] [--depth 12]

Needs Stockfish (``apt-get install stockfish``); the tests never run it. The positions come
from the games of ``--pgn`` (globs; by default ``benchmarks/results/*.pgn``, the machine's matches
against sunfish and itself): every position from ply 16 to 100 with at least ten pieces and the
side to move not in check, shuffled with ``--seed``, kept while Stockfish's best score at
``--depth`` is within ``BALANCE`` centipawns of level (the choice still matters), each with
every legal move's score (up to ``MOVES`` of them as principal variations; a move not among
them counts as the worst). A line: ``{"fen": ..., "scores": {uci: centipawns}}`` (the side to
move's view, a mate as +-10000).

``--endings`` takes instead, into ``ending-positions.jsonl``, the endings: every position from ply
16 on, not in check, with pawns and one to four pieces besides kings and pawns (where an
exchange or two makes a pawn ending), within ``BALANCE`` as above.

``--lone-minor`` takes, into ``lone-minor-positions.jsonl``, the positions from ply 16 on, not in
check, where a side has one minor piece, no rook or queen and at most one pawn while the other
side has a pawn, a rook or a queen (:func:`is_lone_minor`: where a lone minor's worth decides
which exchanges to make), within ``BALANCE`` as above.

``--material LO,HI`` takes, into ``material-LO-HI-positions.jsonl``, the positions from ply 16
on, not in check, whose non-pawn material (both sides, knight and bishop 3, rook 5, queen 9: 62
at the start, as ``benchmarks.phases`` splits a game) is from LO to HI, within ``BALANCE`` as
above: ``--material 13,30`` is the phase in which the heavy pieces come off (where issue 16's
match seemed to lose points; the leads it entered with explain half of them: BENCHMARKS.md,
2026-12-02).

``--errors CP`` keeps instead the positions (from ply 8, any number of pieces, the best score
within ``BALANCE``) where the machine — a player whose name begins with SUPREM — played a move
that Stockfish scores at least CP centipawns below its best (the position after the move
searched a ply shallower); the line adds the move played (``"played"``). Those are where the
machine's games were lost, so where a better search shows most: a screen for search changes,
not a suite to tune to (every change to the search changes which moves it would get wrong).

The scores are Stockfish's at that depth, with the version the file's first line names: a
measurement, not ground truth.
"""

import argparse
import glob
import json
import random
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.peers import engine_command  # noqa: E402
from benchmarks.phases import material  # noqa: E402

BALANCE = 300
MOVES = 60


def is_ending(board):
    """Pawns, and one to four pieces besides kings and pawns: a pawn ending an exchange or two away."""
    pieces = sum(p.piece_type not in (chess.PAWN, chess.KING) for p in board.piece_map().values())
    return 1 <= pieces <= 4 and bool(board.pieces(chess.PAWN, chess.WHITE) | board.pieces(chess.PAWN, chess.BLACK))


def is_lone_minor(board):
    """A side with one minor piece, no rook or queen and at most one pawn, against a side with a
    pawn, a rook or a queen."""
    def count(colour, *kinds):
        return sum(len(board.pieces(kind, colour)) for kind in kinds)
    return any(count(colour, chess.KNIGHT, chess.BISHOP) == 1 and not count(colour, chess.ROOK, chess.QUEEN)
               and count(colour, chess.PAWN) <= 1 and count(not colour, chess.PAWN, chess.ROOK, chess.QUEEN)
               for colour in chess.COLORS)


def in_material(low, high):
    """A test of a board: its non-pawn material (``benchmarks.phases.material``) from ``low`` to ``high``."""
    return lambda board: low <= material(board) <= high


def candidates(patterns, errors, endings=False, lone_minor=False, kept=None):
    """``[(fen, played)]`` from the games of ``patterns`` (globs), in their order and repeated as often
    as they occur: ``played`` the machine's move (with ``errors``), else None; with ``endings`` the
    endings (:func:`is_ending`), with ``lone_minor`` the lone minor pieces' (:func:`is_lone_minor`),
    with ``kept`` (a test of a board) the positions it keeps."""
    chosen = is_ending if endings else is_lone_minor if lone_minor else kept
    found = []
    for name in sorted({name for pattern in patterns for name in glob.glob(pattern)}):
        with open(name) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                board = game.board()
                if board.uci_variant != "chess":        # an antichess match's game
                    continue
                machine = {colour for colour, player in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
                           if game.headers.get(player, "").startswith("SUPREM")}
                for ply, move in enumerate(game.mainline_moves()):
                    if errors:
                        if ply >= 8 and board.turn in machine and board.legal_moves.count() > 1:
                            found.append((board.fen(), move.uci()))
                    elif chosen:
                        if ply >= 16 and not board.is_check() and chosen(board):
                            found.append((board.fen(), None))
                    elif 16 <= ply <= 100 and not board.is_check() and len(board.piece_map()) >= 10:
                        found.append((board.fen(), None))
                    board.push(move)
    return found


def centipawns(info):
    """An analysis' score in centipawns, the side to move's view (a mate +-10000)."""
    return info["score"].relative.score(mate_score=10000)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--errors", type=int, metavar="CP", help="keep the machine's moves that lost CP or more")
    parser.add_argument("--endings", action="store_true", help="endings with one to four pieces and pawns")
    parser.add_argument("--lone-minor", action="store_true",
                        help="a side with one minor piece and at most a pawn against pawns, rooks or queens")
    parser.add_argument("--material", metavar="LO,HI", help="positions whose non-pawn material is from LO to HI")
    parser.add_argument("--pgn", nargs="+", default=[str(HERE.parent / "benchmarks" / "results" / "*.pgn")],
                        help="the games (globs)")
    parser.add_argument("--out", help="the file (choice-positions.jsonl; error-positions.jsonl with --errors, "
                                      "ending-positions.jsonl with --endings, lone-minor-positions.jsonl with "
                                      "--lone-minor, material-LO-HI-positions.jsonl with --material)")
    args = parser.parse_args(argv)
    if sum(map(bool, (args.errors, args.endings, args.lone_minor, args.material))) > 1:
        parser.error("--errors, --endings, --lone-minor and --material choose different positions: one of them")
    kept = None
    if args.material:
        try:
            low, high = (int(bound) for bound in args.material.split(","))
        except ValueError:
            parser.error(f"--material {args.material!r} is not LO,HI (two whole numbers)")
        if not 0 <= low <= high:
            parser.error(f"--material {args.material}: LO must be at least 0 and at most HI")
        kept = in_material(low, high)
    name = ("error" if args.errors else "ending" if args.endings else "lone-minor" if args.lone_minor
            else f"material-{low}-{high}" if args.material else "choice")
    out = args.out or str(HERE / f"{name}-positions.jsonl")
    found = candidates(args.pgn, args.errors, args.endings, args.lone_minor, kept)
    random.Random(args.seed).shuffle(found)
    found = list(dict.fromkeys(found))
    engine = chess.engine.SimpleEngine.popen_uci(engine_command("stockfish"))
    engine.configure({"Threads": 1, "Hash": 64})
    errors = (f" --errors {args.errors}" if args.errors else " --endings" if args.endings
              else " --lone-minor" if args.lone_minor else f" --material {low},{high}" if args.material else "")
    lines = [f"# Made by data/make_choice_positions.py --count {args.count} --seed {args.seed} --depth {args.depth}"
             f"{errors} with {engine.id.get('name')}"]
    try:
        for fen, played in found:
            board = chess.Board(fen)
            line = {"fen": fen}
            if args.errors:
                best = centipawns(engine.analyse(board, chess.engine.Limit(depth=args.depth)))
                if abs(best) > BALANCE:
                    continue
                after = board.copy(stack=False)
                after.push_uci(played)
                if after.is_game_over() or best + centipawns(
                        engine.analyse(after, chess.engine.Limit(depth=args.depth - 1))) < args.errors:
                    continue
                line["played"] = played
            infos = engine.analyse(board, chess.engine.Limit(depth=args.depth),
                                   multipv=min(MOVES, board.legal_moves.count()))
            line["scores"] = {info["pv"][0].uci(): centipawns(info) for info in infos}
            if abs(max(line["scores"].values())) > BALANCE:
                continue
            lines.append(json.dumps(line))
            if len(lines) > args.count:
                break
    finally:
        engine.quit()
    Path(out).write_text("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} positions written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
