"""The microprograms of the search controller (hdl/search/controller.py), written with the
micro-assembler. ``program()`` is the default micro-store image.

Hardware perft: depth-first over the generator's pseudo-legal moves; each move is made, kept
if the mover's king is not attacked, counted at the depth limit, and unmade. The ply is the
generator's context index and the maker's undo index, so no recursion stack is needed: after
unmaking, the parent asks its generator context for the NEXT move.
"""

from .assembler import Program
from .controller import SPEC

__all__ = ["program"]


def perft(p):
    p.label("perft")
    p.op(clear=1, branch=["depth_zero"], targets=["perft_root", "perft_trivial"])
    p.label("perft_trivial")
    p.op(count=1, done=1, goto="idle")
    p.label("perft_root")
    p.op(gen="FIRST")                                     # a ply's first move
    p.op(wait="GEN", branch=["found"], targets=["perft_exhausted", "perft_make"])
    p.label("perft_make")
    p.op(maker="MAKE", ply="DOWN")      # the side toggles while the maker plays the move
    # illegal is bit 0, at_leaf bit 1
    p.op(wait="SETTLED", branch=["illegal", "at_leaf"],
         targets=["perft_root", "perft_undo", "perft_leaf", "perft_undo"])
    p.label("perft_leaf")
    p.op(count=1, ply="UP", maker="UNMAKE", goto="perft_next")
    p.label("perft_undo")
    p.op(ply="UP", maker="UNMAKE")
    p.label("perft_next")
    p.op(gen="NEXT")                    # taken once the maker is done and the board settled
    p.op(wait="GEN", branch=["found"], targets=["perft_exhausted", "perft_make"])
    p.label("perft_exhausted")
    p.op(branch=["at_root"], targets=["perft_undo", "perft_finish"])
    p.label("perft_finish")
    p.op(done=1, goto="idle")


def program():
    p = Program(SPEC)
    p.label("idle")
    p.op(branch=["start"], targets=["idle", "perft"])
    perft(p)
    return p
