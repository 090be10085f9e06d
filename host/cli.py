"""The ``suprem`` command line."""

import argparse
import sys

import chess

__all__ = ["main"]


def _board_from_arg(text):
    from host.epd import parse_position
    from sim.models.position import validate_board
    if text in ("startpos", "start"):
        board = chess.Board()
    else:
        board, _ = parse_position(text)
    validate_board(board)
    return board


def cmd_moves(args):
    """The Verilated generator's moves for a position, in emission order."""
    from hdl.movegen.layouts import GenMode, MoveKey
    from sim.movegen_check import compare_position, legal_by_king_check
    from sim.movegen_sim import VerilatedMovegen
    board = _board_from_arg(args.fen)
    mode = GenMode.CAPTURES if args.captures else GenMode.ALL
    with VerilatedMovegen() as hw:
        hw.set_board(board)
        moves, cycles = hw.generate(mode=mode)
        legal = {m.uci for m in legal_by_king_check(hw, board.copy(), moves)}
        diffs = compare_position(hw, board.copy())
    print(f"position {board.fen()}")
    print(f"{'#':>3} {'move':6} {'san':8} {'legal':5} key (victim safe centrality square attacker promotion)")
    for i, move in enumerate(moves, 1):
        key = MoveKey.from_bits(move.key)
        san = board.san(chess.Move.from_uci(move.uci)) if move.uci in legal else "-"
        print(f"{i:3} {move.uci:6} {san:8} {'yes' if move.uci in legal else 'no':5} "
              f"{key.victim.name.lower():6} {int(key.safe)} {int(key.centrality)} {int(key.square):2} "
              f"{int(key.attacker):2} {int(key.promotion_rank)}")
    print(f"{len(moves)} moves ({len(legal)} legal) in {cycles} cycles")
    if diffs:
        print("python-chess and the model DISAGREE:")
        for line in diffs:
            print("  " + line)
        return 1
    print("python-chess and the bit-exact model agree")
    return 0


def cmd_verify_movegen(args):
    from host.epd import EpdError, read_positions
    from sim.models.position import PositionError, validate_board
    from sim.movegen_check import compare_position
    from sim.movegen_sim import VerilatedMovegen
    try:
        with open(args.file) as f:
            lines = f.read().splitlines()
    except OSError as error:
        print(f"suprem: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    positions = mismatches = rejected = shown = 0
    with VerilatedMovegen() as hw:
        for record in read_positions(lines):
            if args.limit is not None and positions >= args.limit:
                break
            if isinstance(record, EpdError):
                print(f"{args.file}: {record}")
                rejected += 1
                continue
            try:
                validate_board(record.board)
            except PositionError as error:
                print(f"{args.file}: line {record.line}: rejected: {error}")
                rejected += 1
                continue
            positions += 1
            diffs = compare_position(hw, record.board)
            if diffs:
                mismatches += 1
                if shown < args.show:
                    shown += 1
                    print(f"mismatch at line {record.line}: FEN {record.board.fen()}")
                    for line in diffs:
                        print("  " + line)
    if rejected:
        print(f"{rejected} lines not checked (malformed or impossible positions)")
    print(f"{positions} positions, {mismatches} mismatches")
    return 1 if mismatches else 0


def build_parser():
    parser = argparse.ArgumentParser(prog="suprem", description="The SUPREM chess machine.")
    sub = parser.add_subparsers(dest="command", required=True)
    moves = sub.add_parser("moves", help="the Verilated generator's ordered moves for a position")
    moves.add_argument("fen", help="a FEN (quoted), or 'startpos'")
    moves.add_argument("--captures", action="store_true", help="capture-only mode")
    moves.set_defaults(func=cmd_moves)
    verify = sub.add_parser("verify", help="check a hardware unit against its model and python-chess")
    units = verify.add_subparsers(dest="unit", required=True)
    movegen = units.add_parser("movegen", help="the move generator on every position of an EPD/FEN file")
    movegen.add_argument("file")
    movegen.add_argument("--limit", type=int, help="check at most N positions")
    movegen.add_argument("--show", type=int, default=5, help="details of the first N mismatches (5)")
    movegen.set_defaults(func=cmd_verify_movegen)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as error:       # bad FEN, impossible position
        print(f"suprem: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
