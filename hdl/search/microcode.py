"""The microprograms of the search controller (hdl/search/controller.py), written with the
micro-assembler. ``program()`` is the default micro-store image: an idle loop that starts
hardware perft or the search.

Hardware perft: depth-first over the generator's moves; each move is made, kept if the mover's
king is not attacked, counted at the depth limit, and unmade — above the depth limit the moves
are counted at once, unmade (the generator's are legal, en passant excepted, and the lean
generator's pinned pieces' moves). The ply is the
generator's context index and the maker's undo index, so no recursion stack is needed: while
a move is made its ply's NEXT move is prefetched, and taken when the move is unmade.
"""

from .assembler import Program
from .controller import SPEC

__all__ = ["program"]


def perft(p, count_interior=False):
    """Hardware perft; with ``count_interior`` every legal node below the root counts, not only
    the leaves (the node count of the whole perft tree).

    A node whose children are leaves (``above_leaf``) counts its moves at once (COUNT: the
    generator counts its moves by popcounts) — unless the count is not the legal moves': an en
    passant, which the generator emits legal or not, or with the lean generator a pinned piece,
    whose moves off its line it emits too. Then the node goes through its moves one by one, each
    counted unmade but the en passant and the pinned pieces' moves, which are made and tested as
    the moves of the other nodes are."""
    # A move from the generator (bit 0 found, bit 1 a leaf counted unmade, bit 2 en passant):
    # made, counted, or the node is done.
    answer = dict(branch=["found", "legal_leaf", "en_passant"],
                  targets=["perft_exhausted", "perft_make", "perft_exhausted", "perft_count",
                           "perft_exhausted", "perft_make", "perft_exhausted", "perft_make"])
    p.label("perft")
    p.op(clear=1, branch=["depth_zero", "above_leaf"],
         targets=["perft_root", "perft_trivial", "perft_bulk", "perft_trivial"])
    p.label("perft_trivial")
    p.op(count="ONE", done=1, goto="idle")
    p.label("perft_bulk")   # a node above the leaves: its moves counted at once (found: en passant)
    p.op(gen="COUNT")
    p.op(wait="GEN", branch=["found"], targets=["perft_counted", "perft_root"])
    p.label("perft_counted")
    p.op(count="ANSWER", branch=["at_root"], targets=["perft_undo", "perft_finish"])
    p.label("perft_root")
    p.op(gen="FIRST")                                     # a ply's first move
    p.op(wait="GEN", **answer)
    p.label("perft_count")  # a leaf counted unmade; the next move
    p.op(count="ONE", gen="NEXT")
    p.op(wait="GEN", **answer)
    p.label("perft_make")   # the ply's next move is found while the maker plays this one
    p.op(maker="MAKE", ply="DOWN", gen="PREFETCH")     # (the side toggles meanwhile)
    # bit 0 illegal, bit 1 at_leaf, bit 2 above_leaf
    interior = ["perft_interior", "perft_interior_bulk"] if count_interior else ["perft_root", "perft_bulk"]
    p.op(wait="SETTLED", branch=["illegal", "at_leaf", "above_leaf"],
         targets=[interior[0], "perft_undo", "perft_leaf", "perft_undo",
                  interior[1], "perft_undo", "perft_undo", "perft_undo"])
    if count_interior:
        p.label("perft_interior")
        p.op(count="ONE", goto="perft_root")
        p.label("perft_interior_bulk")
        p.op(count="ONE", goto="perft_bulk")
    p.label("perft_leaf")
    p.op(count="ONE", ply="UP", maker="UNMAKE", take=1, goto="perft_resume")
    p.label("perft_undo")
    p.op(ply="UP", maker="UNMAKE", take=1)
    p.label("perft_resume")  # the prefetched move
    p.op(**answer)
    p.label("perft_exhausted")
    p.op(branch=["at_root"], targets=["perft_undo", "perft_finish"])
    p.label("perft_finish")
    p.op(done=1, goto="idle")


