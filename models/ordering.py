"""The move generator's order, computed quickly from a python-chess board.

The same moves in the same order as ``models.movegen.ordered_moves`` (the bit-exact model,
written square by square), from python-chess's legal moves and attack masks, about
fifty times faster; the reference search (``models.search``) needs that speed.
``tests/test_search_model.py`` proves the two equal on every reference position and random walks.
"""

from functools import cache

import chess

from hdl.encoding import MoveWord, unpack
from hdl.movegen.geometry import CENTRALITY, DIRECTIONS, PROMOTION_ORDER, SLOT_COUNT, SLOT_INDEX, TOP_PROMOTION
from hdl.movegen.layouts import MoveKey, safe_field, victim_priority

__all__ = ["emitted_moves", "ordered_moves", "move_word", "move_of_word"]

_OFFSET = {name: field.offset for name, field in MoveKey}
_WORD = {name: field.offset for name, field in MoveWord}
_FLAG = {name: _WORD["flags"] + field.offset for name, field in MoveWord["flags"].shape}
#: Promotion piece -> promotion_rank (queen first, then knight, rook, bishop, king).
_PROMOTION_RANK = {None: TOP_PROMOTION} | {piece: TOP_PROMOTION - i for i, piece in enumerate(PROMOTION_ORDER)}
_DIRECTION = {(df, dr): name for name, df, dr in DIRECTIONS}
_SLIDER = {chess.BISHOP: "bishop", chess.ROOK: "rook", chess.QUEEN: "queen"}


def _sign(x):
    return (x > 0) - (x < 0)


@cache
def _slot(piece_type, df, dr, castle):
    """The slot (geometry.SLOTS index) of a move by ``piece_type`` of (df, dr) in the mover's frame."""
    if castle:
        return SLOT_INDEX["castle"]
    if piece_type == chess.PAWN:
        if df:
            return SLOT_INDEX["pawn_x_from_sw" if df > 0 else "pawn_x_from_se"]
        return SLOT_INDEX["pawn_double_push" if dr == 2 else "pawn_push"]
    if piece_type == chess.KNIGHT:
        return SLOT_INDEX[f"knight_{df:+d}{dr:+d}"]
    direction = _DIRECTION[(_sign(df), _sign(dr))]
    if piece_type == chess.KING:
        return SLOT_INDEX[f"king_{direction}"]
    return SLOT_INDEX[f"{_SLIDER[piece_type]}_{direction}"]


def emitted_moves(board):
    """The moves the generator emits on ``board``, unordered: the legal moves, and every
    pseudo-legal en-passant capture (legal or not: the search makes it and tests the king)."""
    yield from (move for move in board.generate_legal_moves() if not board.is_en_passant(move))
    yield from board.generate_pseudo_legal_ep()


def ordered_moves(board, captures=False, least_valuable_first=False):
    """The moves of the side to move the generator emits (``emitted_moves``), in its order;
    with ``captures`` only captures and queen promotions (all moves when in check), as
    GenMode.CAPTURES. ``board`` may be a ``chess.variant.AntichessBoard`` (the generator's
    antichess rules); ``least_valuable_first``: the key's victim order
    (``VictimOrder.LEAST_VALUABLE``)."""
    us = board.turn
    flip = 0 if us == chess.WHITE else 56
    if captures and board.is_check():
        captures = False
    antichess = board.uci_variant == "antichess"
    enemy_attacks = 0
    for square in chess.scan_forward(board.occupied_co[not us]):
        enemy_attacks |= board.attacks_mask(square)
    keyed = []
    for move in emitted_moves(board):
        to, origin = move.to_square, move.from_square
        en_passant = board.is_en_passant(move)
        victim = chess.PAWN if en_passant else (board.piece_type_at(to) or 0)
        if captures and not victim and move.promotion != chess.QUEEN:
            continue
        to_rel, from_rel = to ^ flip, origin ^ flip
        df = (to_rel & 7) - (from_rel & 7)
        dr = (to_rel >> 3) - (from_rel >> 3)
        slot = _slot(board.piece_type_at(origin), df, dr, board.is_castling(move))
        key = ((_PROMOTION_RANK[move.promotion] << _OFFSET["promotion_rank"])
               | ((SLOT_COUNT - 1 - slot) << _OFFSET["attacker"])
               | (to_rel << _OFFSET["square"])
               | (CENTRALITY[to_rel] << _OFFSET["centrality"])
               | (safe_field(enemy_attacks >> to & 1, antichess and not victim and to != board.ep_square)
                  << _OFFSET["safe"])
               | (victim_priority(victim, least_valuable_first) << _OFFSET["victim"]))
        keyed.append((key, move))
    keyed.sort(key=lambda item: item[0], reverse=True)
    return [move for _, move in keyed]


def move_word(board, move):
    """The move word (``hdl.encoding.MoveWord``) of a pseudo-legal move on ``board``."""
    double_push = board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16
    return ((move.from_square << _WORD["from_sq"]) | (move.to_square << _WORD["to_sq"])
            | ((move.promotion or 0) << _WORD["promotion"])
            | (board.is_capture(move) << _FLAG["capture"]) | (board.is_en_passant(move) << _FLAG["en_passant"])
            | (board.is_castling(move) << _FLAG["castle"]) | (double_push << _FLAG["double_push"]))


def move_of_word(word):
    """The python-chess move of a move word (None for the empty word 0): the inverse of
    :func:`move_word` as far as the word's fields go."""
    if not word:
        return None
    fields = unpack(MoveWord, word)
    return chess.Move(fields["from_sq"], fields["to_sq"], fields["promotion"] or None)
