"""Bit-exact model of the move generator: which moves, in which order, with which key.

This is the specification the hardware in ``hdl/movegen`` must meet, written square by square
for clarity rather than as the hardware's bit-planes. For a position (``MachinePosition``) and a
side to move it lists every legal move (in the four senses of the SUPREM paper: the origin
holds the right piece, the destination is empty or enemy, a slider's path is empty, and the
own king is not attacked after the move) with its key (``hdl.movegen.layouts.MoveKey``); an
en-passant capture comes whether it is legal or not (the search makes it and tests the king).
The generator emits them in strictly decreasing key order: the move after one with key k is
the best move whose key is below k.

Every function takes the generator's configuration (``GenConfig``, as a dict; chess by
default). In antichess (``Variant.ANTICHESS``) the king is an ordinary piece: no move is
refused for the king's sake, there is no castling and no check, a pawn promotes to a king too,
and when the side to move has a capture (en passant included) only its captures are moves.
With ``VictimOrder.LEAST_VALUABLE`` the key's victim field is reversed (``victim_priority``).
"""

import functools
from dataclasses import dataclass

import chess

from hdl.encoding import PIECE_CODES, PIECE_FIELDS, MoveWord, pack
from hdl.movegen.geometry import (
    CENTRALITY,
    CHESS_PROMOTIONS,
    DIRECTIONS,
    PROMOTION_ORDER,
    SLOT_COUNT,
    SLOTS,
    TOP_PROMOTION,
    file_of,
    rank_of,
    ray_squares,
    step_square,
)
from hdl.movegen.layouts import CHESS, GenMode, MoveKey, Variant, VictimOrder, safe_field, victim_priority

__all__ = [
    "GenMove", "MoverFrame", "candidate_moves", "ordered_moves", "ply_moves", "count_moves", "next_move",
    "is_legal_word", "attacked_squares", "king_attacked", "in_check", "forced", "moveless", "captures_open",
    "checks_open", "antichess", "config_for",
]

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(1, 7)
E1, C1, D1, F1, G1, A1, B1, H1 = 4, 2, 3, 5, 6, 0, 1, 7


@dataclass(frozen=True)
class GenMove:
    """One generated move: absolute squares, the move word and the key."""
    from_sq: int
    to_sq: int
    promotion: int      # python-chess type, 0 if none
    capture: bool
    en_passant: bool
    castle: bool
    double_push: bool
    piece: int          # moving piece code
    victim: int         # captured piece code, 0 if none
    key: int
    may_check: bool     # False: the move certainly gives no check (MoverFrame.may_check)

    @property
    def word(self):
        return pack(MoveWord, from_sq=self.from_sq, to_sq=self.to_sq, promotion=self.promotion,
                    flags={"capture": int(self.capture), "en_passant": int(self.en_passant),
                           "castle": int(self.castle), "double_push": int(self.double_push)})

    @property
    def uci(self):
        return chess.Move(self.from_sq, self.to_sq, self.promotion or None).uci()


def antichess(config):
    """Whether a generator configuration plays antichess."""
    return Variant(config["variant"]) == Variant.ANTICHESS


def config_for(board, victim_order=VictimOrder.MOST_VALUABLE):
    """The generator's configuration for a python-chess board: antichess for a
    ``chess.variant.AntichessBoard``, chess otherwise."""
    variant = Variant.ANTICHESS if board.uci_variant == "antichess" else Variant.CHESS
    return {"variant": variant, "victim_order": victim_order}


