"""The reference search: the algorithm the search microprogram (hdl/search/microcode.py) runs,
over the models of the generator and the evaluator, written as a plain recursive negamax.

For the same position, tables and limits it visits the same nodes in the same order as the
hardware, and returns the same value and best move; tests compare the two node for node (the
node counts must be equal, not close).

The algorithm (fail-soft alpha-beta):

* A node counts once when entered: the root, and each child whose move is legal.
* A node other than the root whose position repeats one since the last irreversible move, the
  game's positions before the root included (``models.repetition``), or whose fifty-move clock
  ends the game (``hdl.search.repetition.fifty_move_draw``: past a hundred plies since the last
  capture or pawn move, or at a hundred unless in check), is a draw: 0.
* At the deepest ply (``max_ply`` - 1) a node returns its static value.
* A quiescence node (depth 0) not *pressed* stands pat: the static value is its best so far
  and a cutoff if it reaches beta. It then tries captures and queen promotions only — every
  move when pressed (and then it does not stand pat). Pressed is in check in chess; in
  antichess, having no move at all, or having a capture (so captures are the only moves) —
  with ``bounded``, only at plies below twice the root's depth, as extensions: a forced
  capture's line not followed to its end without standing pat grows the tree by orders of
  magnitude (BENCHMARKS.md).
* Moves come in the generator's order; each is made, and unmade at once if it leaves the
  mover's king attacked. A child has one ply less, except that a node in check does not count
  its moves as a ply, nor is a capture counted that restores the root's material balance (the
  recapture extension) — with ``bounded``, only below twice the root's depth in plies; each
  of the two is a feature of its own (``escapes``, ``recaptures``), on in ``none``, and with
  ``spite`` a check extends only when the side that gave it has two pieces besides pawns and
  king; a quiescence node's children are quiescence nodes.
* ``v`` = -child's value: if ``v`` > best, it is the best (with its move); if ``v`` > alpha,
  alpha rises; if ``v`` >= beta, the node returns its best at once.
* The search's features (``hdl.search.features``, each switchable) change the child's window
  and depth and may search it again: PVS (a null window after the first legal move of a
  full-width node, the full window again when the value lands inside it), late-move
  reductions (quiet late moves one or two plies shallower, again at full depth when they beat
  alpha), futility pruning (a frontier node hopelessly below alpha skips its quiet moves
  that do not give check), late-move pruning (a shallow null-window node that has searched
  enough moves skips its quiet moves that do not give check), delta pruning (a quiescence
  node skips captures that cannot lift its static value to alpha), quiet checks in quiescence
  (the first quiescence ply below a full-width node also searches its quiet moves that give
  check, and every promotion), losing captures (a
  quiescence node skips captures a static exchange loses at its first step; a full-width node
  searches them after all its other moves),
  null-move pruning (a node whose side could pass and still reach beta at a reduced depth
  returns that value; from ``NULL_VERIFY_DEPTH`` only once a shallower search of its moves
  confirms it, ``verification``), singular extensions (a hash move that the node's other moves,
  searched shallower, all stay well below is searched a ply deeper; with ``multicut`` the node
  returns at once where one of them reaches beta as well), reverse futility pruning (where null-move or futility
  pruning looks at the static value, a shallow null-window node returns it when it is far
  above beta) and killer moves (each ply's last two quiet moves that cut
  off, tried before a full-width node's first move that is no capture);
  mate-distance pruning returns a node whose window no value can reach (a mate nearer than
  the next ply, a mate farther than this one) at once.
  A child searched again is entered and counted again; only one that searched or found a table
  entry is (a repetition, a stalemate and the deepest ply's static value are exact).
* A node with no legal move returns its starting best, mated here (``ply`` - MATE), except a
  full-width node not in check: stalemate, 0. In antichess (a ``chess.variant.AntichessBoard``)
  a side without a move wins: a pressed node with no legal move returns ``MATE - ply`` (exact,
  not stored); there is no stalemate, and check extends nothing.
* A full-width node (depth > 0) probes the transposition table (``TranspositionTable``, the
  hardware's size and replacement): below the root an entry as deep as the node whose bound
  decides the window is the node's value; otherwise the entry's move, if the generator emits it,
  is tried first and skipped when the move order reaches it. A full-width node that returns
  its best (not a stalemate) stores it, with its bound against the window it was entered with.
* The static value is the evaluator's, from the side to move's view, clamped to
  +-``EVAL_LIMIT``.
"""

