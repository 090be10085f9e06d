"""The search's features: the control word START carries, switching each refinement of plain
alpha-beta on or off for one search (docs/architecture.md §5.3), and their constants.

* ``pvs`` — principal variation search: at a full-width node whose window is wider than a
  null window, every legal move after the first is searched with the null window
  (alpha, alpha + 1) and searched again with the full window when its value lands strictly
  inside it.
* ``lmr`` — late-move reductions: at a null-window node (PVS makes them: the principal
  variation is not reduced) of depth >= ``LMR_MIN_DEPTH`` not in check, a quiet move (no
  capture, no promotion) searched after ``LMR_AFTER`` legal moves, whose position is not check,
  is searched ``lmr_reduction(depth, tried, later)`` plies shallower; if it beats alpha it is
  searched again at full depth.
* ``later`` — later moves reduced more: with ``lmr``, a late move at a node of depth >=
  ``LMR_LATER_DEPTH`` searched after ``LMR_LATER`` legal moves is reduced two plies, not one
  (as every late move is from ``LMR_DEEP``): the reduction grows with the move's place in the
  order as well as with the depth, as the logarithmic formulas of today's engines make it.
* ``lmp`` — late-move pruning (move-count pruning): at a null-window node of depth 1 to
  ``LMP_DEPTH`` not in check that has searched ``lmp_count(depth)`` legal moves, a quiet move
  (no capture, no promotion) whose position is not check is skipped — made, and unmade uncounted,
  as futility pruning skips one. The generator's order puts quiet moves to squares the
  opponent does not attack and to central squares first, so the moves skipped are the late ones
  of that order (after the hash move, the captures and the killers).
* ``futility`` — futility pruning at frontier nodes: a full-width node of depth 1 below the
  root, not in check, whose static value plus ``FUTILITY_MARGIN`` cannot reach alpha skips its
  quiet moves (no capture, no promotion) that do not give check — each is made, and unmade
  uncounted when the position is not check — and its hash move; its best starts at the static
  value plus the margin, and having no move left to search is no stalemate there.
* ``delta`` — delta pruning in quiescence: a quiescence node that stood pat skips a capture
  (or promotion) whose gain — the victim's material, a promotion's — times 100 plus
  ``DELTA_MARGIN`` cannot lift its static value to alpha (the move is not even made).
* ``null`` — null-move pruning: a null-window node below the root, not in check, of depth >=
  ``NULL_MIN_DEPTH``, not itself reached by a null move, whose side has a piece besides pawns
  and king and whose static value reaches beta first passes (the null move: only an en-passant
  marker goes) and searches the position ``null_reduction(depth)`` plies shallower still (at
  least quiescence) with the window (beta - 1, beta); if that value reaches beta it is the node's
  value (stored as a lower bound without a move). Otherwise the node searches its moves as if
  it had not passed.
* ``verification`` — null-move verification: a node of depth >= ``NULL_VERIFY_DEPTH`` whose
  null move reached beta does not return at once (nor store): it is searched again in place at
  the null move's depth (``null_reduction`` and the move's own ply less, its window as before)
  without passing; if that value reaches beta it is the node's value, else the node is searched
  again at its own depth, still without passing (zugzwang: passing was its best move).
* ``singular`` — singular extensions: a full-width node below the root of depth >=
  ``SINGULAR_DEPTH`` whose hash move the generator accepts, from a table entry at most
  ``SINGULAR_SHALLOWER`` plies shallower than the node that is a lower bound or exact (not a
  mate score), first searches its other moves ``exclusion_depth(depth)`` deep with the window
  (s - 1, s), s = the entry's value - ``SINGULAR_MARGIN`` (nothing stored). If none reaches s
  the hash move is singular: it is searched one ply deeper (an extension, ``bounded`` like the
  others). Then the node searches all its moves as usual. Not while verifying a null move.
* ``multicut`` — with ``singular``: where the test finds another move reaching s and s is at
  least the node's beta (so the hash move is expected to reach beta too, and another move
  does), the node returns at once the other moves' best (nothing stored; its value is a bound,
  as a null move's cutoff), without searching its hash move or the rest: Stockfish's
  "multi-cut". Off by default: in 100 games against sunfish at 10,000 nodes a move the machine
  scored as many points with it as without (+0.0, 95 %: -6.1 to +6.1; BENCHMARKS.md,
  2026-11-29).
* ``killers`` — killer moves: each ply keeps the last two quiet moves (no capture, no
  promotion; not the null move) that made a node at that ply cut off, the newer first, both
  forgotten when a search starts. A full-width node not skipping quiet moves (not futile, not
  yet pruning late moves), on reaching its first move that is no capture, tries first each
  killer that is not its hash
  move and that the generator would emit here (the LEGAL query), then goes on with that move;
  a killer tried is passed over when the generator reaches it again.
* ``losing`` — losing captures: a capture (not a promotion) by a piece worth more than its
  victim (``PIECE_VALUES``) to a square the opponent attacks (the generator's ``safe`` bit)
  fails the first step of a static exchange evaluation. A quiescence node not in check skips
  it (the move is not even made); a full-width node searches it after all its other moves
  (passed over when generated, then found when the node goes through its captures again).
* ``mate_distance`` — mate-distance pruning: a node below the root at ``ply`` can do no better
  than mate at the next ply (``MATE - ply - 1``) nor worse than mated here (``ply - MATE``);
  when its window (alpha, beta) holds neither (alpha >= ``MATE - ply - 1`` or beta <=
  ``ply - MATE``) it returns at once: alpha, or ``ply - MATE`` if that is more — after the
  repetition and deepest-ply tests, before the transposition table. A node so returned may be
  searched again (its value is a bound).
* ``reverse`` — reverse futility pruning (the "static null move"): a node at which null-move
  pruning (``nullable``: depth >= ``NULL_MIN_DEPTH``) or futility pruning (a frontier node)
  looks at the static value, of depth at most ``REVERSE_DEPTH`` and with a null window, returns
  that static value when it reaches beta plus ``REVERSE_MARGIN`` per ply of its depth: so far
  above beta that no reply is searched (nothing is stored; its value is a bound, as a null
  move's cutoff).
* ``iir`` — internal iterative reductions: a full-width node below the root, not in check, of
  depth >= ``IIR_DEPTH`` without a hash move (no table entry, or one without a move) searches
  one ply shallower (its moves, its pruning and what it stores all see the depth less one):
  a node the table knows nothing of is searched less deeply, and the next iteration finds its
  entry. The table's cutoff and whether the node may pass (``null``) or is a frontier node
  are judged at the node's own depth first; a child searched again (a re-search, a null
  move's verification that failed) is entered at its own depth again. Off by default: it
  completes a depth in about 0.7 times the nodes, but in 100 games against sunfish at 10,000
  nodes a move it scored 3 points less than the same machine without it (BENCHMARKS.md,
  2026-11-29).
* ``qchecks`` — quiet checks in quiescence: the first quiescence ply below a full-width node
  (a child of depth 0 whose parent has depth > 0: a frontier node's child, a late move reduced
  to quiescence, a null move's search), not in check, searches the moves that give check
  besides its captures and promotions — every promotion, as a futile node does: it asks the
  generator for ``GenMode.CHECKS`` and makes each quiet move, skipping (uncounted) those whose
  position is not check. Deeper quiescence plies search captures only. Chess only: antichess
  has no check. A quiet move passes delta pruning only when the static value is within
  ``DELTA_MARGIN`` of alpha (it gains no material). It costs a third more nodes to complete
  depth 3. In 150 games against sunfish at 10,000 nodes a move the machine scored as many
  points with it as without (117.5 each). It solved 4 more of 362 tactical positions at
  10,000 nodes and as many at 100,000, and it finds mates whose last move is quiet, which
  the null move's search would hide (BENCHMARKS.md, 2026-11-29). So it is on by default.
* ``bounded`` — bounded extensions: a node extends its children (check escapes, recaptures:
  they do not count as a ply) only at plies below ``EXTENSION_BOUND`` times the root's depth,
  so that no line of checks or exchanges runs on to the deepest ply.
* ``escapes`` — the check extension: a full-width node in check searches each of its moves
  (the escapes) at its own depth, not a ply less: the move that gave the check counts no ply.
  Chess only. In the machine before these features (``none`` keeps it).
* ``recaptures`` — the recapture extension: a capture that restores the root's material
  balance counts no ply (at a full-width node). In the machine before these features (``none``
  keeps it). On by default for that reason only: its measured worth is nil either way (100
  games against sunfish -2.5 points, 95 %: -12.2 to +7.2; 289 of 392 tactical positions with it
  and without; BENCHMARKS.md, 2026-12-01).
* ``spite`` — with ``escapes``, a check counts no ply only when the side that gave it has at
  least ``SPITE_PIECES`` pieces besides pawns and king (as the node in check is entered):
  the checks of a lone piece (a rook ending's) are mostly spite checks, and extending them
  makes an ending's iterations grow steeply, while a mating attack keeps its extension. Off by
  default: at 100,000 nodes it solved as many of 392 tactical positions as the machine
  without it (289; three endings gained, three positions lost), and no games have judged it
  (BENCHMARKS.md, 2026-11-30, eighth session).

``none`` is the machine these features were added to: plain alpha-beta with its check and
recapture extensions (the fields whose ``baseline`` is true), every other feature off.

A child searched again is entered again (and counted again) at once: the re-search happens in
place, without unmaking its move. Only a child that searched (or found a table entry) is
searched again; a draw by repetition, a stalemate and the static value at the deepest ply are
exact whatever the window and depth.
"""