class MoverFrame:
    """The position seen by the side to move, flipped so that it moves up the board."""

    def __init__(self, position, side, config=CHESS):
        self.side = side                  # 0 white, 1 black
        self.antichess = antichess(config)
        self.flip = 56 if side else 0
        self.own = [0] * 64               # python-chess piece type of own pieces, 0 elsewhere
        self.enemy = [0] * 64
        for sq, code in enumerate(position.pieces):
            if code:
                rel = sq ^ self.flip
                piece_type, colour = PIECE_FIELDS[code]
                if colour == side:
                    self.own[rel] = piece_type
                else:
                    self.enemy[rel] = piece_type
        self.markers = {sq ^ self.flip for sq in range(64) if position.markers >> sq & 1}
        self.enemy_attacks = self._enemy_attacks()
        self.enemy_king = next((sq for sq in range(64) if self.enemy[sq] == KING), None)
        self.own_king = next((sq for sq in range(64) if self.own[sq] == KING), None)
        self.king_lines, self.discoverers = self._king_lines()

    def empty(self, sq):
        return not self.own[sq] and not self.enemy[sq]

    def en_passant_square(self):
        """The en-passant target this side may capture on (a marker on the sixth rank)."""
        for sq in self.markers:
            if rank_of(sq) == 5 and self.empty(sq):
                return sq
        return None

    def _enemy_attacks(self):
        attacked = set()
        for sq in range(64):
            kind = self.enemy[sq]
            if not kind:
                continue
            if kind == PAWN:          # enemy pawns move down the board
                steps, ray = [(-1, -1), (1, -1)], False
            elif kind == KNIGHT:
                steps, ray = [s.step for s in SLOTS if s.piece == KNIGHT], False
            elif kind == KING:
                steps, ray = [s.step for s in SLOTS if s.piece == KING and s.kind == "leap"], False
            else:
                steps, ray = [s.step for s in SLOTS if s.piece == kind], True
            for df, dr in steps:
                target = step_square(sq, df, dr)
                while target is not None:
                    attacked.add(target)
                    if not ray or not self.empty(target):
                        break
                    target = step_square(target, df, dr)
        return attacked

    def leaves_king_safe(self, origin, to):
        """Whether the move from ``origin`` to ``to`` (not en passant) leaves the own king
        unattacked (always, in antichess)."""
        if self.antichess:
            return True
        own, enemy = list(self.own), list(self.enemy)
        own[to], own[origin], enemy[to] = own[origin], 0, 0
        king = to if own[to] == KING else self.own_king
        return king is None or not _attacked(king, own, enemy)

    @functools.cached_property
    def checkers(self):
        """The squares of the enemy pieces that check the own king (none in antichess)."""
        if self.antichess or self.own_king is None:
            return set()
        return {sq for sq in range(64) if self.enemy[sq] and _attacked(self.own_king, self.own, self.enemy, {sq})}

    def answers_checks(self, origin, to):
        """Whether the move from ``origin`` to ``to`` (not the king's, not en passant) leaves
        the own king unattacked by every piece that checks it now — legal but for a pin: what
        the lean generator (``legal=False``) decides."""
        if not self.checkers:
            return True
        own, enemy = list(self.own), list(self.enemy)
        own[to], own[origin], enemy[to] = own[origin], 0, 0
        return not _attacked(self.own_king, own, enemy, self.checkers)

    @functools.cached_property
    def pinned(self):
        """Whether an own piece is pinned to the own king: first on one of the king's lines with
        an enemy slider of the line next (never in antichess)."""
        if self.antichess or self.own_king is None:
            return False
        return any(shield is not None for _, _, shield in self._lines(self.own_king, self.enemy))

    def _lines(self, king, behind):
        """Per direction from ``king``: ``(diagonal?, the line up to and including its first
        piece, shield)``, the shield being that piece if it is an own one with a slider of the
        line (bishop or queen diagonally, rook or queen orthogonally) of ``behind`` (own or
        enemy pieces by square) next on the line, else None: the cells' ``_king_lines``."""
        for _, df, dr in DIRECTIONS:
            diagonal = df != 0 and dr != 0
            line, pieces = [], []       # the first two pieces on the line
            for sq in ray_squares(king, df, dr):
                if not pieces:
                    line.append(sq)
                if not self.empty(sq):
                    pieces.append(sq)
                    if len(pieces) == 2:
                        break
            sliders = (BISHOP, QUEEN) if diagonal else (ROOK, QUEEN)
            shielding = len(pieces) == 2 and self.own[pieces[0]] and behind[pieces[1]] in sliders
            yield diagonal, line, pieces[0] if shielding else None

    def _king_lines(self):
        """``({diagonal?: squares on the enemy king's lines, each line up to and including its
        first piece}, discoverers)``: the discoverers are own pieces first on such a line with an
        own slider of the line next on it."""
        lines, discoverers = {True: set(), False: set()}, set()
        if self.enemy_king is None:
            return lines, discoverers
        for diagonal, line, shield in self._lines(self.enemy_king, self.own):
            lines[diagonal].update(line)
            if shield is not None:
                discoverers.add(shield)
        return lines, discoverers

    def may_check(self, slot, origin, to, promotion, en_passant):
        """False when the move certainly gives no check: its piece on ``to`` would not attack
        the enemy king on the board as it stands, and its origin unmasks no line to it (a
        slider's: no discoverer is of its type). Castling, en passant and promotions: True. In
        antichess, which has no check, every other move: False."""
        if slot.kind == "castle" or promotion or en_passant:
            return True
        if self.antichess:
            return False
        king = self.enemy_king
        direct = False
        if king is not None:
            df, dr = file_of(king) - file_of(to), rank_of(king) - rank_of(to)
            if slot.piece == PAWN:
                direct = dr == 1 and abs(df) == 1
            elif slot.piece == KNIGHT:
                direct = (abs(df), abs(dr)) in ((1, 2), (2, 1))
            elif slot.piece in (BISHOP, ROOK, QUEEN):
                direct = (slot.piece != ROOK and to in self.king_lines[True]
                          or slot.piece != BISHOP and to in self.king_lines[False])
        if slot.kind == "ray":
            unmasked = any(self.own[sq] == slot.piece for sq in self.discoverers)
        else:
            unmasked = origin in self.discoverers
        return direct or unmasked

    def origin(self, slot, to):
        """The origin of a move arriving at ``to`` through ``slot``, or None if there is none.

        Returns ``(origin, en_passant)``; the move exists when the origin holds an own piece of
        the slot's type and the destination and path fit the slot.
        """
        df, dr = slot.step
        if slot.kind == "castle":
            return self._castle_origin(to), False
        if slot.kind == "ray":
            origin = step_square(to, -df, -dr)
            while origin is not None and self.empty(origin):
                origin = step_square(origin, -df, -dr)
        else:
            origin = step_square(to, -df, -dr)
        if origin is None or self.own[origin] != slot.piece or self.own[to]:
            return None, False
        if slot.kind == "pawn_capture":
            if self.enemy[to]:
                return origin, False
            if to == self.en_passant_square():
                return origin, True
            return None, False
        if slot.kind == "push":
            return (origin if self.empty(to) else None), False
        if slot.kind == "double_push":
            middle = step_square(to, 0, -1)
            ok = rank_of(to) == 3 and self.empty(to) and self.empty(middle)
            return (origin if ok else None), False
        return origin, False

    def _castle_origin(self, to):
        if self.own[E1] != KING or self.antichess:
            return None
        if to == G1:
            rook, path, transit = H1, (F1, G1), (E1, F1, G1)
        elif to == C1:
            rook, path, transit = A1, (B1, C1, D1), (E1, D1, C1)
        else:
            return None
        ok = (rook in self.markers and self.own[rook] == ROOK
              and all(self.empty(sq) for sq in path)
              and not any(sq in self.enemy_attacks for sq in transit))
        return E1 if ok else None