from dataclasses import dataclass

import chess

from hdl.encoding import PIECE_FIELDS, Colour, HalfmoveOp
from hdl.movegen.layouts import CHESS, VictimOrder
from hdl.search.features import (
    DELTA_MARGIN,
    EXTENSION_BOUND,
    FUTILITY_MARGIN,
    IIR_DEPTH,
    KILLERS,
    LMP_DEPTH,
    LMR_AFTER,
    LMR_MIN_DEPTH,
    NULL_MIN_DEPTH,
    NULL_VERIFY_DEPTH,
    REVERSE_DEPTH,
    REVERSE_MARGIN,
    SINGULAR_DEPTH,
    SINGULAR_MARGIN,
    SINGULAR_SHALLOWER,
    SPITE_PIECES,
    SearchFeatures,
    exclusion_depth,
    lmp_count,
    lmr_reduction,
    null_reduction,
)
from hdl.search.frame import EVAL_LIMIT, INFINITY, MATE, MATE_BOUND
from hdl.search.hashtable import CHECK_BITS, GENERATION_BITS, Bound
from hdl.search.material import PIECE_VALUES
from hdl.search.repetition import next_clock
from hdl.search.zobrist import SIDE_KEY, piece_square_key

from .evaluator import EvaluatorModel
from .movegen import antichess, config_for
from .ordering import emitted_moves, move_word, ordered_moves
from .position import MachinePosition, inverse, move_halfmoves, setup_halfmoves
from .repetition import drawn, game_history, is_irreversible
from .zobrist import position_key

__all__ = ["ReferenceSearch", "ReferenceResult", "material_balance", "follow_best_moves"]


def material_balance(board):
    """White's material minus Black's in pawns, as hdl/search/material.py counts it."""
    return sum(PIECE_VALUES[piece.piece_type] * (1 if piece.color == chess.WHITE else -1)
               for piece in board.piece_map().values())


class _Node:
    """A node's state while its moves are searched (the hardware's frame)."""

    def __init__(self, ply, depth, alpha, beta, pressed, checks=False, escaping=False):
        self.ply, self.depth, self.alpha0, self.alpha, self.beta = ply, depth, alpha, alpha, beta
        self.pressed = pressed
        self.escaping = escaping        # in check, its moves count no ply (escapes, spite)
        self.checks = checks and not pressed    # a quiescence node that searches its quiet checks
        self.best, self.best_move, self.best_word = ply - MATE, None, 0
        self.tried = 0                  # legal moves searched (the hardware counts to TRIED_LIMIT)
        self.futile = False             # futility pruning skips quiet moves not giving check
        self.static = None              # a quiescence node's static value, once it stood pat

    @property
    def legal(self):
        return self.tried > 0


@dataclass(frozen=True)
class HashEntry:
    check: int
    depth: int
    bound: Bound
    value: int          # mate scores counted from the position
    move: int           # a move word, 0 for none
    generation: int     # the search that stored it (the host's count modulo 2**GENERATION_BITS)

    def value_at(self, ply):
        """The value counted from the root, for the position at ``ply``."""
        if self.value > MATE_BOUND:
            return self.value - ply
        if self.value < -MATE_BOUND:
            return self.value + ply
        return self.value


