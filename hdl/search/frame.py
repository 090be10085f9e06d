"""The search's per-ply state: the current node's frame in registers, its ancestors on a stack.

A frame is what one node of the negamax alpha-beta search keeps while its children are
searched: its window, its best value and move so far, the move being searched, the remaining
depth, and flags. Going down a ply pushes the current frame (with the move being made) and
loads the child's; coming back pops it. Values follow docs/architecture.md §3.5: signed 16-bit,
mate near ±``MATE`` adjusted by the ply, draw 0.
"""

from amaranth import Module, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import VALUE_WIDTH, MoveWord
from .features import KILLERS, TRIED_LIMIT

__all__ = ["MATE", "INFINITY", "EVAL_LIMIT", "MATE_BOUND", "Frame", "FrameStack"]

#: The value of mating at the root; being mated at ply p scores ``-(MATE - p)``.
MATE = 32000
#: Wider than any value a node returns: the widest window.
INFINITY = MATE + 1
#: Static values are clamped to +-EVAL_LIMIT so that they stay clear of mate scores.
EVAL_LIMIT = 30000
#: Values beyond +-MATE_BOUND are mate scores (a mate within 64 plies).
MATE_BOUND = MATE - 64

Value = signed(VALUE_WIDTH)

#: One node's state. ``alpha0`` is alpha on entry (the bound type of the result needs it).
Frame = data.StructLayout({
    "alpha": Value,
    "beta": Value,
    "alpha0": Value,
    "best": Value,
    "move": MoveWord,        # the move being searched from this node
    "best_move": MoveWord,
    "depth": 6,              # plies left; 0 is a quiescence node
    "pressed": 1,            # the node may not stand pat: in check (chess); it must capture, or
                             # it has no move (antichess)
    "escaping": 1,           # in check, its moves count no ply (escapes; spite: set on entry)
    "material": signed(8),   # the position's material balance (MaterialCounter's), for the
                             # recapture extension of its moves: the board's may be a transfer
                             # behind when a move is made (an UNMAKE's last transfer on the bus)
    "tried": range(TRIED_LIMIT + 1),  # legal moves searched, counted up to TRIED_LIMIT
    "scout": 1,              # searched with a null window its parent narrowed (PVS, LMR)
    "reduced": 1,            # searched shallower than its parent's depth gives (LMR)
    "futile": 1,             # a frontier node skipping quiet moves (futility pruning)
    "checks": 1,             # a quiescence node searching its quiet checks too (qchecks: the first
                             # quiescence ply below a full-width node; cleared on entry if pressed)
    "late": 1,               # the move being searched from here comes late: quiet, it is skipped
                             # unless it gives check (late-move pruning; set as the move is made)
    "null_done": 1,          # the last move made from here is the null move
    "static": Value,         # a quiescence node's static value, once it stood pat (delta pruning)
    "slot": 16,              # the position's transposition-table index
    "check": 16,             # ... and check bits
    "hash_move": MoveWord,   # the table's best move for the position (0: none), tried first
    "generating": 1,         # the generator has been asked for this node's moves
    "killing": range(KILLERS + 1),  # the killer moves considered (0 until the first non-capture)
    "deferred": 1,           # a losing capture was passed over, to be searched after the rest (losing)
    "revisiting": 1,         # ... and the node now goes through its captures again for them
    "verifying": 1,          # searched again, shallower, to verify its null move's cutoff
    "verified": 1,           # ... which failed: searched again at its depth (neither passes)
    "depth_before": 6,       # a verifying or excluding node's own depth
    "shallower": 1,          # the depth is one less than the node was entered with (iir)
    "singular_candidate": 1,  # the table's entry makes the hash move a candidate (singular extensions)
    "singular_beta": Value,  # ... that singular moves stay below (the entry's value less the margin)
    "excluding": 1,          # searching its other moves to test the hash move: the window is
    "beta_before": Value,    # (singular_beta - 1, singular_beta), its own beta kept here
    "excluded": 1,           # the test is done
    "singular": 1,           # ... and the hash move is singular: extended
})


class FrameStack(wiring.Component):
    """The current frame and a stack of one frame per ply above it.

    In each cycle exactly one of: ``load`` (current := ``next``), ``push`` (the stack's entry
    at ``ply`` := ``pushed``, the current frame as the owner leaves it; current := ``next``)
    or ``pop`` (current := ``next``, which the owner derives from ``parent``: the parent's
    frame, changed by what the returning child brings). The stack is a small memory read
    combinationally, so all three take effect at the next edge.

    Interface attributes
    --------------------
    ply : In                      the current node's ply
    current : Out(Frame)
    parent : Out(Frame)           the stack's entry at ``ply`` - 1
    next : In(Frame)
    load, push, pop : In(1)
    pushed : In(Frame)
    """

    def __init__(self, *, max_ply=64):
        self._max_ply = max_ply
        super().__init__({
            "ply": In(range(max_ply)),
            "current": Out(Frame),
            "parent": Out(Frame),
            "next": In(Frame),
            "load": In(1),
            "push": In(1),
            "pop": In(1),
            "pushed": In(Frame),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.stack = stack = Memory(shape=Frame, depth=self._max_ply, init=[])
        write, read = stack.write_port(), stack.read_port(domain="comb")
        m.d.comb += [write.addr.eq(self.ply), write.en.eq(self.push), write.data.eq(self.pushed),
                     read.addr.eq(self.ply - 1), self.parent.eq(read.data)]
        with m.If(self.load | self.push | self.pop):
            m.d.sync += self.current.eq(self.next)
        return m
