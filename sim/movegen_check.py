"""One position, the Verilated generator against its model and python-chess.

Used by the test-suite and by ``suprem verify movegen``: returns the differences as readable
lines (empty when everything agrees).
"""

import chess
import chess.variant

from hdl.movegen.layouts import GenMode, GenOp, VictimOrder
from models.movegen import (
    captures_open,
    checks_open,
    config_for,
    count_moves,
    forced,
    moveless,
    ordered_moves,
    ply_moves,
)
from models.position import MachinePosition

from .movegen_sim import make, unmake

__all__ = ["compare_position", "answers_checks", "legal_by_king_check", "order_difference"]


def _signature(move):
    return (move.word, move.key, move.piece, move.victim, move.may_check)


def order_difference(label, got, want):
    got_uci, want_uci = [m.uci for m in got], [m.uci for m in want]
    lines = []
    missing = sorted(set(want_uci) - set(got_uci))
    extra = sorted(set(got_uci) - set(want_uci))
    if missing:
        lines.append(f"{label}: missing {' '.join(missing)}")
    if extra:
        lines.append(f"{label}: extra {' '.join(extra)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if _signature(g) != _signature(w):
            lines.append(f"{label}: order differs at move {i + 1}: hardware {g.uci} (key {g.key:#07x}, "
                         f"may check {int(g.may_check)}), model {w.uci} (key {w.key:#07x}, may check "
                         f"{int(w.may_check)})")
            break
    if not lines and len(got) != len(want):
        lines.append(f"{label}: {len(got)} moves, model {len(want)}")
    return lines


def answers_checks(board, move):
    """Whether ``move``, not the king's, leaves the king unattacked by every piece that checks it
    now: legal but for a pin (python-chess's sense of what the lean generator emits)."""
    if board.piece_type_at(move.from_square) == chess.KING or board.king(board.turn) is None:
        return False
    checkers = board.checkers_mask()
    after = board.copy(stack=False)
    after.push(move)
    return not after.attackers_mask(after.turn, after.king(board.turn)) & checkers


def legal_by_king_check(hw, board, moves):
    """The moves whose make leaves the mover's king unattacked (the fourth sense of legality)."""
    side = hw.side
    legal = []
    for move in moves:
        undo = make(hw, board, chess.Move.from_uci(move.uci))
        if not hw.state().king_attacked >> side & 1:
            legal.append(move)
        unmake(hw, board, undo)
    return legal


def compare_position(hw, board, victim_order=VictimOrder.MOST_VALUABLE):
    """Load ``board`` into ``hw`` and list every way the hardware disagrees with the references.
    An ``AntichessBoard`` is compared in antichess (python-chess's rules of the variant);
    ``victim_order`` is the generator's capture order. The lean generator (``hw.legal_moves``
    false) is held to the legal moves and a pinned piece's others (``answers_checks``), and its
    COUNT to "go through the moves" where a piece is pinned."""
    config = config_for(board, victim_order)
    hw.set_config(config)
    hw.set_position(board)
    pos = MachinePosition.from_board(board)
    side = 0 if board.turn else 1
    diffs = []
    all_moves = []
    # What the generator emits: the legal moves, and en passant whether legal or not (the
    # lean generator: also a pinned piece's moves off its line).
    emitted = [m for m in board.pseudo_legal_moves if board.is_legal(m) or board.is_en_passant(m)
               or not hw.legal_moves and answers_checks(board, m)]
    for mode in (GenMode.ALL, GenMode.CAPTURES, GenMode.CHECKS):
        got, _ = hw.generate(mode=mode)
        want = ordered_moves(pos, side, mode, config, hw.legal_moves)
        diffs += order_difference(f"{mode.name.lower()} vs model", got, want)
        keys = [m.key for m in got]
        if keys != sorted(set(keys), reverse=True):
            diffs.append(f"{mode.name.lower()}: keys not strictly decreasing")
        got_set = {m.uci for m in got}
        if mode == GenMode.ALL or board.is_check():
            all_moves = got if mode == GenMode.ALL else all_moves
            needed = allowed = {m.uci() for m in emitted}
        elif mode == GenMode.CAPTURES:
            needed = allowed = {m.uci() for m in emitted if board.is_capture(m) or m.promotion == chess.QUEEN}
        else:       # CHECKS: at least the captures, promotions and checks, never a move not there
            needed = {m.uci() for m in emitted if board.is_capture(m) or m.promotion
                      or board.is_legal(m) and board.gives_check(m)}     # (an illegal move checks nothing)
            allowed = {m.uci() for m in emitted}
        if not needed <= got_set <= allowed:
            diffs.append(f"{mode.name.lower()}: the set differs from python-chess's: missing "
                         f"{sorted(needed - got_set)}, extra {sorted(got_set - allowed)}")
    # COUNT: the moves at once, en passant aside; the legal moves' number unless it says not.
    got_count, want_count = hw.count(), count_moves(pos, side, config, hw.legal_moves)
    legal_count = sum(not board.is_en_passant(m) for m in board.legal_moves)
    if not hw.legal_moves and not isinstance(board, chess.variant.AntichessBoard):
        pinned = any(board.is_pinned(board.turn, sq) for sq in chess.SquareSet(board.occupied_co[board.turn]))
        if want_count[1] != (pinned or any(board.is_en_passant(m) for m in board.pseudo_legal_moves)):
            diffs.append(f"count {'in' if want_count[1] else ''}exact, python-chess: a pin {pinned}")
    if got_count != want_count or not want_count[1] and want_count[0] != legal_count:
        diffs.append(f"count {got_count}, model {want_count}, python-chess {legal_count} (en passant aside)")
    # A ply that turns to CHECKS halfway (a search node pruning its late moves from then on),
    # KEEP before (the search's PREFETCH).
    turn = len(all_moves) // 2
    modes = [GenMode.ALL] + [GenMode.KEEP] * turn + [GenMode.CHECKS] * len(all_moves)
    got = [hw.request(GenOp.FIRST if i == 0 else GenOp.NEXT, mode=mode) for i, mode in enumerate(modes)]
    want = ply_moves(pos, side, modes, config, hw.legal_moves)
    if [_signature(g) if g.found else None for g in got] != [w and _signature(w) for w in want]:
        diffs.append(f"all to checks after {turn + 1} moves: hardware "
                     f"{' '.join(g.uci if g.found else '-' for g in got)}, model "
                     f"{' '.join(w.uci if w else '-' for w in want)}")
    for move in all_moves:
        played = chess.Move.from_uci(move.uci)
        if not move.may_check and board.is_legal(played) and board.gives_check(played):
            diffs.append(f"{move.uci} gives check, but the generator says it certainly does not")
    state = hw.state()
    if state.in_check != board.is_check():
        diffs.append(f"check flag {int(state.in_check)}, python-chess {int(board.is_check())}")
    want_forced, want_moveless = forced(pos, side, config), moveless(pos, side, config)
    if (state.forced, state.moveless) != (want_forced, want_moveless):
        diffs.append(f"antichess flags (forced, moveless) {int(state.forced)} {int(state.moveless)}, "
                     f"model {int(want_forced)} {int(want_moveless)}")
    for name, open_in in (("captures", captures_open), ("checks", checks_open)):
        want_open, got_open = open_in(pos, side, config, hw.legal_moves), getattr(state, f"{name}_open")
        if got_open != want_open:
            diffs.append(f"{name} open {int(got_open)}, model {int(want_open)}")
    for colour in (0, 1):
        want = sum(1 << sq for sq in chess.SQUARES if board.is_attacked_by(colour == 0, sq))
        if state.attacks[colour] != want:
            wrong = [chess.square_name(sq) for sq in chess.SQUARES if (state.attacks[colour] ^ want) >> sq & 1]
            diffs.append(f"squares attacked by {'white' if colour == 0 else 'black'} wrong at {' '.join(wrong)}")
    legal = {m.uci for m in legal_by_king_check(hw, board, all_moves)}
    want_legal = {m.uci() for m in board.legal_moves}
    if legal != want_legal:
        diffs.append(f"legal after the king check: missing {sorted(want_legal - legal)}, "
                     f"extra {sorted(legal - want_legal)}")
    if hw.state().planes != state.planes:
        diffs.append("make/unmake did not restore the board")
    return diffs