def _attacked(sq, own, enemy, only=None):
    """Whether an enemy piece (``enemy``: a type per mover's-frame square; enemy pawns move
    down) attacks ``sq`` with the board ``own`` and ``enemy`` (with ``only``, a set of
    squares: one of the pieces standing there; the others still block)."""
    def counts(target):
        return only is None or target in only

    def at(df, dr, kinds):
        target = step_square(sq, df, dr)
        return target is not None and enemy[target] in kinds and counts(target)

    if at(-1, 1, (PAWN,)) or at(1, 1, (PAWN,)):
        return True
    if any(at(*s.step, (KNIGHT,)) for s in SLOTS if s.piece == KNIGHT):
        return True
    for _, df, dr in DIRECTIONS:
        if at(df, dr, (KING,)):
            return True
        sliders = (BISHOP, QUEEN) if df and dr else (ROOK, QUEEN)
        for target in ray_squares(sq, df, dr):
            if enemy[target] or own[target]:
                if enemy[target] in sliders and counts(target):
                    return True
                break
    return False


def candidate_moves(position, side, config=CHESS, legal=True):
    """Every legal move of ``side`` (0 white, 1 black) in ``position`` (pseudo-legal, and the
    own king not attacked after it; in antichess, captures only when there is one), and every
    pseudo-legal en passant (the search makes it and tests the king: the generator does not
    decide it), unordered. ``legal=False``: the lean generator's (``SquareCells``): the
    legal moves and a pinned piece's that leave its line (the search tests those)."""
    frame = MoverFrame(position, side, config)
    promotion_pieces = PROMOTION_ORDER if frame.antichess else PROMOTION_ORDER[:CHESS_PROMOTIONS]
    ep_square = frame.en_passant_square()
    moves = []
    for to in range(64):
        if frame.own[to]:
            continue
        for index, slot in enumerate(SLOTS):
            origin, en_passant = frame.origin(slot, to)
            if origin is None:
                continue
            if not en_passant and slot.kind != "castle":
                if legal or slot.piece == KING:
                    if not frame.leaves_king_safe(origin, to):
                        continue
                elif not frame.answers_checks(origin, to):
                    continue
            victim_type = PAWN if en_passant else frame.enemy[to]
            key_fields = {
                "victim": victim_priority(
                    victim_type, VictimOrder(config["victim_order"]) == VictimOrder.LEAST_VALUABLE),
                "safe": safe_field(to in frame.enemy_attacks,
                                   frame.antichess and not frame.enemy[to] and to != ep_square),
                "centrality": CENTRALITY[to],
                "square": to,
                "attacker": SLOT_COUNT - 1 - index,
            }
            promotions = promotion_pieces if slot.piece == PAWN and rank_of(to) == 7 else [0]
            for rank, promotion in zip(range(TOP_PROMOTION, -1, -1), promotions):
                key = pack(MoveKey, promotion_rank=rank, **key_fields)
                moves.append(GenMove(
                    from_sq=origin ^ frame.flip, to_sq=to ^ frame.flip, promotion=promotion,
                    capture=bool(victim_type), en_passant=en_passant,
                    castle=slot.kind == "castle", double_push=slot.kind == "double_push",
                    piece=PIECE_CODES[slot.piece, side],
                    victim=PIECE_CODES[victim_type, side ^ 1] if victim_type else 0,
                    key=key, may_check=frame.may_check(slot, origin, to, promotion, en_passant)))
    if frame.antichess and any(m.capture for m in moves):
        moves = [m for m in moves if m.capture]
    return moves