class TranspositionTable:
    """The hardware's transposition table (hdl/search/hashtable.py): ``2**index_bits`` entries
    indexed by the key's low bits, told apart by the next CHECK_BITS, depth-preferred within a
    generation (an entry of another generation is replaced)."""

    def __init__(self, index_bits):
        self.index_bits = index_bits
        self.entries = {}
        self.generation = 0                     # the generation of the search storing now

    def _split(self, key):
        return key & ((1 << self.index_bits) - 1), (key >> self.index_bits) & ((1 << CHECK_BITS) - 1)

    def probe(self, key):
        index, check = self._split(key)
        entry = self.entries.get(index)
        return entry if entry is not None and entry.check == check else None

    def store(self, key, ply, depth, node):
        index, check = self._split(key)
        old = self.entries.get(index)
        if old is not None and old.generation == self.generation and depth < old.depth:
            return
        if node.best >= node.beta:
            bound = Bound.LOWER
        elif node.best <= node.alpha0:
            bound = Bound.UPPER
        else:
            bound = Bound.EXACT
        value = node.best
        if value > MATE_BOUND:
            value += ply
        elif value < -MATE_BOUND:
            value -= ply
        self.entries[index] = HashEntry(check, depth, bound, value, node.best_word, self.generation)


def follow_best_moves(board, best_word, play=None, limit=64):
    """The principal variation: from ``board``, the transposition table's best move
    (``best_word(game)``, 0 for none) followed while it is legal, the position has not been
    seen on the line and at most ``limit`` moves; ``play(game, move)`` is told each move
    before it is pushed."""
    line, game = [], board.copy()
    seen = {game._transposition_key()}
    while len(line) < limit:
        word = best_word(game)
        move = None
        if word:
            move = next((m for m in game.legal_moves if move_word(game, m) == word), None)
        if move is None:
            break
        if play is not None:
            play(game, move)
        game.push(move)
        line.append(move)
        if game._transposition_key() in seen:
            break
        seen.add(game._transposition_key())
    return line


def root_move_word(board, root_move, depth):
    """START's root move field for a search of ``board`` ``depth`` plies deep restricted to
    ``root_move`` (None: every move, 0); ``ValueError`` unless the move is legal there and the
    depth at least 1."""
    if root_move is None:
        return 0
    if board is None or root_move not in board.legal_moves or depth < 1:
        raise ValueError(f"a root move must be legal in the position and the depth at least 1, "
                         f"not {root_move} at depth {depth}")
    return move_word(board, root_move)


@dataclass(frozen=True)
class ReferenceResult:
    score: int
    move: chess.Move    # None when no move was best (no legal move, or the root stood pat)
    nodes: int