from dataclasses import dataclass, field, fields

from amaranth.lib import data

__all__ = ["SearchFeatures", "Features", "FEATURE_BITS", "EXTENSION_BOUND", "KILLERS", "LMR_MIN_DEPTH",
           "LMR_AFTER", "LMR_DEEP", "LMR_LATER_DEPTH", "LMR_LATER", "lmr_reduction", "FUTILITY_MARGIN",
           "DELTA_MARGIN", "NULL_MIN_DEPTH", "NULL_DEEP", "NULL_VERIFY_DEPTH", "null_reduction", "SINGULAR_DEPTH",
           "SINGULAR_SHALLOWER", "SINGULAR_MARGIN", "exclusion_depth", "REVERSE_DEPTH", "REVERSE_MARGIN", "LMP_DEPTH",
           "lmp_count", "TRIED_LIMIT", "IIR_DEPTH", "SPITE_PIECES"]

#: Late-move reductions: the shallowest node that reduces, and how many legal moves it
#: searches in full first.
LMR_MIN_DEPTH = 3
LMR_AFTER = 3

#: Late-move pruning: the deepest node that skips late quiet moves.
LMP_DEPTH = 3

#: What a quiet move may gain at a frontier node, in centipawns.
FUTILITY_MARGIN = 200

#: Delta pruning: what a capture may gain beyond its victim's material, in centipawns.
DELTA_MARGIN = 200