def _wanted(move, mode):
    if mode == GenMode.CAPTURES:
        return move.capture or move.promotion == QUEEN
    if mode == GenMode.CHECKS:
        return move.capture or bool(move.promotion) or move.may_check
    return True


def _cell(move):
    """The destination cell a move comes from: its key's prefix above the attacker field."""
    return move.key >> MoveKey["square"].offset


def ordered_moves(position, side, mode=GenMode.ALL, config=CHESS, legal=True):
    """The moves in the order the generator emits them at a fresh ply."""
    if in_check(position, side, config):
        mode = GenMode.ALL
    moves = [m for m in candidate_moves(position, side, config, legal) if _wanted(m, mode)]
    return sorted(moves, key=lambda m: m.key, reverse=True)


def ply_moves(position, side, modes, config=CHESS, legal=True):
    """The answers of a ply to FIRST then NEXT requests in ``modes`` (one mode per request):
    a move each, or None once it is exhausted. While the mode stays the same this is
    ``ordered_moves``; a request that changes it gets the rest of the current cell in the
    mode the cell was entered in, then the best cell not entered yet in the new mode. KEEP
    (not for the first request) is the mode the cell entered last was entered in."""
    checked = in_check(position, side, config)
    candidates = sorted(candidate_moves(position, side, config, legal), key=lambda m: m.key, reverse=True)
    taken, last, cell_mode, answers = set(), None, None, []
    for mode in modes:
        mode = cell_mode if mode == GenMode.KEEP else GenMode.ALL if checked else mode
        move = None
        if last is not None:
            move = next((m for m in candidates if _cell(m) == _cell(last) and m.key < last.key
                         and _wanted(m, cell_mode)), None)
        if move is None:
            move = next((m for m in candidates if _cell(m) not in taken and _wanted(m, mode)), None)
            if move is not None:
                taken.add(_cell(move))
                cell_mode = mode
        answers.append(move)
        last = move or last
    return answers