class ReferenceSearch:
    """Searches a python-chess board with an evaluator's tables (a ``TableStore``)."""

    def __init__(self, params, store, *, max_ply=64, hash_bits=12):
        self.params, self.store, self.max_ply, self.hash_bits = params, store, max_ply, hash_bits
        self.table = None
        self.features = SearchFeatures()
        self.killers = {}
        self.config, self.antichess = CHESS, False     # the last search's rules (``search`` sets them)

    def search(self, board, depth, alpha=-INFINITY, beta=INFINITY, trace=None, clear_table=True, generation=0,
               features=None, root_move=None, keep_killers=False, victim_order=VictimOrder.MOST_VALUABLE):
        """The search's result; ``trace``, a list, receives the Zobrist key of each node entered.
        The transposition table starts empty unless ``clear_table`` is false (iterative
        deepening keeps it, as the hardware does when the host does not clear it); its entries
        are stored with ``generation`` (taken modulo 2**GENERATION_BITS, as the hardware does).
        ``features`` (a :class:`~hdl.search.features.SearchFeatures`, all by default) are the
        control word the search runs with. ``root_move`` (a legal move; depth at least 1)
        restricts the root to that one move: searched as its hash move would be, nothing else,
        the root not stored (the host's root loop). ``keep_killers``: the killer moves of the
        search before stay (a root loop's searches of sibling moves share them). An
        ``AntichessBoard`` is searched in antichess; ``victim_order`` is the generator's capture
        order (START's configuration)."""
        self.root_word = root_move_word(board, root_move, depth)
        self.config = config_for(board, victim_order)
        self.antichess = antichess(self.config)
        self.features = SearchFeatures() if features is None else features
        self.trace = trace
        self.board = board.copy(stack=False)
        self.evaluator = EvaluatorModel(self.params, self.store)
        for halfmove in setup_halfmoves(self.board):
            self.evaluator.apply(halfmove)
        self.root_material = material_balance(self.board)
        self.root_depth = depth
        self.material = self.root_material
        self.path = game_history(board)         # [(key, irreversible, clock)], the root last
        self.board_key = self.path[-1][0] ^ (SIDE_KEY if board.turn == chess.BLACK else 0)
        self.nodes = 0
        if not keep_killers:
            self.killers = {}                   # ply -> killer move words, the newer first
        if clear_table or self.table is None:
            self.table = TranspositionTable(self.hash_bits)
        self.table.generation = generation % (1 << GENERATION_BITS)
        score, move, _ = self._node(0, depth, alpha, beta)
        return ReferenceResult(score, move, self.nodes)

    def principal_variation(self, board, limit=64):
        """The principal variation of the last search from ``board``, from its table."""
        def best_word(game):
            key = position_key(MachinePosition.from_board(game), 0 if game.turn == chess.WHITE else 1)
            entry = self.table.probe(key)
            return entry.move if entry is not None else 0
        return follow_best_moves(board, best_word, limit=limit)

    def static(self):
        self.evaluator.set_side(0 if self.board.turn == chess.WHITE else 1)
        value = self.evaluator.value()
        if self.board.turn == chess.BLACK:
            value = -value
        return max(-EVAL_LIMIT, min(EVAL_LIMIT, value))

    def _node(self, ply, depth, alpha, beta, may_pass=True, verifying=False, checks=False):
        """The node's value, its best move (None if none improved on its starting best), and
        whether the value is exact whatever the window and depth (a draw by repetition or
        stalemate, or the deepest ply's static value: such a child is not searched again).
        ``may_pass``: false for a node reached by a null move, or searched again after one;
        ``verifying``: the node is searched again to verify its null move's cutoff; ``checks``:
        a quiescence node that searches its quiet moves giving check too (``qchecks``)."""
        self.nodes += 1
        if self.trace is not None:
            self.trace.append(self.key())
        board = self.board
        pressed = self._pressed(ply)
        if ply > 0 and drawn(self.path, pressed and not self.antichess):
            return 0, None, True
        if ply == self.max_ply - 1:
            return self.static(), None, True
        # the best and the worst a node can score: mating at the next ply and mated here (chess),
        # winning here and lost at the next ply (antichess)
        worst, best_possible = ply - MATE + self.antichess, MATE - ply - 1 + self.antichess
        if self.features.mate_distance and ply > 0 and (alpha >= best_possible or beta <= worst):
            return max(alpha, worst), None, False
        node = _Node(ply, depth, alpha, beta, pressed, checks, self._escaping(pressed))
        hash_word, singular_beta, entered = 0, None, depth
        if depth > 0:
            entry = self.table.probe(self.key())
            if entry is not None:
                value = entry.value_at(ply)
                if ply > 0 and entry.depth >= depth and (
                        entry.bound == Bound.EXACT
                        or entry.bound == Bound.LOWER and value >= beta
                        or entry.bound == Bound.UPPER and value <= alpha):
                    return value, None, False
                hash_word = entry.move
                if (self.features.singular and ply > 0 and depth >= SINGULAR_DEPTH and not verifying
                        and entry.depth + SINGULAR_SHALLOWER >= depth and entry.bound != Bound.UPPER
                        and abs(value) <= MATE_BOUND):
                    singular_beta = value - SINGULAR_MARGIN
            nullable = (self.features.null and ply > 0 and not pressed and depth >= NULL_MIN_DEPTH
                        and beta - alpha == 1 and may_pass and self._has_pieces())
            frontier = self.features.futility and depth == 1 and ply > 0 and not pressed
            if self.features.iir and ply > 0 and not pressed and depth >= IIR_DEPTH and not hash_word:
                depth = node.depth = depth - 1      # one ply shallower; entered again at ``entered``
            static = self.static() if nullable or frontier else None     # what both prunings read
            if (self.features.reverse and static is not None and beta - alpha == 1 and depth <= REVERSE_DEPTH
                    and static - REVERSE_MARGIN * depth >= beta):
                return static, None, False
            if nullable and static >= beta:
                value = self._pass(node)
                if value >= beta:
                    if self.features.verification and depth >= NULL_VERIFY_DEPTH:
                        return self._verify(ply, depth, entered, alpha, beta)
                    node.best = value
                    self.table.store(self.key(), ply, depth, node)
                    return value, None, False
            if frontier:
                futile = static + FUTILITY_MARGIN
                if futile <= alpha:
                    node.best, node.futile, hash_word = futile, True, 0
        elif not pressed:
            stand_pat = node.static = self.static()
            node.best = stand_pat
            node.alpha = max(alpha, stand_pat)
            if stand_pat >= beta:
                return node.best, None, False
        restricted = ply == 0 and self.root_word != 0    # the host's root loop: one root move
        if restricted:
            hash_word = self.root_word
        words = {}
        if hash_word:
            words = _emitted(board)
        cut = False
        if hash_word in words:
            singular = False
            if singular_beta is not None:
                excluded = self._excluded(node, hash_word, singular_beta)
                singular = excluded < singular_beta
                if not singular and self.features.multicut and singular_beta >= beta:
                    return excluded, None, False    # another move reaches beta too (nothing stored)
            cut = self._try(node, words[hash_word], singular)
        if not cut and not restricted:
            for move in self._ordered(node, hash_word):
                if node.static is not None and (
                        self.features.delta and node.static + 100 * _gain(board, move) + DELTA_MARGIN <= node.alpha
                        or self.features.losing and _losing(board, move)):
                    continue                # delta pruning, a losing capture: not even made
                if self._try(node, move):
                    break
            else:
                if not node.legal and self.antichess and pressed:
                    return MATE - ply, None, True   # antichess: no move, a win (not stored)
                if not node.legal and not pressed and depth > 0 and not node.futile and not self.antichess:
                    return 0, None, True    # stalemate (not stored)
        if depth > 0 and not restricted:
            self.table.store(self.key(), ply, depth, node)
        return node.best, node.best_move, False

    def _ordered(self, node, hash_word):
        """The node's moves after its hash move, in the hardware's order: the generator's, the
        killer moves (those the generator would emit here, not the hash move) before its first
        move that is no capture unless the node prunes late moves by then, without the moves
        tried already, and (``losing``, a full-width node) the losing captures last."""
        board = self.board
        killers = []            # the killers to try, each not the hash move
        if self.features.killers and node.depth > 0 and not node.futile:
            killers = [word for word in self.killers.get(node.ply, ()) if word and word != hash_word]
        passed = {hash_word} if hash_word else set()
        deferred = []           # losing captures, searched after the rest
        defer = self.features.losing and node.depth > 0
        least_valuable_first = VictimOrder(self.config["victim_order"]) == VictimOrder.LEAST_VALUABLE
        captures = node.depth == 0 and not node.checks
        for move in ordered_moves(board, captures=captures, least_valuable_first=least_valuable_first):
            if killers and not board.is_capture(move):
                if not self._late(node):        # (a late node would skip them unless they check)
                    words = _emitted(board)
                    yield from (words[word] for word in killers if word in words)
                    passed.update(killers)
                killers = []
            if passed and move_word(board, move) in passed:
                continue
            if defer and _losing(board, move):
                deferred.append(move)
            else:
                yield move
        yield from deferred

    def _excluded(self, node, hash_word, singular_beta):
        """The best value of ``node``'s moves but its hash move, searched ``exclusion_depth`` deep
        with the window (``singular_beta`` - 1, ``singular_beta``), nothing stored: the hash move
        is singular if it is below ``singular_beta``."""
        test = _Node(node.ply, exclusion_depth(node.depth), singular_beta - 1, singular_beta, node.pressed,
                     escaping=node.escaping)
        for move in self._ordered(test, hash_word):
            if self._try(test, move):
                break
        return test.best

    def _try(self, node, move, singular=False):
        """Search one move of ``node`` (nothing if it is illegal), one ply deeper if it is
        ``singular``; whether it cuts off."""
        board = self.board
        capture = board.is_capture(move)
        quiet = not capture and not move.promotion
        irreversible, zeroing = is_irreversible(board, move), board.is_zeroing(move)
        word = move_word(board, move)
        halfmoves = self._make(move)
        pruning = node.futile or node.checks or self._late(node)    # quiet moves searched only if they check
        if board.was_into_check() or pruning and quiet and not board.is_check():
            self._unmake(halfmoves)     # illegal, or pruned (futility, late-move pruning, quiescence)
            return False
        self.path.append((self.key(), irreversible, next_clock(self.path[-1][2], zeroing)))
        features = self.features
        reduced = scout = False
        if node.depth == 0:
            depth = 0
        else:
            recapture = features.recaptures and capture and self.material == self.root_material
            extending = (node.escaping or recapture or singular) and (
                not features.bounded or node.ply < EXTENSION_BOUND * self.root_depth)
            depth = node.depth - 1 + extending
            wide = node.beta - node.alpha > 1
            # a late quiet move at a null-window node: fewer plies unless it gives check
            reduced = (features.lmr and node.depth >= LMR_MIN_DEPTH and node.tried >= LMR_AFTER and not wide
                       and not node.pressed and quiet and not board.is_check())
            scout = features.pvs and node.legal and wide
        while True:
            window = (-node.alpha - 1, -node.alpha) if scout else (-node.beta, -node.alpha)
            child_depth = depth - lmr_reduction(node.depth, node.tried, features.later) * reduced
            value, _, exact = self._node(node.ply + 1, child_depth, *window,
                                         checks=self._checks(node.depth, child_depth))
            value = -value
            if exact:
                break
            if reduced and value > node.alpha:
                reduced = False         # again at full depth
            elif scout and node.alpha < value < node.beta:
                scout = False           # again with the full window
            else:
                break
        self.path.pop()
        self._unmake(halfmoves)
        node.tried += 1
        if value > node.best:
            node.best, node.best_move, node.best_word = value, move, word
        node.alpha = max(node.alpha, value)
        if value >= node.beta and quiet and self.features.killers:
            killers = self.killers.get(node.ply, [0] * KILLERS)
            if word != killers[0]:
                self.killers[node.ply] = [word] + killers[:-1]
        return value >= node.beta

    def _checks(self, depth, child_depth):
        """Whether a child of ``child_depth`` entered from a node of ``depth`` is a quiescence
        node that searches its quiet checks: the first quiescence ply below a full-width node
        (``qchecks``; chess only)."""
        return self.features.qchecks and not self.antichess and depth > 0 and child_depth == 0

    def _late(self, node):
        """Whether ``node`` skips its quiet moves that do not give check now (late-move pruning)."""
        return (self.features.lmp and 1 <= node.depth <= LMP_DEPTH and not node.pressed
                and node.beta - node.alpha == 1 and node.tried >= lmp_count(node.depth))

    def _pass(self, node):
        """The null move's value for ``node``: the other side moves, fewer plies deep."""
        halfmoves = self._make(chess.Move.null())
        self.path.append((self.key(), True, next_clock(self.path[-1][2], False)))
        depth = _null_depth(node.depth)
        value = -self._node(node.ply + 1, depth, -node.beta, -node.alpha, may_pass=False,
                            checks=self._checks(node.depth, depth))[0]
        self.path.pop()
        self._unmake(halfmoves)
        return value

    def _verify(self, ply, depth, entered, alpha, beta):
        """A node of ``depth`` whose null move reached beta, searched again in place without
        passing: at the null move's depth, and if that stays below beta at the depth it was
        ``entered`` with (``iir`` may have made ``depth`` one less; nothing stored for the null
        move's cutoff)."""
        value, move, exact = self._node(ply, _null_depth(depth), alpha, beta, may_pass=False, verifying=True)
        if exact or value >= beta:
            return value, move, exact
        return self._node(ply, entered, alpha, beta, may_pass=False)

    def _pressed(self, ply):
        """Whether the node at ``ply`` may not stand pat: in check (chess); without a move, or
        forced to capture — with ``bounded`` only below ``EXTENSION_BOUND`` times the root's
        depth — (antichess)."""
        board = self.board
        if not self.antichess:
            return board.is_check()
        moves = list(board.legal_moves)
        within = not self.features.bounded or ply < EXTENSION_BOUND * self.root_depth
        return not moves or within and any(board.is_capture(move) for move in moves)

    def _escaping(self, pressed):
        """Whether a node entered ``pressed`` extends its moves: in check (chess) with ``escapes``,
        and with ``spite`` only when the side that gave the check has ``SPITE_PIECES`` pieces
        besides pawns and king."""
        if not (self.features.escapes and pressed and not self.antichess):
            return False
        return not self.features.spite or self._pieces(not self.board.turn) >= SPITE_PIECES

    def _pieces(self, colour):
        """How many pieces besides pawns and king ``colour`` has."""
        board = self.board
        return chess.popcount(board.occupied_co[colour] & ~board.pawns & ~board.kings)

    def _has_pieces(self):
        """Whether the side to move has a piece besides pawns and king."""
        return self._pieces(self.board.turn) > 0

    def key(self):
        """The Zobrist key of the position, the side to move included."""
        return self.board_key ^ (SIDE_KEY if self.board.turn == chess.BLACK else 0)

    def _make(self, move):
        halfmoves = move_halfmoves(self.board, move)
        self._apply(halfmoves)
        self.board.push(move)
        return halfmoves

    def _unmake(self, halfmoves):
        self.board.pop()
        self._apply(inverse(halfmoves))

    def _apply(self, halfmoves):
        for halfmove in halfmoves:
            self.evaluator.apply(halfmove)
            self.material += _material_change(halfmove)
            self.board_key ^= piece_square_key(halfmove.piece, halfmove.square)



