"""Won pawnless endings played out: does an engine mate, and how fast?

    python -m benchmarks.conversion [--endings KQvKB,...] [--count 4] [--seed 1] [--nodes 10000]
                                    [--defender stockfish|sunfish] [--defender-nodes 100000]
                                    [--engines suprem,sunfish,stockfish] [--features SET]
                                    [--knowledge K] [--without F,...] [--pgn FILE]

For each material set of ``--endings`` (the stronger side first: ``KQvKB`` is a queen against a
bishop), ``--count`` positions drawn at random (seeded) with the stronger side to move: legal,
neither side in check, no piece of either side attacked (nothing to win or lose at once), and —
where Stockfish is installed — won for the stronger side by Stockfish's own search (a mate
score or at least 4 pawns at depth 14). Each engine of ``--engines`` plays the stronger side
at ``--nodes`` a move against the same ``--defender`` (Stockfish at ``--defender-nodes``, else
sunfish at that budget), by the rules: a mate is a win; a stalemate, insufficient material (the
weak side took the last mating piece), the 50-move rule or a threefold repetition is a draw —
as ``benchmarks.match`` ends a game, and besides as soon as the defender could claim the
repetition or the fifty moves (the stronger side never would). Printed: each game (its result
and length), then per engine the mates, the mean number of the stronger side's moves to mate,
and the draws. The machine plays on a simulated board with its Oracle knowledge
(``--knowledge``, ``--without`` families left out); what it misses here asks for technique —
a mating net — more than depth. ``--pgn`` writes the games.
"""

import argparse
import random
import sys

import chess
import chess.engine
import chess.pgn

from .match import game_result
from .peers import add_engine_arguments, chosen_engines, engine_command, open_chosen, open_engine

__all__ = ["ENDINGS", "random_position", "sample", "main"]

#: The default material sets: each a win for its stronger side from almost every position.
ENDINGS = ("KQvK", "KRvK", "KQvKN", "KQvKB", "KQvKR", "KBNvK")

_PIECES = {"Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT}


def _material(text):
    """``(strong, weak)`` piece-type lists of a set such as ``KQvKB`` (kings left out)."""
    try:
        strong, weak = text.upper().split("V")
        if not (strong.startswith("K") and weak.startswith("K")):
            raise ValueError
        return [_PIECES[c] for c in strong[1:]], [_PIECES[c] for c in weak[1:]]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"{text!r} is no pawnless material set such as KQvKB") from None


def random_position(rng, strong, weak, colour):
    """A random quiet position: ``colour`` (the stronger side, with ``strong`` besides its king)
    to move against ``weak``; neither king in check, no piece attacked, kings apart."""
    while True:
        board = chess.Board(None)
        board.turn = colour
        squares = rng.sample(chess.SQUARES, 2 + len(strong) + len(weak))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, colour))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, not colour))
        for index, (square, piece) in enumerate(zip(squares[2:], strong + weak)):
            board.set_piece_at(square, chess.Piece(piece, colour if index < len(strong) else not colour))
        if not board.is_valid() or board.is_check() or board.was_into_check():
            continue
        attacked = any(board.is_attacked_by(not piece.color, square)
                       for square, piece in board.piece_map().items() if piece.piece_type != chess.KING)
        if not attacked and board.legal_moves.count():
            return board


def _won(stockfish, board):
    """Whether Stockfish's search at depth 14 says the side to move wins."""
    score = stockfish.analyse(board, chess.engine.Limit(depth=14))["score"].pov(board.turn)
    return score.is_mate() and score.mate() > 0 or (score.score() or 0) >= 400


def sample(endings, count, seed, stockfish=None):
    """``[(ending, board)]``: ``count`` positions of each ending, the stronger side White in even
    ones and Black in odd ones, each checked won by ``stockfish`` (an engine) when there is one;
    an ending's positions depend on ``seed`` and the ending alone."""
    out = []
    for ending in endings:
        rng = random.Random(f"{seed} {ending}")     # an ending's positions whatever else is asked
        strong, weak = _material(ending)
        found = tried = 0
        while found < count:
            if tried == 20 * count:
                raise ValueError(f"{ending}: Stockfish calls {found} of {tried} positions won (is it a win?)")
            board = random_position(rng, strong, weak, chess.WHITE if found % 2 == 0 else chess.BLACK)
            tried += 1
            if stockfish is None or _won(stockfish, board):
                out.append((ending, board))
                found += 1
    return out