def count_moves(position, side, config=CHESS, legal=True):
    """The generator's COUNT: ``(the moves but en passant, whether that is not the number of
    legal moves)``: there is an en passant, or (the lean generator, ``legal=False``) a pinned
    piece, whose moves off its line are counted too."""
    moves = candidate_moves(position, side, config, legal)
    inexact = any(m.en_passant for m in moves) or not legal and MoverFrame(position, side, config).pinned
    return sum(not m.en_passant for m in moves), inexact


def next_move(position, side, last_key=None, mode=GenMode.ALL, config=CHESS):
    """The move the generator returns after ``last_key`` (None: a fresh ply), or None."""
    for move in ordered_moves(position, side, mode, config):
        if last_key is None or move.key < last_key:
            return move
    return None


def is_legal_word(position, side, word, config=CHESS, legal=True):
    """Whether the move word is one the generator emits here (``candidate_moves``, flags exact)."""
    return any(m.word == word for m in candidate_moves(position, side, config, legal))


def attacked_squares(position, colour):
    """Bitboard of the squares attacked by ``colour`` (0 white, 1 black), absolute frame."""
    # The enemy of the other side is ``colour``: reuse the mover's-frame attack map.
    frame = MoverFrame(position, colour ^ 1)
    bits = 0
    for sq in frame.enemy_attacks:
        bits |= 1 << (sq ^ frame.flip)
    return bits


def king_attacked(position, colour, config=CHESS):
    """Whether the king of ``colour`` stands on a square the other colour attacks (a king of
    it, in antichess: never, the generator does not say)."""
    if antichess(config):
        return False
    attacks = attacked_squares(position, colour ^ 1)
    king = (colour << 3) | KING
    return any(code == king and attacks >> sq & 1 for sq, code in enumerate(position.pieces))


def in_check(position, side, config=CHESS):
    return king_attacked(position, side, config)


def forced(position, side, config=CHESS):
    """Antichess: the side to move has a capture, so its captures are its only moves."""
    return antichess(config) and any(m.capture for m in candidate_moves(position, side, config))


def captures_open(position, side, config=CHESS, legal=True):
    """Whether a fresh ply in CAPTURES mode finds a move, check aside (a capture, or a push to
    the queen's promotion): the generator's ``captures_open``."""
    return any(_wanted(m, GenMode.CAPTURES) for m in candidate_moves(position, side, config, legal))


def checks_open(position, side, config=CHESS, legal=True):
    """Whether a fresh ply in CHECKS mode finds a move, check aside (a capture, a promotion, or
    a move that may give check): the generator's ``checks_open``."""
    return any(_wanted(m, GenMode.CHECKS) for m in candidate_moves(position, side, config, legal))


def moveless(position, side, config=CHESS):
    """Antichess: the side to move has no move at all (it wins)."""
    return antichess(config) and not candidate_moves(position, side, config)