def _child_entry(index):
    """Where a child goes from ``made``'s branch ``index`` (skipped, quiescence, pressed, ends
    here): as the root's ``enter`` would, or back when its move was illegal or futile. A
    quiescence child has asked for its first move already, if it has one to find (``made``'s
    QUIESCENT request)."""
    skipped, quiescence, pressed, ends_here = (index >> bit & 1 for bit in range(4))
    if skipped:
        return "take_back"
    if ends_here:
        return "ending"
    return ["probe", "stand_pat_asked", "probe", "first_answer"][quiescence | pressed << 1]


def search(p):
    """Negamax alpha-beta with quiescence, fail-soft; the specification is the reference search
    in models/search.py, which visits the same nodes in the same order.

    Every position reached joins the repetition detector's path (and leaves it when its move
    is unmade); a node other than the root whose position repeats one since the last
    irreversible move (the game's history before the root included), or whose fifty-move clock
    ends the game (``repetition.fifty_move_draw``), is a draw.

    A full-width node probes the transposition table: an entry as deep as the node's depth
    whose bound decides the window returns at once (not at the root); otherwise the entry's
    move, if the generator's LEGAL query accepts it, is searched first and skipped when the
    generator produces it again. A full-width node stores its result when it returns.

    A node is entered with its frame loaded (the window, the depth). Full-width nodes try every
    move; quiescence nodes (depth 0) first stand pat on the static value, then try captures —
    every move when pressed (in check; in antichess, forced to capture or without a move),
    without standing pat. In chess a node with no legal move is mated if in check and (full
    width only) stalemate otherwise; in antichess a pressed node with no legal move (it had
    none) has won. The deepest ply returns the static value.

    The search's features (features.py, the control word START carries) narrow a child's
    window (PVS), reduce its depth (late-move reductions) — the datapath does both as it steps
    down — and search it again in place when its value calls for it; futility pruning makes a
    hopeless frontier node skip its quiet moves that do not give check; reverse futility
    pruning returns a shallow node's static value where it is far above beta; null-move pruning lets
    a node pass first and return if even then its value reaches beta; mate-distance pruning
    returns a node whose window no value can reach; killer moves go before
    a full-width node's first move that is no capture (the move waits in the PREFETCH slot);
    a full-width node searches its losing captures last (it goes through its captures again).
    A null move's cutoff deep enough is verified by searching the node again, shallower and
    without passing; a hash move from a firm table entry is first tested for a singular
    extension by searching the other moves, shallower, below the entry's value.
    """
    # A move from the generator: made, passed over, or the killers go before it (bit 0 found,
    # bit 1 passed over, bit 2 killers due)
    answer = dict(defer=1, branch=["found", "passed_over", "killer_due"],
                  targets=["exhausted", "make", "exhausted", "next", "exhausted", "killers", "exhausted", "killers"])
    p.label("search")       # (the host's last halfmove may still be on its way to the board)
    p.op(clear=1, wait="SETTLED", goto="enter")
    p.label("enter")        # the root (a child is entered as its position is pushed: made)
    # bit 0 quiescence, bit 1 pressed, bit 2 at the deepest ply, bit 3 drawn by the path
    p.op(enter=1, count="ONE", branch=["quiescence", "pressed", "at_max", "drawn"],
         targets=["probe", "stand_pat", "probe", "first"] + ["horizon"] * 4 + ["draw"] * 8)
    p.label("ending")       # a child drawn by its path, at the deepest ply, or cut by the mate distance
    p.op(branch=["drawn", "at_max"], targets=["mate_return", "draw", "horizon", "draw"])
    p.label("probe")        # a full-width node: the transposition table may decide it, or
    # give a move to try first; at the frontier, futility pruning may skip quiet moves; deeper,
    # the node may pass first (null-move pruning; frontier and nullable never meet); without a
    # hash move it may go on a ply shallower (iir)
    p.op(iir=1, branch=["hash_cut", "hash_move", "frontier", "nullable"],
         targets=["first", "hash_return", "hash", "hash_return",
                  "frontier_first", "hash_return", "frontier_hash", "hash_return",
                  "null_try", "hash_return", "null_try", "hash_return",
                  "null_try", "hash_return", "null_try", "hash_return"])
    p.label("null_try")     # pass only if the static value reaches beta; return it if it is far above
    p.op(wait="EVAL", cand="STATIC", branch=["strong", "reverse_cut"],
         targets=["moves", "make_null", "reverse_return", "reverse_return"])
    p.label("make_null")
    p.op(maker="NULL", ply="DOWN", goto="made")
    p.label("moves")        # the null move failed (or was not tried): the hash move, or the first
    p.op(branch=["hash_move"], targets=["first", "hash"])
    p.label("frontier_first")   # (futile and reverse_cut never meet)
    p.op(wait="EVAL", cand="FUTILE", branch=["futile", "reverse_cut"],
         targets=["first", "prune", "reverse_return", "reverse_return"])
    p.label("frontier_hash")
    p.op(wait="EVAL", cand="FUTILE", branch=["futile", "reverse_cut"],
         targets=["hash", "prune", "reverse_return", "reverse_return"])
    p.label("prune")        # the static value plus the margin is the node's best so far
    p.op(cand="FUTILE", update=1, prune=1, goto="first")
    p.label("hash")
    p.op(gen="LEGAL")
    p.op(wait="GEN", branch=["found", "singular_due"], targets=["first", "make_hash", "first", "exclude"])
    p.label("exclude")      # first the singular test: the other moves, shallower, below the entry's value
    p.op(exclude=1, goto="first")
    p.label("make_hash")    # (no PREFETCH: the node's first generated move needs a FIRST)
    p.op(maker="MAKE", ply="DOWN", goto="made")
    p.label("stand_pat")    # (the captures are asked for meanwhile: most often in vain)
    p.op(wait="EVAL", gen="FIRST", cand="STATIC", update=1, branch=["cutoff"],
         targets=["first_answer", "return_best"])
    p.label("stand_pat_asked")  # a child's, its captures asked for as its position settled (if
    # it has any: else it has searched all it will). Its stand pat returns at once when it
    # reaches beta or no capture is open (STAND_PAT), and may call for a search again (its
    # value inside the parent's window); else the node stays, its best the static value, and
    # goes on to its captures. Bit 0 stood (returned), bit 1 cutoff (returned: the parent's, or
    # the job is stopping), bit 2 research.
    p.op(wait="EVAL", cand="STATIC", update=1, result="STAND_PAT", maker="UNMAKE", ply="UP", path="POP",
         take=1, retry=1, branch=["stood", "cutoff", "research"],
         targets=["first_answer", "resume", "first_answer", "return_best"] + ["first_answer", "reenter"] * 2)
    p.label("first")
    p.op(gen="FIRST")
    p.label("first_answer")
    p.op(wait="GEN", **answer)
    p.label("make")         # the node's next move is found while the maker plays this one
    p.op(maker="MAKE", ply="DOWN", gen="PREFETCH")
    p.label("made")         # the child entered as its position is pushed, counted if searched,
    # and a quiescence child's first move asked for in the cycle the board settles (not a
    # cycle later: the answer is the quiescence node's longest wait):
    # bit 0 illegal or futile, bit 1 quiescence, bit 2 pressed, bit 3 at the deepest ply or
    # drawn by the path
    p.op(wait="SETTLED", gen="QUIESCENT", path="PUSH", enter=1, count="SEARCHED",
         branch=["skipped", "quiescence", "pressed", "ends_here"],
         targets=[_child_entry(i) for i in range(16)])
    p.label("take_back")
    p.op(maker="UNMAKE", ply="UP", path="POP", take=1)
    p.label("resume")       # the prefetched move: make it, or skip it (the hash move or a killer
    # again); after the hash move, whose MAKE prefetched nothing, the node starts generating;
    # after the null move (no cutoff) it searches its moves; killer moves may be due
    p.op(defer=1, branch=["found", "passed_over", "generating", "detour"],
         targets=["next"] * 4 + ["exhausted", "make", "exhausted", "next"] + ["detour"] * 8)
    p.label("next")
    p.op(gen="NEXT")
    p.op(wait="GEN", **answer)
    p.label("detour")       # after the null move: the moves; killer moves due, or one to go
    p.op(branch=["null_done", "killer_pending"], targets=["killers", "moves", "killer_next", "moves"])
    p.label("killers")      # the first move that is no capture waits in the PREFETCH slot
    p.op(stash=1, branch=["killer_fresh"], targets=["killer_pass", "killer_legal"])
    p.label("killer_next")  # the second killer, or the move they went before
    p.op(branch=["killer_fresh", "killer_pending"],
         targets=["killer_end", "killer_legal", "killer_pass", "killer_legal"])
    p.label("killer_pass")
    p.op(kill=1, goto="killer_next")
    p.label("killer_legal")
    p.op(gen="KILLER")
    p.op(wait="GEN", branch=["found"], targets=["killer_pass", "make_killer"])
    p.label("make_killer")  # (no PREFETCH: the slot keeps the move the killers went before)
    p.op(maker="MAKE", ply="DOWN", kill=1, goto="made")
    p.label("killer_end")
    p.op(take=1, goto="resume")
    p.label("exhausted")
    # bit 0 legal, bit 1 stalemate here: without a legal move a full-width node not in check is
    # stalemate (mated is the best a node starts with); bit 2: losing captures were passed
    # over, and the node goes through its captures again for them; bit 3 won here (antichess:
    # a node without a move; never with stalemate).
    p.op(branch=["legal", "stalemate_here", "revisit", "won_here"],
         targets=["return_best", "return_best", "draw", "return_best"] + ["revisit"] * 4
                 + ["win", "return_best", "win", "return_best"] + ["revisit"] * 4)
    p.label("revisit")
    p.op(gen="FIRST", revisit=1, goto="first_answer")
    # Returning: the node's value set, its move unmade and the parent's frame updated with it
    # in one microinstruction, the parent's prefetched move taken; then the parent goes on
    # with that move or returns too (a cutoff). At the root the job ends instead.
    ascend = dict(maker="UNMAKE", ply="UP", path="POP", update=1, take=1,
                  branch=["cutoff", "at_root"], targets=["resume", "return_best", "finish", "finish"])
    p.label("draw")         # stalemate, a repetition, the fifty-move rule
    p.op(result="DRAW", **ascend)
    p.label("win")          # antichess: no move
    p.op(result="WIN", **ascend)
    p.label("horizon")
    p.op(wait="EVAL", cand="STATIC", result="CANDIDATE", **ascend)
    # A node that searched, or found its value in the table, is searched again in place if its
    # value calls for it (features.py): entered again, counted again, its move still made.
    # A singular test (excluding) is over when it returns: the node goes on to its hash move
    # (research), or returns (``multicut``: another move reached the test's window, at or above
    # the node's beta).
    retry = dict(ascend, retry=1, branch=["cutoff", "at_root", "research", "excluding"],
                 targets=ascend["targets"] + ["reenter"] * 4 + ascend["targets"] + ["hash"] * 4)
    p.label("hash_return")
    p.op(result="HASH", **retry)
    p.label("reverse_return")   # the static value, far above beta (reverse futility pruning)
    p.op(cand="STATIC", result="CANDIDATE", **retry)
    p.label("mate_return")
    p.op(result="MATE_DISTANCE", **retry)
    p.label("return_best")  # (a full-width node stores its result in the transposition table)
    p.op(result="BEST", hash_store=1, **retry)
    p.label("reenter")      # (the last UNMAKE below it may still be on the bus)
    p.op(wait="SETTLED", enter=1, count="ONE", branch=["quiescence", "pressed", "mate_cut"],
         targets=["probe", "stand_pat", "probe", "first"] + ["mate_return"] * 4)
    p.label("finish")
    # the root's last UNMAKE may still be on the bus: the job ends on a settled board
    p.op(wait="SETTLED", done=1, goto="idle")


def program(count_interior=False):
    """The micro-store image's program (``count_interior``: see :func:`perft`)."""
    p = Program(SPEC)
    p.label("idle")
    p.op(branch=["start", "search"], targets=["idle", "perft", "idle", "search"])
    perft(p, count_interior)
    search(p)
    return p