#: Reverse futility pruning: the deepest node that returns its static value, and by how much
#: per ply of depth that value must reach beyond beta, in centipawns.
REVERSE_DEPTH = 3
REVERSE_MARGIN = 120

#: Null-move pruning: the shallowest node that passes; from NULL_DEEP the reduction is 3, not 2.
NULL_MIN_DEPTH = 2
NULL_DEEP = 6
#: From this depth a null move's cutoff is verified (``verification``).
NULL_VERIFY_DEPTH = 5

#: Singular extensions: the shallowest node that tests its hash move, how much shallower its
#: table entry may be, and how far below the entry's value the other moves must stay.
SINGULAR_DEPTH = 5
SINGULAR_SHALLOWER = 3
SINGULAR_MARGIN = 40

#: Internal iterative reductions: the shallowest node reduced.
IIR_DEPTH = 4

#: Extensions stop at this many times the root's depth in plies (``bounded``).
EXTENSION_BOUND = 2

#: ``spite``: the pieces besides pawns and king the side giving check needs for the check to extend.
SPITE_PIECES = 2

#: Killer moves kept per ply.
KILLERS = 2

#: The control word's width (the protocol's START field).
FEATURE_BITS = 24


#: From this depth a late move is reduced by two plies, not one.
LMR_DEEP = 6

#: ``later``: from this depth, a move searched after LMR_LATER legal moves is reduced by two.
LMR_LATER_DEPTH = 4
LMR_LATER = 6


def lmr_reduction(depth, tried, later):
    """Plies a late move is reduced by at a node of ``depth`` (>= LMR_MIN_DEPTH) that has
    searched ``tried`` legal moves: 1; 2 from LMR_DEEP, and with ``later`` (the feature) from
    LMR_LATER_DEPTH once LMR_LATER moves are searched. The arguments are ints and a bool (the
    reference) or Amaranth values (the controller)."""
    return 1 + ((depth >= LMR_DEEP) | (later & (depth >= LMR_LATER_DEPTH) & (tried >= LMR_LATER)))