def _null_depth(depth):
    """The depth of the search after a null move from a node of ``depth``."""
    return max(0, depth - 1 - null_reduction(depth))


def _emitted(board):
    """The moves the generator would emit on ``board`` (its LEGAL query), by move word."""
    return {move_word(board, move): move for move in emitted_moves(board)}


def _losing(board, move):
    """Whether ``move`` is a capture (not a promotion) by a piece worth more than its victim to a
    square the opponent attacks, as the controller judges it."""
    if not board.is_capture(move) or move.promotion:
        return False
    return (PIECE_VALUES[board.piece_type_at(move.from_square)] > PIECE_VALUES[_victim(board, move)]
            and board.is_attacked_by(not board.turn, move.to_square))


def _gain(board, move):
    """The material ``move`` wins, in pawns: its victim's, and a promotion's (the piece less the
    pawn), as the controller counts it for delta pruning."""
    gain = PIECE_VALUES[_victim(board, move) or 0]
    return gain + (PIECE_VALUES[move.promotion] - 1 if move.promotion else 0)


def _victim(board, move):
    """The piece type ``move`` captures (a pawn for en passant), None if none."""
    return chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)


def _material_change(halfmove):
    """The change of White's material minus Black's that a halfmove makes."""
    piece_type, colour = PIECE_FIELDS[halfmove.piece]
    value = PIECE_VALUES[piece_type]
    white = colour == Colour.WHITE.value
    return value if (halfmove.op == HalfmoveOp.PLACE) == white else -value