def play_out(attacker, defender, start, attack, defend, max_plies=400):
    """The game from ``start`` (the stronger side to move): ``(board, why)``, ``why`` one of
    ``mate``, ``stalemate``, ``insufficient_material``, ``fifty_moves``,
    ``threefold_repetition`` (on the board as ``game_result`` ends a game, or claimed by the
    defender, as the fifty moves may be) or ``adjudicated`` (``max_plies`` plies)."""
    board, strong, game_id = start.copy(), start.turn, object()
    while True:
        if game_result(board) is not None or board.turn != strong and board.can_claim_draw():
            outcome = board.outcome(claim_draw=True)
            return board, "mate" if outcome.winner is not None else outcome.termination.name.lower()
        if len(board.move_stack) >= max_plies:
            return board, "adjudicated"
        engine, limit = (attacker, attack) if board.turn == strong else (defender, defend)
        move = engine.play(board, limit, game=game_id).move
        if move not in board.legal_moves:
            raise RuntimeError(f"{engine.id.get('name', 'an engine')} played {move} in {board.fen()}")
        board.push(move)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endings", default=",".join(ENDINGS),
                        help=f"material sets, the stronger side first ({','.join(ENDINGS)})")
    parser.add_argument("--count", type=int, default=4, help="positions per material set (4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=10_000, help="the stronger side's nodes per move (10000)")
    parser.add_argument("--defender", choices=("stockfish", "sunfish"),
                        help="the weaker side (Stockfish where installed, else sunfish)")
    parser.add_argument("--defender-nodes", type=int, default=100_000, help="its nodes per move (100000)")
    parser.add_argument("--pgn", help="write the games here")
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    endings = [e.strip() for e in args.endings.split(",") if e.strip()]
    for ending in endings:
        try:
            _material(ending)
        except argparse.ArgumentTypeError as error:
            parser.error(str(error))
    engines = chosen_engines(parser, args)
    if args.count < 1 or args.nodes < 1 or args.defender_nodes < 1:
        parser.error("--count, --nodes and --defender-nodes must be positive")
    have_stockfish = engine_command("stockfish") is not None
    defender_name = args.defender or ("stockfish" if have_stockfish else "sunfish")
    stockfish = open_engine("stockfish") if have_stockfish else None
    if stockfish is None:
        print("(Stockfish is not installed: the positions are not checked won)", file=sys.stderr)
    try:
        positions = sample(endings, args.count, args.seed, stockfish)
    except ValueError as error:
        parser.error(str(error))
    finally:
        if stockfish is not None:
            stockfish.quit()
    defender = open_engine(defender_name)
    attack, defend = chess.engine.Limit(nodes=args.nodes), chess.engine.Limit(nodes=args.defender_nodes)
    tally, pgn = {}, open(args.pgn, "w") if args.pgn else None
    try:
        for name in engines:
            engine = open_chosen(name, args)
            try:
                mates, moves, draws = 0, [], {}
                for ending, start in positions:
                    board, why = play_out(engine, defender, start, attack, defend)
                    mated = why == "mate" and board.turn != start.turn
                    result = board.result() if why == "mate" else "1/2-1/2"
                    if mated:
                        mates += 1
                        moves.append((len(board.move_stack) + 1) // 2)
                    else:
                        draws[why] = draws.get(why, 0) + 1
                    print(f"{name}: {ending} {start.fen()}: {result}, {why} after "
                          f"{(len(board.move_stack) + 1) // 2} of its moves", flush=True)
                    if pgn:
                        game = chess.pgn.Game.from_board(board)
                        attacker_white = start.turn == chess.WHITE
                        game.headers.update(Event=f"{ending}, {name} at {args.nodes} nodes against {defender_name}",
                                            White=name if attacker_white else defender_name,
                                            Black=defender_name if attacker_white else name, Result=result)
                        print(game, file=pgn, end="\n\n", flush=True)
                tally[name] = (mates, moves, draws)
            finally:
                engine.quit()
    finally:
        defender.quit()
        if pgn:
            pgn.close()
    print(f"won pawnless endings ({', '.join(endings)}; {args.count} each, seed {args.seed}), the stronger side "
          f"at {args.nodes} nodes a move against {defender_name} at {args.defender_nodes}:")
    for name, (mates, moves, draws) in tally.items():
        mean = f", {sum(moves) / len(moves):.1f} moves to mate on average" if moves else ""
        drawn = ", ".join(f"{n} {why}" for why, n in sorted(draws.items()))
        print(f"  {name}: {mates}/{len(positions)} mated{mean}{f'; drawn: {drawn}' if drawn else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