def lmp_count(depth):
    """The legal moves a node of ``depth`` (1..LMP_DEPTH) searches before late-move pruning
    skips its quiet moves: 3 + depth², so 4, 7 and 12 (an int: the controller compares the
    frame's count with it for each depth)."""
    return 3 + depth * depth


#: A frame counts the legal moves it has searched up to this many: enough for late-move
#: reductions (``LMR_AFTER``, ``LMR_LATER``) and late-move pruning (``lmp_count``).
TRIED_LIMIT = max(LMR_AFTER, LMR_LATER, lmp_count(LMP_DEPTH))


def null_reduction(depth):
    """Plies the search after a null move is reduced by, besides the move's own ply: 2, 3 from
    NULL_DEEP (an int or an Amaranth value, as :func:`lmr_reduction`)."""
    return 2 + (depth >= NULL_DEEP)


def exclusion_depth(depth):
    """The depth a singular-extension test searches a node's other moves to: half the node's."""
    return depth // 2


@dataclass(frozen=True)
class SearchFeatures:
    """Which features a search uses (each field one bit of :data:`Features`, in order)."""

    pvs: bool = True
    lmr: bool = True
    futility: bool = True
    null: bool = True
    delta: bool = True
    killers: bool = True
    losing: bool = True
    mate_distance: bool = True
    bounded: bool = True
    verification: bool = True
    singular: bool = True
    reverse: bool = True
    lmp: bool = True
    later: bool = True
    iir: bool = False
    qchecks: bool = True
    multicut: bool = False
    escapes: bool = field(default=True, metadata={"baseline": True})
    recaptures: bool = field(default=True, metadata={"baseline": True})
    spite: bool = False

    @classmethod
    def names(cls):
        return [f.name for f in fields(cls)]

    @classmethod
    def none(cls):
        """The machine before these features: every feature off but the baseline's own (its
        check and recapture extensions)."""
        return cls(**{f.name: f.metadata.get("baseline", False) for f in fields(cls)})

    @classmethod
    def parse(cls, text):
        """Features from text: ``all`` (the default set), ``none``, or comma-separated names,
        each with an optional ``-`` to switch it off or ``+`` to switch it on. Signed names
        alone change the default (``-lmr``: the default without LMR; ``+iir``: the default with
        it); a name without a sign (``pvs,futility``) means ``none`` with those switched on, and
        signed names beside it change that (``pvs,-escapes``). A first word ``none`` or ``all``
        names the set the rest change (``none,-escapes``: plain alpha-beta without the check
        extension)."""
        words = [word.strip() for word in text.strip().lower().split(",") if word.strip()]
        start = None
        if words and words[0] in ("all", "default", "none"):
            start, words = words[0], words[1:]
        unknown = [word for word in words if word.lstrip("-+") not in cls.names()]
        if unknown:
            raise ValueError(f"unknown search feature {unknown[0]!r}: the features are "
                             f"{', '.join(cls.names())} (or all, none)")
        if start is None:
            start = "all" if all(word[0] in "-+" for word in words) else "none"
        base = cls.none() if start == "none" else cls()
        chosen = {name: getattr(base, name) for name in cls.names()}
        for word in words:
            chosen[word.lstrip("-+")] = not word.startswith("-")
        return cls(**chosen)

    def fields(self):
        """The control word's fields, for ``Features.const``."""
        return {name: int(getattr(self, name)) for name in self.names()}

    def word(self):
        """The control word (:data:`Features` packed)."""
        return Features.const(self.fields()).as_bits()

    @classmethod
    def from_word(cls, word):
        if word >> len(cls.names()):
            raise ValueError(f"feature word {word:#x} sets bits no feature has")
        return cls(**{name: bool(word >> bit & 1) for bit, name in enumerate(cls.names())})

    def __str__(self):
        """The features as :meth:`parse` reads them: those on beyond ``none``'s, then ``-name``
        for each of ``none``'s that is off (``none`` first when nothing else is on)."""
        baseline = self.none()
        on = [name for name in self.names() if getattr(self, name) and not getattr(baseline, name)]
        off = [f"-{name}" for name in self.names() if getattr(baseline, name) and not getattr(self, name)]
        return ",".join(on + off if on else ["none", *off])


#: The control word's layout: a bit per feature, in :class:`SearchFeatures`' order.
Features = data.StructLayout({**{name: 1 for name in SearchFeatures.names()},
                              "unused": FEATURE_BITS - len(SearchFeatures.names())})
