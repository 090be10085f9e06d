"""The search controller: the microsequencer and the datapath it drives (docs/architecture.md §5.3).

The datapath holds the ply and the side to move, the current node's frame and the stack of its
ancestors (``frame.py``), the value logic of negamax alpha-beta, the node (or leaf) and cycle
counters, and issues the generator's requests and the move maker's commands. A
microinstruction that issues a request or a command, or waits for a unit, is held (the
sequencer stalls) until the unit takes it or is done; its other actions happen in the cycle it
completes. A command in a microinstruction that also waits is offered once the wait is over;
a request is issued once, at once, and the wait goes on (the answer of a request from a node
that has returned meanwhile is dropped).

Control fields (``CONTROL``):

* ``gen`` issues FIRST/NEXT at the current ply (captures only at a quiescence node of a search,
  only the moves it may search at a futile or late node; NEXT is FIRST at a node that has only
  tried its hash move; QUIESCENT is FIRST only if the node being entered searches as a
  quiescence node), or LEGAL for the node's hash
  move; ``maker`` MAKE/UNMAKE; ``wait`` holds until the generator's response, the maker's last
  halfmove, the board settled at the generator, or the evaluator's value of the settled board.
* ``maker`` NULL makes the null move (null-move pruning): the maker passes, the child's depth
  is reduced by ``null_reduction`` more, the frame pushed marks ``null_done``; the value the
  child returns updates the node only if it reaches beta.
* ``gen`` PREFETCH with ``maker`` MAKE asks for the node's next move (NEXT in KEEP mode) in
  the cycle the maker takes the move, the generator answering for the board as it stands at
  the end of that cycle — the node's, even while the last transfer of the UNMAKE before is on
  the bus (the generator holds the request until that board reaches its cells); the answer
  is kept per ply and ``take`` makes it the last response when the node resumes, so the next
  move is known the moment the child returns. The two are offered together and taken
  together. Only a node that is generating may PREFETCH: a FIRST would still be reading the
  board when the step down changes the side.
* ``path`` pushes the position (its Zobrist key, whether its move was irreversible or
  zeroing) on the repetition detector, or pops it; a command in the same microinstruction
  waits for the detector too, so both happen together.
* ``ply`` DOWN pushes the frame (with the move being made) and loads the child's: window
  negated and swapped, one ply less unless the node entered in check with ``escapes`` (and
  ``spite``'s test: the frame's ``escaping``; check escapes are not counted) or the move is a
  capture that restores the root's material balance (the recapture extension:
  ``recaptures``); quiescence stays quiescence. UP pops the parent's frame. Both toggle the side;
  UNMAKE names the parent's ply, so it goes with UP. At the root UP does nothing, nor do the
  UNMAKE, POP and update that go with it: one microinstruction can return from any node.
* ``enter`` starts a node: pressed or not (in check; antichess: forced to capture within the
  bound, or without a move), no legal move yet, best = mated here, its
  transposition-table slot and (full-width nodes) the table's move as its hash move.
* ``cand`` selects the candidate value: the static value (the evaluator's, from the side to
  move's view, clamped to +-EVAL_LIMIT) or the negated value the last child returned;
  ``update`` takes the candidate as the node's best (and its move) when greater, raises
  alpha, and marks a legal move when it came from a child; ``result`` sets the value the node
  returns (its best, the candidate, a draw, or the transposition table's value; STAND_PAT: the
  candidate, and only when it reaches beta or no capture is open — else the node stays). With UP,
  ``update`` applies to the parent's frame as it is popped, its candidate the value being
  returned (this microinstruction's ``result``, or the last one set) negated, and ``cutoff``
  tests it against the parent's beta: a child returns and its parent takes the value in one cycle;
  ``hash_store`` writes a full-width node's result to the table (bound from its window).
* ``count`` ONE adds one node (a leaf in perft), ANSWER the last response's count (a COUNT's
  moves), SEARCHED adds one unless the move just made
  is ``skipped`` (illegal, or pruned by futility or late-move pruning); ``clear`` zeroes the
  counters; ``done`` ends a job.
* ``retry``: a return that may search the node again instead (``research``); ``prune`` makes
  the node futile (its quiet moves not giving check are skipped, its hash move dropped). A
  futile or late node passes over unmade a quiet move whose answer says it cannot give check
  (the generator's ``may_check``); one that may is made, and skipped if it gives none.
* Killer moves (features.py): each ply's two are kept in a small memory, written when a quiet
  move cuts off (a return with ``update``). ``stash`` keeps the last response in the ply's
  PREFETCH slot (the move the killers go before: ``take`` brings it back); ``gen`` KILLER asks
  LEGAL for the node's next killer; ``kill`` counts a killer considered (the frame's
  ``killing``; with DOWN, in the frame pushed).
* Losing captures (features.py): ``defer`` marks the frame when the last response is a losing
  capture a full-width node passes over; ``revisit`` starts the node's second pass over its
  captures, which passes over all but the losing ones and ends at the first move that is no
  capture.
* Null-move verification and singular extensions search a node again in place, as ``retry``
  does: a null move's cutoff to be verified (or a verification that failed) loads the node's
  frame again, shallower (or at its own depth); ``exclude`` starts a singular test (the frame's
  window and depth become the test's, its own kept), whose return loads the node's own frame
  again to search its hash move, extended if no other move reached the test's window — or,
  with ``multicut``, returns at once where one did and the test's window is at or above the
  node's own beta.
* ``iir`` (internal iterative reductions, features.py): a node due for it — judged with the
  table's answer, as the node is probed — goes on one ply shallower (the frame's ``shallower``
  remembers it, so a search of the node again starts at the depth it was entered with).
"""

from amaranth import Cat, Module, Mux, Signal, signed
from amaranth.lib import data, enum, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..encoding import MoveWord, Piece, unpack
from ..handshake import Pulse
from ..movegen.generator import GeneratorInterface
from ..movegen.layouts import GenConfig, GenMode, GenOp, GenResponse, Variant
from .features import (
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
    TRIED_LIMIT,
    Features,
    exclusion_depth,
    lmp_count,
    lmr_reduction,
    null_reduction,
)
from .frame import EVAL_LIMIT, MATE, MATE_BOUND, Frame, FrameStack
from .hashtable import CHECK_BITS, GENERATION_BITS, Bound, HashEntry, HashInterface
from .maker import MakerInterface, MakerOp
from .material import PIECE_VALUES
from .microsequencer import Microsequencer, MicroSpec, predecessors
from .repetition import PathInterface, fifty_move_draw
from .zobrist import KEY_BITS

__all__ = ["CONTROL", "STATUSES", "SPEC", "Job", "StartCommand", "JobInterface", "Controller", "timing_violations",
           "require_timing_contract"]


class GenIssue(enum.Enum, shape=3):
    NONE = 0
    FIRST = 1
    NEXT = 2        # FIRST if the node has not asked the generator yet (it tried the hash move)
    LEGAL = 3       # is the node's hash move one the generator would emit here?
    PREFETCH = 4    # NEXT, its answer kept for the node (``take`` fetches it): with MAKE, the
                    # node's next move is found while the maker plays this one
    KILLER = 5      # LEGAL for the node's next killer move
    COUNT = 6       # how many moves the node has, en passant aside (perft above the leaves)
    QUIESCENT = 7   # FIRST if the node being entered searches as a quiescence node (not
                    # skipped, not ending here) with a move to find (pressed, or a capture
                    # open), else nothing: with ``made``'s wait, a quiescence node's moves are
                    # asked for in the cycle its position settles


#: A PREFETCH's answer, kept per ply until ``take``.
Prefetched = data.StructLayout({"found": 1, "move": MoveWord, "piece": Piece, "victim": Piece, "safe": 1,
                                 "may_check": 1})


class MakerIssue(enum.Enum, shape=2):
    NONE = 0
    MAKE = 1
    UNMAKE = 2
    NULL = 3        # MAKE the null move (no piece): the side passes (null-move pruning)


class Wait(enum.Enum, shape=3):
    NONE = 0
    GEN = 1         # the response to the last request (over in the cycle it arrives)
    MAKER = 2       # the maker idle again
    SETTLED = 3     # the maker is done and the generator takes requests: the board and side
                    # have reached its outputs
    EVAL = 4        # the maker is done and the evaluator's value includes everything


class PlyStep(enum.Enum, shape=2):
    HOLD = 0
    DOWN = 1        # one ply deeper; the other side moves
    UP = 2          # back to the parent


class PathStep(enum.Enum, shape=2):
    NONE = 0
    PUSH = 1        # the position reached (its key, its move irreversible, zeroing) joins
                    # the repetition detector's stack
    POP = 2         # ... and leaves it


class Candidate(enum.Enum, shape=2):
    NONE = 0
    STATIC = 1      # the evaluator's value, from the side to move's view, clamped
    CHILD = 2       # minus the value the last child returned
    FUTILE = 3      # the static value plus FUTILITY_MARGIN: the most a quiet move may reach


class Count(enum.Enum, shape=2):
    NONE = 0
    ONE = 1
    SEARCHED = 2    # one, unless the move just made is ``skipped``
    ANSWER = 3      # the last response's ``count`` (perft: a COUNT's moves)


class Result(enum.Enum, shape=3):
    NONE = 0
    BEST = 1
    CANDIDATE = 2
    DRAW = 3
    HASH = 4        # the transposition table's value for the position
    MATE_DISTANCE = 5   # alpha, or the worst the node can score if that is more (mate-distance
                        # pruning's cut: mated here; antichess, lost at the next ply)
    WIN = 6         # antichess: the side to move has no move, and wins here
    STAND_PAT = 7   # the candidate, if the node has nothing more to search (``stood``): a
                    # quiescence node standing pat returns in the cycle its value arrives;
                    # else the node stays (the UP, UNMAKE, POP and ``take`` do nothing, and
                    # ``update`` takes the candidate into its own frame)


CONTROL = data.StructLayout({
    "gen": GenIssue, "maker": MakerIssue, "wait": Wait, "ply": PlyStep, "path": PathStep,
    "take": 1, "enter": 1, "cand": Candidate, "update": 1, "result": Result, "hash_store": 1,
    "retry": 1, "prune": 1, "stash": 1, "kill": 1, "defer": 1, "revisit": 1, "exclude": 1, "iir": 1, "count": Count,
    "clear": 1, "done": 1,
})

STATUSES = [
    "start",        # a job is waiting
    "search",       # ... and it is a search (else a perft)
    "found",        # the last response found a move (never while the job is being stopped; not
                    # a move that is no capture while the node revisits its captures)
    "illegal",      # the side that just moved left its king attacked
    "skipped",      # ... or the move is pruned: a quiet move not giving check from a futile node
                    # or from a node pruning late moves (features.py)
    "at_leaf",      # perft: ply == depth limit
    "above_leaf",   # perft: ply + 1 == depth limit (the node's children are leaves: COUNT)
    "legal_leaf",   # ... and the last response is legal, en passant aside: a leaf counted
                    # unmade (not the move of a piece the lean generator's COUNT found pinned:
                    # that one, and en passant, are made and tested)
    "en_passant",   # the last response is an en-passant capture (the generator emits it legal
                    # or not: it must be made and tested)
    "at_root",      # ply == 0
    "depth_zero",   # perft: the depth limit is 0
    "quiescence",   # the node's depth is 0
    "pressed",      # the side to move may not stand pat: it is in check (chess), it must
                    # capture or has no move (antichess) (the generator's live outputs)
    "stalemate_here",   # a node without a legal move is stalemate: chess, full width, not in
                    # check (on entry), not futile, not testing a singular move
    "won_here",     # a node without a legal move has won: antichess, pressed (on entry: it
                    # had no move, a capture would have been searched), not testing a singular
                    # move
    "legal",        # the node has searched a legal move
    "at_max",       # the deepest ply, or the job is being stopped: no child is searched
    "cutoff",       # the candidate value >= beta, or the job is being stopped
    "drawn",        # the position is drawn by its path (not at the root): it repeats one since
                    # the last irreversible move, or the fifty-move rule ends the game there
                    # (repetition.fifty_move_draw); in a PUSH microinstruction the position
                    # pushed, after it as judged when it was pushed
    "ends_here",    # at_max, drawn or mate_cut: the node searches no child
    "hash_cut",    # the transposition table's entry decides the node (not at the root)
    "hash_move",    # the node has a hash move to try first
    "passed_over",  # the generator's last move is passed over: the hash move or a killer,
                    # already tried, or a capture quiescence skips (delta pruning, losing); at a
                    # full-width node a losing capture (searched after the rest), and when the
                    # node revisits its captures, one that is not losing; a quiet move a futile
                    # or late node would skip that certainly gives no check (not made)
    "generating",   # the node has asked the generator for its moves (so a PREFETCH's answer
                    # is waiting for it)
    "nullable",     # null-move pruning may apply: on, not the root, not in check, deep enough, a
                    # null window, not reached by a null move nor verifying one (nor verified),
                    # a piece besides pawns and king
    "strong",       # the candidate value (STATIC) reaches beta
    "stood",        # ... or no capture is open, or the job is being stopped: a ``result``
                    # STAND_PAT returns
    "null_done",    # the node's last move made was the null move
    "research",     # with ``retry``: the value being returned calls for the node to be searched
                    # again (deeper after a reduction, or with the full window after a null one;
                    # shallower to verify its null move's cutoff, deeper when that failed)
    "frontier",     # futility pruning may apply: on, depth 1, not in check, not the root
    "futile",       # the candidate value (FUTILE) cannot reach alpha
    "reverse_cut",  # reverse futility pruning (features.py): on, depth 1..REVERSE_DEPTH, a null
                    # window, and the static value reaches beta plus REVERSE_MARGIN per ply
    "killer_due",   # the last response is the node's first generated move that is no capture,
                    # and the node tries killer moves there (features.py): it has one that is
                    # not its hash move, and it is neither futile nor pruning late moves
    "killer_fresh", # the node's next killer move is one to ask the generator about: there is
                    # one, and it is not the hash move
    "killer_pending",   # one killer move considered, one to go
    "mate_cut",     # mate-distance pruning (features.py): no value the node could return lies
                    # inside its window
    "revisit",      # the node passed over losing captures and has not gone back for them yet
    "singular_due", # the node tests its hash move for a singular extension (features.py)
    "excluding",    # the node is searching its other moves for that test
    "detour",       # resuming, the node turns aside: to its moves after the null move, or to
                    # its killer moves (killer_due, killer_pending)
    "moves_open",       # a quiescence node's FIRST would find a move, check aside: the side to
                    # move has a capture, a push to the queen's promotion or an en passant open,
                    # or (a node searching its quiet checks) a move that may give check or any
                    # promotion (the generator's live output)
]

SPEC = MicroSpec(CONTROL, STATUSES, address_bits=8)


def timing_violations(image):
    """Where a micro-store image breaks the datapath's timing contract (docs/architecture.md
    §5.3), as messages naming the addresses (none for a good image). ``hash_cut`` and
    ``Result.HASH`` read the transposition table's entry as registered in the cycle before, so
    a word that branches on ``hash_cut`` may only follow a word that enters a node (``enter``:
    the node's board has settled by its last cycle, and the entry is the node's from then on
    until it moves), and a word returning HASH only one that branches on ``hash_cut``. A word
    asking the generator about a killer (``gen`` KILLER) asks about the node's next killer as
    registered in the cycle before, so it may only follow a word that branches on
    ``killer_fresh`` (the one that decided to ask) and changes neither the ply nor the killers
    the node has considered (no ``ply`` step, ``kill``, ``enter`` or ``retry``)."""
    into = predecessors(SPEC, image)
    words = [unpack(SPEC.word, word) for word in image]
    cut = SPEC.status_index("hash_cut")
    deciding = {a for a, word in enumerate(words) if cut in word["seq"]["cond"]}
    problems = [f"word {a} branches on hash_cut after word {p}, which enters no node"
                for a in sorted(deciding) for p in sorted(into[a]) if not words[p]["control"]["enter"]]
    problems += [f"word {a} returns the table's value after word {p}, which does not branch on hash_cut"
                 for a, word in enumerate(words) if word["control"]["result"] == Result.HASH.value
                 for p in sorted(into[a]) if p not in deciding]
    fresh = SPEC.status_index("killer_fresh")

    def keeps_the_killer(word):
        control = word["control"]
        return (fresh in word["seq"]["cond"] and control["ply"] == PlyStep.HOLD.value
                and not (control["kill"] or control["enter"] or control["retry"]))
    problems += [f"word {a} asks about a killer after word {p}, which does not decide on killer_fresh "
                 "or changes the ply or the killers considered"
                 for a, word in enumerate(words) if word["control"]["gen"] == GenIssue.KILLER.value
                 for p in sorted(into[a]) if not keeps_the_killer(words[p])]
    return problems


def require_timing_contract(image):
    """ValueError naming every break of the timing contract in ``image`` (``timing_violations``)."""
    if problems := timing_violations(image):
        raise ValueError("the microprogram breaks the timing contract: " + "; ".join(problems))


class Job(enum.Enum, shape=1):
    PERFT = 0
    SEARCH = 1


#: A job: perft or a search, its depth, the search's window, its generation (the host's count
#: of searches from new roots, stored with every transposition-table entry), the search's
#: features (hdl/search/features.py), a root move (0: none; else the root searches only that
#: move, as its hash move, and stores nothing: the host's root loop) and whether the killer
#: moves of the job before are kept (the root loop's searches of sibling moves share them).
StartCommand = data.StructLayout({"job": Job, "depth": 6, "alpha": signed(16), "beta": signed(16),
                                  "generation": GENERATION_BITS, "features": Features,
                                  "root_move": MoveWord, "keep_killers": 1, "config": GenConfig})

#: A job's port, from the side that runs it (the controller, and the machine around it): START
#: (a pulse), a stop request, and the job's progress and result.
JobInterface = wiring.Signature({
    "start": In(Pulse(StartCommand)),
    "stop": In(1),
    "busy": Out(1),
    "stopped": Out(1),
    "count": Out(64),
    "cycles": Out(64),
    "score": Out(signed(16)),
    "best_move": Out(MoveWord),
})


def _new_pass(frame, mated):
    """What starts a pass over a node's moves (on entry, and after a singular test): no move
    tried or generated yet, no best move, best = ``mated`` here, no killer considered, nothing
    passed over, not futile."""
    return [frame.tried.eq(0), frame.best.eq(mated), frame.best_move.eq(0), frame.generating.eq(0),
            frame.futile.eq(0), frame.killing.eq(0), frame.deferred.eq(0), frame.revisiting.eq(0)]


def _quiet(move):
    """Whether a ``MoveWord`` is quiet: no capture, no promotion (the features' sense)."""
    return ~move.flags.capture & (move.promotion.as_value() == 0)


class Controller(wiring.Component):
    """Interface attributes
    --------------------
    job : Out(JobInterface)             ``start``: begin a job from the position set up;
                                        ``stop``: end it early (the search unwinds to the root:
                                        no node searches a child any more, none stores to the
                                        transposition table or takes a value; perft stops
                                        counting: the result is the best of the root moves
                                        searched in full, none if none was); ``busy``;
                                        ``stopped``: the last job was (its results are
                                        partial); ``count``, ``cycles``: its nodes (perft:
                                        leaves; 0 from the cycle after START; a node entered
                                        while ``stop`` is asked is not counted, so a node
                                        limit is never passed) and length;
                                        ``score``, ``best_move``: the last search's value (side
                                        to move's view) and move (0: none)
    gen : Out(GeneratorInterface)       the move generator
    maker : Out(MakerInterface)         the move maker
    path : Out(PathInterface)           the repetition detector
    hash : Out(HashInterface)          the transposition table (probed at ``key``)
    static : In(signed(16)), static_valid : In(1)   the evaluator's value (White's view)
    material : In(signed(8))            White's material minus Black's
    pieces : In(array of 2 x 4 bits)    per colour, its pieces besides pawns and king
    side : Out(1)                       the side to move (to the generator and the evaluator)
    side_in : In(Pulse(1))              set the side to move (while idle)
    key : In(64)                        the Zobrist key (side included)
    microcode_write : In(SPEC.store_write)   rewrite a micro-store word (while idle)
    """

    def __init__(self, image, entry, *, max_ply=64, hash_bits=12):
        require_timing_contract(image)
        self._image, self._entry, self._max_ply, self._hash_bits = image, entry, max_ply, hash_bits
        #: The executing microinstruction's address (not a port: for simulations, e.g. profiles).
        self.micro_address = Signal(SPEC.address_bits)
        super().__init__({
            "job": Out(JobInterface),
            "gen": Out(GeneratorInterface),
            "maker": Out(MakerInterface),
            "path": Out(PathInterface),
            "hash": Out(HashInterface(hash_bits)),
            "static": In(signed(16)),
            "static_valid": In(1),
            "material": In(signed(8)),
            "pieces": In(data.ArrayLayout(4, 2)),
            "side": Out(1),
            "side_in": In(Pulse(1)),
            "key": In(KEY_BITS),
            "microcode_write": In(SPEC.store_write),
        })

    def elaborate(self, platform):
        m = Module()
        # The control fields start the longest paths (into the generator's request and
        # attacker, the halfmove bus, the value datapath): they come from a block RAM of their
        # own. (From flip-flops loaded from distributed RAM, ``flops=``, a field's read comes
        # after the branch instead: the ``gen`` field so was the board build's longest path once
        # the killer query was registered.)
        m.submodules.sequencer = seq = Microsequencer(SPEC, self._image, fast=tuple(dict(CONTROL)))
        m.submodules.frames = frames = FrameStack(max_ply=self._max_ply)
        control = seq.control
        frame = frames.current
        m.d.comb += [seq.write.payload.eq(self.microcode_write.payload),
                     seq.write.valid.eq(self.microcode_write.valid & ~self.job.busy)]

        ply = Signal(range(self._max_ply))
        depth = Signal(6)               # the job's depth: perft's limit, the search root's
        job = Signal(Job)
        requested = Signal()
        # The generator's last answer to this node's own request (not a PREFETCH): kept in
        # ``response``; in the cycle it arrives (``arriving``) the statuses read it from the
        # generator's output register already (``latest``), so a GEN wait ends that cycle.
        response = Signal(GenResponse)
        answered = Signal()
        prefetching = Signal()          # the request in flight is a PREFETCH
        request_ply = Signal(range(self._max_ply))
        arriving = Signal()
        latest = Signal(GenResponse)
        root_material = Signal(signed(8))
        generation = Signal(GENERATION_BITS)
        features = Signal(Features)
        root_move = Signal(MoveWord)    # the job's one root move (0: every move)
        config = Signal(GenConfig)      # the job's rules and capture order (the generator's)
        antichess = Signal()
        m.d.comb += [antichess.eq(config.variant == Variant.ANTICHESS), self.gen.config.eq(config)]
        # Extensions (and antichess's forced captures) are followed only below twice the root's
        # depth with ``bounded`` (features.py).
        within_bound = Signal()
        m.d.comb += within_bound.eq(~features.bounded | (ply < depth * EXTENSION_BOUND))
        # Whether the node may stand pat (quiescence) and prune: not in check (chess); with a move
        # and not forced to capture within the bound (antichess). The generator gives each flag
        # in its variant only.
        pressed = Signal()
        m.d.comb += pressed.eq(self.gen.in_check | (self.gen.forced & within_bound) | self.gen.moveless)
        # Whether a node in check extends its moves (escapes; with spite, only against a checking
        # side of SPITE_PIECES pieces or more besides pawns and king), judged on entry.
        escaping = Signal()
        m.d.comb += escaping.eq(self.gen.in_check & ~antichess & features.escapes
                                & ~(features.spite & (self.pieces[~self.side] < SPITE_PIECES)))
        returned = Signal(signed(16))   # the value the last node returned

        # --- values -----------------------------------------------------------------------------
        # The evaluator's value reaches the controller through a register (its adder tree and
        # the controller's compare-and-branch are each a long path): the EVAL wait sees the
        # value and its valid flag one cycle late. No halfmove can slip in between: EVAL also
        # waits for the maker.
        static = Signal(signed(17))
        m.d.comb += static.eq(Mux(self.side, -self.static, self.static))
        clamped = Signal(signed(16))
        static_valid = Signal()
        with m.If(static > EVAL_LIMIT):
            m.d.sync += clamped.eq(EVAL_LIMIT)
        with m.Elif(static < -EVAL_LIMIT):
            m.d.sync += clamped.eq(-EVAL_LIMIT)
        with m.Else():
            m.d.sync += clamped.eq(static)
        m.d.sync += static_valid.eq(self.static_valid)
        candidate = Signal(signed(16))
        with m.Switch(control.cand):
            with m.Case(Candidate.STATIC):
                m.d.comb += candidate.eq(clamped)
            with m.Case(Candidate.CHILD):
                m.d.comb += candidate.eq(-returned)
            with m.Case(Candidate.FUTILE):
                m.d.comb += candidate.eq(clamped + FUTILITY_MARGIN)
        mated = Signal(signed(16))
        m.d.comb += mated.eq(ply - MATE)
        # The worst and the best a node below the root can score (mate-distance pruning): mated
        # here and mating at the next ply (chess); lost at the next ply and won here (antichess,
        # where a side without a move wins).
        worst = Signal(signed(16))
        best_possible = Signal(signed(16))
        m.d.comb += [worst.eq(mated + antichess), best_possible.eq(MATE - 1 - ply + antichess)]
        # Mate scores are stored counted from the position, and read back counted from the root.
        hash_value = Signal(signed(16))
        probed = self.hash.probe.value.as_signed()
        with m.If(probed > MATE_BOUND):
            m.d.comb += hash_value.eq(probed - ply)
        with m.Elif(probed < -MATE_BOUND):
            m.d.comb += hash_value.eq(probed + ply)
        with m.Else():
            m.d.comb += hash_value.eq(probed)
        stored_value = Signal(signed(16))
        with m.If(frame.best > MATE_BOUND):
            m.d.comb += stored_value.eq(frame.best + ply)
        with m.Elif(frame.best < -MATE_BOUND):
            m.d.comb += stored_value.eq(frame.best - ply)
        with m.Else():
            m.d.comb += stored_value.eq(frame.best)
        probe = self.hash.probe
        # Whether the entry decides the node (``hash_cut``) and the value it returns (HASH) are
        # wanted in the cycle after a node is entered, when its frame is loaded; the entry has
        # been read since the cycle the board settled (the one ``enter`` completes in) and does
        # not change until the node moves or returns. So they take the entry, whether it is a
        # hit and its value counted from the root as registered in the cycle before: the block
        # RAM's read and the mate-distance adjustment do not lie on the path of the window
        # compares into the branch.
        held = Signal(HashEntry)
        held_hit = Signal()
        held_value = Signal(signed(16))
        m.d.sync += [held.eq(probe), held_hit.eq(self.hash.hit), held_value.eq(hash_value)]
        hash_cut = Signal()
        m.d.comb += hash_cut.eq(held_hit & (ply != 0) & (held.depth >= frame.depth) & (
            (held.bound == Bound.EXACT)
            | ((held.bound == Bound.LOWER) & (held_value >= frame.beta))
            | ((held.bound == Bound.UPPER) & (held_value <= frame.alpha))))

        # Singular extensions (features.py): on entry, whether the table's entry makes the hash move
        # a candidate (the depth is the node's as ``enter`` leaves it).
        entered_depth = Signal(6)
        m.d.comb += entered_depth.eq(Mux(frame.reduced & self.gen.in_check, frames.parent.depth - 1, frame.depth))
        singular_candidate = Signal()
        m.d.comb += singular_candidate.eq(
            features.singular & (ply != 0) & self.hash.hit & (entered_depth >= SINGULAR_DEPTH)
            & (probe.depth + SINGULAR_SHALLOWER >= entered_depth) & (probe.bound != Bound.UPPER)
            & (hash_value <= MATE_BOUND) & (hash_value >= -MATE_BOUND))

        # --- returning to the parent --------------------------------------------------------------
        # A microinstruction that steps UP and updates returns a node's value to its parent in
        # one cycle: the value it sets (``result``), or the one set before, negated, is the
        # candidate for the parent's frame as that comes off the stack. The root has no parent:
        # there UP, UNMAKE, POP and the update do nothing. Nor do they (nor ``take``) when the
        # microinstruction may ``retry`` and the value calls for a re-search (``research``):
        # the node's frame is loaded again instead, deeper or with the parent's full window.
        at_root = Signal()
        m.d.comb += at_root.eq(ply == 0)
        # A STAND_PAT result returns only when the node's stand pat reaches its beta or it has no
        # capture to search (or the job is being stopped); else the node stays: the
        # microinstruction does what it would do without UP (its update applies to the node's
        # own frame).
        stood = Signal()
        staying = Signal()
        moves_open = Signal()           # a quiescence node not pressed has a move to search
        m.d.comb += moves_open.eq(Mux(frame.checks, self.gen.checks_open, self.gen.captures_open))
        m.d.comb += [stood.eq((candidate >= frame.beta) | ~moves_open | self.job.stopped),
                     staying.eq((control.result == Result.STAND_PAT) & ~stood)]
        one_move_root = Signal()        # the root, restricted by START to one move
        m.d.comb += one_move_root.eq(at_root & (root_move.as_value() != 0))
        root_return = Signal()
        m.d.comb += root_return.eq((control.ply == PlyStep.UP) & at_root)
        ascending = Signal()
        m.d.comb += ascending.eq((control.ply == PlyStep.UP) & ~at_root & ~staying)
        research = Signal()
        void_return = Signal()          # UP, UNMAKE, POP, ``take`` and the update do nothing
        holding = Signal()              # ... or all but the update (on the node's own frame)
        m.d.comb += [void_return.eq(root_return | research), holding.eq(void_return | staying)]
        stepping_up = Signal()
        m.d.comb += stepping_up.eq(ascending & ~research)
        result_value = Signal(signed(16))
        with m.Switch(control.result):
            with m.Case(Result.BEST):
                m.d.comb += result_value.eq(frame.best)
            with m.Case(Result.CANDIDATE, Result.STAND_PAT):
                m.d.comb += result_value.eq(candidate)
            with m.Case(Result.DRAW):
                m.d.comb += result_value.eq(0)
            with m.Case(Result.HASH):
                m.d.comb += result_value.eq(held_value)
            with m.Case(Result.MATE_DISTANCE):
                m.d.comb += result_value.eq(Mux(frame.alpha > worst, frame.alpha, worst))
            with m.Case(Result.WIN):
                m.d.comb += result_value.eq(-mated)
            with m.Default():
                m.d.comb += result_value.eq(returned)
        base = Signal(Frame)            # the frame the update changes: the parent's when stepping up
        m.d.comb += base.eq(Mux(stepping_up, frames.parent, frame))
        update_candidate = Signal(signed(16))
        negated_result = Signal(signed(16))
        m.d.comb += [negated_result.eq(-result_value),
                     update_candidate.eq(Mux(stepping_up, negated_result, candidate))]
        # Whether the candidate reaches the beta of the frame it updates (the cutoff), computed
        # for both frames at once and chosen by ``stepping_up`` last: the re-search decision
        # (a compare of its own) and the frame multiplexer stay off the compare's path.
        reaches_beta = Signal()
        m.d.comb += reaches_beta.eq(Mux(stepping_up, negated_result >= frames.parent.beta, candidate >= frame.beta))
        # Searching again (features.py): a node whose null move's cutoff is to be verified, or
        # whose verification failed; then a reduced node whose value beats the parent's alpha,
        # then a null-window node whose value lands strictly inside the parent's window.
        parent = frames.parent
        child_value = Signal(signed(17))
        m.d.comb += child_value.eq(-result_value)
        null_depth = Signal(6)          # the depth of the search after the node's null move
        null_cut = Signal(3)            # plies the null move's search loses: its own and the reduction
        m.d.comb += [null_cut.eq(1 + null_reduction(frame.depth)),
                     null_depth.eq(Mux(frame.depth > null_cut, frame.depth - null_cut, 0))]
        verify_due = Signal()           # the node's null move cut off, and the cutoff is to be verified
        unverified = Signal()           # the node's verification search stayed below beta
        m.d.comb += [
            verify_due.eq(features.verification & frame.null_done & (frame.best >= frame.beta)
                          & (frame.depth >= NULL_VERIFY_DEPTH) & ~self.job.stopped),
            unverified.eq(frame.verifying & (result_value < frame.beta) & ~self.job.stopped),
        ]
        multicut = Signal()             # the singular test found another move reaching its beta,
        # itself at least the node's own: the node returns that move's value (``multicut``)
        m.d.comb += multicut.eq(features.multicut & frame.excluding & (frame.best >= frame.beta)
                                & (frame.beta >= frame.beta_before))
        m.d.comb += research.eq(control.retry & ascending & ~self.job.stopped & (
            verify_due | unverified | (frame.excluding & ~multicut)
            | (frame.reduced & (child_value > parent.alpha))
            | (frame.scout & (child_value > parent.alpha) & (child_value < parent.beta))))
        again = Signal(Frame)           # the node's frame for the search again (``enter`` does the rest)
        with m.If(verify_due | unverified):     # the same window; shallower, or back to its depth
            m.d.comb += [
                again.alpha.eq(frame.alpha0), again.alpha0.eq(frame.alpha0), again.beta.eq(frame.beta),
                again.scout.eq(frame.scout), again.reduced.eq(frame.reduced),
                again.depth.eq(Mux(verify_due, null_depth, frame.depth_before)),
                again.depth_before.eq(frame.depth + frame.shallower),
                again.verifying.eq(verify_due), again.verified.eq(unverified),
            ]
        with m.Elif(frame.excluding):     # the test is over: the node's own search, from its hash move
            m.d.comb += [
                again.eq(frame),        # as entered: its key, check flag, hash move, flags
                *_new_pass(again, mated),
                again.alpha.eq(frame.alpha0), again.beta.eq(frame.beta_before), again.depth.eq(frame.depth_before),
                again.excluding.eq(0), again.singular.eq(frame.best < frame.beta),
            ]
        with m.Else():
            m.d.comb += [
                again.depth.eq(Mux(frame.reduced, parent.depth - 1, frame.depth + frame.shallower)),
                again.alpha.eq(Mux(frame.reduced, frame.alpha0, -parent.beta)),
                again.alpha0.eq(Mux(frame.reduced, frame.alpha0, -parent.beta)),
                again.beta.eq(Mux(frame.reduced, frame.beta, -parent.alpha)),
                again.scout.eq(frame.reduced & frame.scout),
                again.checks.eq(frame.checks & ~frame.reduced),     # (searched again at full depth: no quiescence)
            ]

        # The repetition detector judges the position being pushed, in the cycle of the push
        # (a PUSH waits for the board to settle: whether it is in check is known then);
        # later microinstructions see the verdict as it was then.
        pushing = Signal()
        drawn_at_push = Signal()
        drawn = Signal()
        judged = self.path.repeated | fifty_move_draw(self.path.clock, self.gen.in_check & ~antichess)
        m.d.comb += drawn.eq(Mux(pushing, judged, drawn_at_push))
        with m.If(pushing & self.path.push.valid):
            m.d.sync += drawn_at_push.eq(judged)

        # --- killer moves (features.py) --------------------------------------------------------
        # Each ply's killers, the newer first; a ply's entry is known once written in this job.
        # Two read ports, both addressed by the ply register alone (the node's killers go to the
        # generator's request: an address that waited for the microinstruction's return value
        # put the whole return path in front of the generator).
        ply_killers = data.ArrayLayout(MoveWord, KILLERS)
        m.submodules.killer_store = killer_store = Memory(shape=ply_killers, depth=self._max_ply, init=[])
        # A new killer is decided at the end of the return path (a cutoff by the value returned)
        # and written a cycle later, from a register, so that the return path does not reach
        # the memory's write port; until then the reads see it in front of the memory.
        killer_write = killer_store.write_port()
        killer_read = killer_store.read_port(domain="comb")         # the node's ply
        parent_killer_read = killer_store.read_port(domain="comb")  # the parent's, for a new killer
        new_killers = Signal(ply_killers)               # the parent's, decided in this cycle
        new_killers_valid = Signal()
        pending = Signal(ply_killers)                   # written in this cycle
        pending_valid = Signal()
        pending_addr = Signal(range(self._max_ply))
        m.d.sync += [pending.eq(new_killers), pending_valid.eq(new_killers_valid), pending_addr.eq(ply - 1)]
        m.d.comb += [killer_write.addr.eq(pending_addr), killer_write.data.eq(pending),
                     killer_write.en.eq(pending_valid)]
        killer_known = Signal(self._max_ply)
        killers = Signal(ply_killers)           # the node's
        parent_killers = Signal(ply_killers)    # the parent's
        m.d.comb += [killer_read.addr.eq(ply), parent_killer_read.addr.eq(ply - 1)]
        for read, seen in ((killer_read, killers), (parent_killer_read, parent_killers)):
            with m.If(killer_known.bit_select(read.addr, 1)):
                m.d.comb += seen.eq(Mux(pending_valid & (pending_addr == read.addr), pending, read.data))
        killer = Signal(MoveWord)       # the node's next killer
        m.d.comb += killer.eq(killers[frame.killing[0]])
        # The LEGAL query for a killer asks about the move as registered in the cycle before
        # (the timing contract: that word decided to ask, and changed neither the ply nor the
        # killers considered), so the killer memory and its forwarding stay off the path into
        # the generator's request.
        killer_query = Signal(MoveWord)
        m.d.sync += killer_query.eq(killer)
        fresh = Signal(KILLERS)         # each killer is one to ask the generator about: there is
        m.d.comb += fresh.eq(Cat(*((killers[i].as_value() != 0)      # one, and it is not the hash move
                                   & (killers[i].as_value() != frame.hash_move.as_value()) for i in range(KILLERS))))
        killer_passed = Signal()        # the last response is a killer the node has considered
        m.d.comb += killer_passed.eq(Cat(*((frame.killing > i) & (killers[i].as_value() != 0)
                                            & (latest.move.as_value() == killers[i].as_value())
                                            for i in range(KILLERS))).any())

        # --- status for branches --------------------------------------------------------------
        capture_skip = Signal()         # the node passes the generator's last move over (a capture)
        deferring = Signal()            # ... a losing capture, searched after the rest (losing)
        hash_passed = Signal()          # the last response is the node's hash move (tried already)
        m.d.comb += hash_passed.eq((frame.hash_move.as_value() != 0)
                                   & (latest.move.as_value() == frame.hash_move.as_value()))
        wide = Signal()                 # the node's window is wider than a null window
        m.d.comb += wide.eq(frame.beta - frame.alpha > 1)
        iir_due = Signal()              # the node goes on a ply shallower (iir, at its probe)
        m.d.comb += iir_due.eq(features.iir & ~at_root & ~frame.pressed & (frame.depth >= IIR_DEPTH)
                               & (frame.hash_move.as_value() == 0))
        mover_attacked = Signal()
        m.d.comb += mover_attacked.eq(self.gen.king_attacked.bit_select(~self.side, 1))
        # Futility and late-move pruning (features.py): a futile node's quiet moves, and a late
        # one's once it has searched lmp_count(depth) moves, are made, and skipped unless they give
        # check (the child, just made, is the current node; its parent made the move). Whether a
        # move comes late is decided as it is made and kept in the parent's frame (``late``),
        # so that the status waits on no arithmetic.
        late_pruning = Signal()
        m.d.comb += late_pruning.eq(
            features.lmp & ~frame.pressed & (frame.beta - frame.alpha == 1)
            & Cat(*((frame.depth == d) & (frame.tried >= lmp_count(d)) for d in range(1, LMP_DEPTH + 1))).any())
        # A quiescence node searching its quiet checks (qchecks) skips those that give none alike.
        skipped = Signal()
        m.d.comb += skipped.eq(mover_attacked
                               | ((parent.futile | parent.late | parent.checks) & ~self.gen.in_check
                                  & _quiet(parent.move)))
        # ... and such a move that the generator knows gives no check is not even made: passed
        # over, as it would be skipped once made (legal or not), and without the make's cycles.
        pruned_unmade = Signal()
        m.d.comb += pruned_unmade.eq((frame.futile | late_pruning | frame.checks)
                                     & _quiet(latest.move) & ~latest.may_check)
        # Stopping: every branch that would go deeper or on to the next move goes back up instead.
        with m.If(self.job.stop & self.job.busy):
            m.d.sync += self.job.stopped.eq(1)
        # Mate-distance pruning (features.py): nothing better than ``best_possible``, nothing worse
        # than ``worst``.
        mate_cut = Signal()
        m.d.comb += mate_cut.eq(features.mate_distance & ~at_root
                                & ((frame.alpha >= best_possible) | (frame.beta <= worst)))
        # A root restricted to one move searches it as its hash move (the LEGAL query's answer
        # stands) and generates nothing: once it generates, every answer is "no more moves".
        # The frames are a search's: perft enters none, so it reads none of their flags (a search
        # before it leaves them behind).
        searching = Signal()
        m.d.comb += searching.eq(job == Job.SEARCH)
        generated = Signal()
        m.d.comb += generated.eq(latest.found & ~(searching & one_move_root & frame.generating))
        found = Signal()
        m.d.comb += found.eq(generated & ~self.job.stopped
                             & ~(searching & frame.revisiting & ~latest.move.flags.capture))
        quiescent = Signal()            # the node searches as a quiescence node
        ends_here = Signal()            # the node searches no child
        m.d.comb += [
            quiescent.eq((frame.depth == 0) | frame.futile),
            ends_here.eq((ply == self._max_ply - 1) | self.job.stopped | (drawn & (ply != 0)) | mate_cut),
        ]
        killer_due = Signal()
        killer_pending = Signal()
        m.d.comb += [
            killer_due.eq(features.killers & (frame.depth != 0) & ~frame.futile & ~late_pruning & (frame.killing == 0)
                          & ~frame.revisiting & frame.generating & generated & ~latest.move.flags.capture
                          & fresh.any() & ~self.job.stopped),
            killer_pending.eq((frame.killing == 1) & ~self.job.stopped),
        ]
        status = {
            "start": requested, "search": searching, "found": found,
            "illegal": mover_attacked, "skipped": skipped, "at_leaf": ply == depth,
            "above_leaf": ply + 1 == depth,
            "legal_leaf": (ply + 1 == depth) & ~self.gen.pinned.bit_select(latest.move.from_sq, 1),
            "en_passant": latest.move.flags.en_passant, "at_root": at_root,
            "depth_zero": depth == 0, "quiescence": quiescent,
            "pressed": pressed,
            "stalemate_here": ~antichess & ~frame.pressed & (frame.depth != 0) & ~frame.futile & ~frame.excluding,
            "won_here": antichess & frame.pressed & ~frame.excluding,
            "legal": frame.tried != 0,
            "at_max": (ply == self._max_ply - 1) | self.job.stopped,
            "cutoff": reaches_beta | self.job.stopped, "drawn": drawn & (ply != 0),
            "hash_cut": hash_cut, "hash_move": frame.hash_move.as_value() != 0,
            "passed_over": hash_passed | killer_passed | capture_skip | pruned_unmade,
            "generating": frame.generating,
            "ends_here": ends_here,
            "research": research,
            "nullable": features.null & ~at_root & ~frame.pressed & (frame.depth >= NULL_MIN_DEPTH) & ~wide
                        & ~frames.parent.null_done & ~frame.verifying & ~frame.verified
                        & (self.pieces[self.side] != 0),
            "strong": candidate >= frame.beta, "stood": stood,
            "null_done": frame.null_done,
            "frontier": features.futility & (frame.depth == 1) & ~frame.pressed & ~at_root,
            "futile": candidate <= frame.alpha,
            "reverse_cut": features.reverse & ~wide & (frame.depth <= REVERSE_DEPTH)
                           & (clamped - frame.depth * REVERSE_MARGIN >= frame.beta),
            "killer_due": killer_due,
            "killer_fresh": (frame.killing < KILLERS) & fresh.bit_select(frame.killing[0], 1),
            "killer_pending": killer_pending,
            "mate_cut": mate_cut,
            "revisit": frame.deferred & ~frame.revisiting & ~self.job.stopped,
            "singular_due": frame.singular_candidate & ~frame.excluded & ~frame.verifying & ~self.job.stopped,
            "excluding": frame.excluding,
            "detour": killer_due | killer_pending | frame.null_done,
            "moves_open": moves_open,
        }
        m.d.comb += seq.status.eq(Cat(*(status[name] for name in STATUSES)))

        # Out of reset, the sequencer is sent to the idle loop.
        booted = Signal()
        m.d.sync += booted.eq(1)
        m.d.comb += [seq.start.eq(~booted), seq.entry.eq(self._entry)]

        # --- issuing and waiting --------------------------------------------------------------
        # A quiescence node asks for its captures, or (qchecks) its captures, promotions and moves
        # that may give check; the frame's ``checks`` is set as the node is entered, and the
        # generator answers every move in check whatever the mode.
        quiescence_request = (job == Job.SEARCH) & (frame.depth == 0) & ~frame.checks
        # A futile node, and a late one, ask only for the moves they may search (GenMode.CHECKS:
        # captures, promotions, moves that may give check). Late-move pruning's status reaches
        # the request through a register, valid when the frame has not changed since the cycle
        # before, else 0 (ALL mode: its moves are passed over as they come, as before). A PREFETCH
        # keeps the ply's mode (the generator cannot arbitrate afresh while the move is made).
        late_seen = Signal()
        m.d.sync += late_seen.eq(late_pruning & ~frames.load & ~frames.push & ~frames.pop)
        pruning_request = (job == Job.SEARCH) & (frame.futile | late_seen | frame.checks)
        waiting = {
            Wait.NONE: 0, Wait.GEN: ~answered & ~arriving, Wait.MAKER: ~self.maker.idle,
            Wait.SETTLED: ~self.gen.request.ready | ~self.maker.idle,
            Wait.EVAL: ~static_valid | ~self.static_valid | ~self.maker.idle,
        }
        wait_condition = Signal()
        with m.Switch(control.wait):
            for kind, condition in waiting.items():
                with m.Case(kind):
                    m.d.comb += wait_condition.eq(condition)
        stepping_path = Signal()
        m.d.comb += [stepping_path.eq((control.path != PathStep.NONE) & ~holding),
                     pushing.eq(control.path == PathStep.PUSH)]
        # A request waits for the maker: the generator must see whole moves only (a PREFETCH,
        # answered for the board as it stands at the end of its cycle, only for the maker to
        # take its MAKE: as the last transfer of an UNMAKE leaves). A command goes
        # with a path step in one indivisible action: it is offered only when the repetition
        # detector can take the step too, and once the wait is over. A request and a command in
        # one microinstruction (PREFETCH with MAKE) are offered only when both can be taken.
        issued = Signal()               # this microinstruction's request has been taken; it waits on
        quiescent_first = Signal()      # a QUIESCENT request is a FIRST this time
        m.d.comb += quiescent_first.eq(quiescent & ~skipped & ~ends_here & (pressed | moves_open))
        issuing = (control.gen != GenIssue.NONE) & ~issued & ((control.gen != GenIssue.QUIESCENT) | quiescent_first)
        commanding = (control.maker != MakerIssue.NONE) & ~holding
        gen_offered = Signal()
        maker_offered = Signal()
        m.d.comb += [
            gen_offered.eq(issuing & Mux(control.gen == GenIssue.PREFETCH, self.maker.command.ready, self.maker.idle)),
            maker_offered.eq(commanding & ~wait_condition & (~stepping_path | self.path.push.ready)),
            self.gen.request.valid.eq(gen_offered & (~commanding | (maker_offered & self.maker.command.ready))),
            self.maker.command.valid.eq(maker_offered & (~issuing | (gen_offered & self.gen.request.ready))),
        ]
        m.d.comb += [
            self.gen.request.payload.mode.eq(
                Mux(control.gen == GenIssue.PREFETCH, GenMode.KEEP,
                    Mux(quiescence_request, GenMode.CAPTURES, Mux(pruning_request, GenMode.CHECKS, GenMode.ALL)))),
            self.gen.request.payload.ply.eq(ply),
            self.gen.request.payload.move.eq(Mux(control.gen == GenIssue.KILLER, killer_query, frame.hash_move)),
            self.maker.command.payload.op.eq(MakerOp.MAKE),
            self.maker.command.payload.ply.eq(ply),
            self.maker.command.payload.move.eq(response.move),
            self.maker.command.payload.piece.eq(response.piece),
            self.maker.command.payload.victim.eq(response.victim),
        ]
        with m.Switch(control.gen):
            with m.Case(GenIssue.NEXT, GenIssue.PREFETCH):
                m.d.comb += self.gen.request.payload.op.eq(Mux(frame.generating, GenOp.NEXT, GenOp.FIRST))
            with m.Case(GenIssue.LEGAL, GenIssue.KILLER):
                m.d.comb += self.gen.request.payload.op.eq(GenOp.LEGAL)
            with m.Case(GenIssue.COUNT):
                m.d.comb += self.gen.request.payload.op.eq(GenOp.COUNT)
            with m.Default():
                m.d.comb += self.gen.request.payload.op.eq(GenOp.FIRST)
        with m.If(control.maker == MakerIssue.NULL):
            # The null move: no move, no piece (the maker passes).
            m.d.comb += [self.maker.command.payload.move.eq(0), self.maker.command.payload.piece.eq(0),
                         self.maker.command.payload.victim.eq(0)]
        with m.If(control.maker == MakerIssue.UNMAKE):
            # The move to unmake was made at the parent's ply: UNMAKE goes with the step UP.
            m.d.comb += [self.maker.command.payload.op.eq(MakerOp.UNMAKE),
                         self.maker.command.payload.ply.eq(ply - 1)]
        stall = Signal()
        m.d.comb += stall.eq(wait_condition
                             | (issuing & ~(self.gen.request.valid & self.gen.request.ready))
                             | (self.maker.command.valid & ~self.maker.command.ready)
                             | (stepping_path & ~self.path.push.ready))
        # The path steps when the microinstruction completes (a PUSH with a wait pushes the
        # key of the position waited for).
        m.d.comb += [
            self.path.push.valid.eq((control.path == PathStep.PUSH) & ~stall),
            self.path.push.payload.key.eq(self.key),
            self.path.push.payload.irreversible.eq(self.maker.irreversible),
            self.path.push.payload.zeroing.eq(self.maker.zeroing),
            self.path.pop.eq((control.path == PathStep.POP) & ~stall & ~holding),
        ]
        m.d.comb += [seq.stall.eq(stall), self.micro_address.eq(seq.address)]
        m.d.sync += issued.eq(stall & (issued | (self.gen.request.valid & self.gen.request.ready)))

        # Responses: to a PREFETCH kept in the ply's slot, to any other request the last
        # response. ``take`` (stepping UP: the parent's slot) makes a slot the last response.
        m.submodules.prefetched = prefetched = Memory(shape=Prefetched, depth=self._max_ply, init=[])
        prefetch_write, prefetch_read = prefetched.write_port(), prefetched.read_port(domain="comb")
        answer = self.gen.response.payload
        m.d.comb += [arriving.eq(self.gen.response.valid & ~prefetching & (request_ply == ply)),
                     latest.eq(Mux(arriving, answer, response))]
        with m.If(self.gen.response.valid):
            m.d.sync += prefetching.eq(0)
        with m.If(self.gen.request.valid & self.gen.request.ready):
            m.d.sync += [answered.eq(0), prefetching.eq(control.gen == GenIssue.PREFETCH), request_ply.eq(ply)]
        with m.If(arriving):
            m.d.sync += [response.eq(answer), answered.eq(1)]
        # ``stash`` keeps the last response instead (no PREFETCH is in flight then: it was taken).
        stashing = Signal()
        m.d.comb += stashing.eq(control.stash & ~stall)
        kept_in = Signal(GenResponse)
        m.d.comb += kept_in.eq(Mux(stashing, response, answer))
        m.d.comb += [
            prefetch_write.addr.eq(Mux(stashing, ply, request_ply)),
            prefetch_write.en.eq(stashing | (self.gen.response.valid & prefetching)),
            prefetch_write.data.found.eq(kept_in.found), prefetch_write.data.move.eq(kept_in.move),
            prefetch_write.data.piece.eq(kept_in.piece), prefetch_write.data.victim.eq(kept_in.victim),
            prefetch_write.data.safe.eq(kept_in.key.safe), prefetch_write.data.may_check.eq(kept_in.may_check),
            prefetch_read.addr.eq(Mux(stepping_up, ply - 1, ply)),
        ]
        with m.If(control.take & ~stall & ~research & ~staying):
            kept = prefetch_read.data
            m.d.sync += [response.eq(0), response.found.eq(kept.found), response.move.eq(kept.move),
                         response.piece.eq(kept.piece), response.victim.eq(kept.victim),
                         response.key.safe.eq(kept.safe), response.may_check.eq(kept.may_check)]

        # --- the transposition table: the node's slot, the store when it returns --------------
        bound = Signal(Bound)
        with m.If(frame.best >= frame.beta):
            m.d.comb += bound.eq(Bound.LOWER)
        with m.Elif(frame.best <= frame.alpha0):
            m.d.comb += bound.eq(Bound.UPPER)
        with m.Else():
            m.d.comb += bound.eq(Bound.EXACT)
        m.d.comb += [
            self.hash.slot_index.eq(frame.slot),
            self.hash.slot_ahead.eq(Mux(frames.load | frames.push | frames.pop, frames.next.slot, frame.slot)),
            self.hash.store.valid.eq(control.hash_store & ~stall & (job == Job.SEARCH) & (frame.depth != 0)
                                      & ~self.job.stopped & ~verify_due & ~frame.excluding & ~one_move_root),
            self.hash.store.payload.check.eq(frame.check),
            self.hash.store.payload.generation.eq(generation),
            self.hash.store.payload.depth.eq(frame.depth),
            self.hash.store.payload.bound.eq(bound),
            self.hash.store.payload.value.eq(stored_value),
            self.hash.store.payload.move.eq(frame.best_move),
        ]

        # --- the child's frame, for DOWN ------------------------------------------------------
        move = latest.move
        gained = Signal(signed(6))      # pawns the mover gains by the move: the victim, a promotion
                                        # (an antichess king's: the pawn lost, -1)
        victim_value = Signal(4)
        mover_value = Signal(4)
        promotion_value = Signal(4)
        for piece_type, pawns in enumerate(PIECE_VALUES):
            with m.If(latest.victim.type.as_value() == piece_type):
                m.d.comb += victim_value.eq(pawns)
            with m.If(latest.piece.type.as_value() == piece_type):
                m.d.comb += mover_value.eq(pawns)
            with m.If(move.promotion.as_value() == piece_type):
                m.d.comb += promotion_value.eq(pawns)
        m.d.comb += gained.eq(victim_value + Mux(move.promotion.as_value() != 0, promotion_value - 1, 0))
        # Delta pruning (features.py): a quiescence node that stood pat (every one not in check
        # did, on entry) passes over a capture whose gain cannot lift its static value to alpha.
        # Losing captures (features.py): a quiescence node not in check passes over a capture by a
        # piece worth more than its victim to a square the opponent attacks.
        losing = Signal()
        m.d.comb += losing.eq(features.losing & move.flags.capture & (move.promotion.as_value() == 0)
                              & ~latest.key.safe & (mover_value > victim_value))
        # At a full-width node a losing capture is deferred: passed over (the frame remembers it,
        # ``defer``), then searched when the node has run out of other moves: it goes through its
        # captures again (``revisit``) and passes over all but the losing ones.
        # (the frame's side of the delta test is formed apart, so the answer meets one compare)
        delta_room = Signal(signed(18))     # the gain, in centipawns, a capture needs to be searched
        m.d.comb += delta_room.eq(frame.alpha - frame.static - DELTA_MARGIN)
        quiescence_skip = Signal()
        m.d.comb += quiescence_skip.eq((frame.depth == 0) & ~frame.pressed & (
            (features.delta & (gained * 100 <= delta_room)) | losing))
        m.d.comb += [
            deferring.eq(generated & (frame.depth != 0) & ~frame.revisiting & losing & ~hash_passed),
            capture_skip.eq(quiescence_skip | deferring | (frame.revisiting & ~losing)),
        ]
        material_after = Signal(signed(9))
        m.d.comb += material_after.eq(Mux(self.side, frame.material - gained, frame.material + gained))
        recapture = Signal()
        m.d.comb += recapture.eq(move.flags.capture & (material_after == root_material))
        # Features (features.py): after a full-width node's first legal move, PVS gives the null
        # window; at a null-window node a late quiet move is reduced (its child undoes that on
        # entry if it is in check).
        full_depth = Signal(6)
        extending = Signal()            # check escapes, recaptures and singular moves are no ply
        singular_move = frame.singular & (move.as_value() == frame.hash_move.as_value())
        m.d.comb += extending.eq(          # (bounded: not too deep; antichess has no check)
            (frame.escaping | (recapture & features.recaptures) | singular_move) & within_bound)
        m.d.comb += full_depth.eq(Mux(frame.depth == 0, 0, frame.depth - 1 + extending))
        nulling = Signal()              # making the null move: no move, the depth reduced more
        m.d.comb += nulling.eq(control.maker == MakerIssue.NULL)
        late = Signal()
        m.d.comb += late.eq(features.lmr & (frame.depth >= LMR_MIN_DEPTH) & (frame.tried >= LMR_AFTER) & ~wide
                            & ~frame.pressed & _quiet(move) & ~nulling)
        scout = Signal()
        m.d.comb += scout.eq(features.pvs & (frame.tried != 0) & (frame.depth != 0) & wide)
        child = Signal(Frame)
        child_depth = Signal(6)
        m.d.comb += [
            child_depth.eq(Mux(nulling, null_depth,
                               Mux(late, full_depth - lmr_reduction(frame.depth, frame.tried, features.later),
                                   full_depth))),
            child.alpha.eq(Mux(scout, -frame.alpha - 1, -frame.beta)), child.beta.eq(-frame.alpha),
            child.alpha0.eq(Mux(scout, -frame.alpha - 1, -frame.beta)),
            child.depth.eq(child_depth),
            child.scout.eq(scout), child.reduced.eq(late),
            # qchecks: the first quiescence ply below a full-width node searches its quiet checks
            child.checks.eq(features.qchecks & ~antichess & (frame.depth != 0) & (child_depth == 0)),
        ]

        # --- the datapath's actions, when the microinstruction completes -----------------------
        m.d.comb += frames.ply.eq(ply)
        updated = Signal(Frame)
        m.d.comb += updated.eq(base)
        start = self.job.start.payload
        with m.If(self.job.start.valid & ~self.job.busy):
            # the count starts at 0 with the job (not at its first microinstruction's ``clear``):
            # a node limit compared with it must not see the last job's count
            m.d.sync += [requested.eq(1), job.eq(start.job), depth.eq(start.depth), ply.eq(0),
                         self.job.busy.eq(1), self.job.stopped.eq(0), self.job.count.eq(0),
                         root_material.eq(self.material),
                         generation.eq(start.generation), features.eq(start.features), config.eq(start.config),
                         root_move.eq(Mux((start.job == Job.SEARCH) & (start.depth != 0), start.root_move, 0))]
            with m.If(~start.keep_killers):
                m.d.sync += killer_known.eq(0)
            m.d.comb += [
                updated.alpha.eq(start.alpha), updated.beta.eq(start.beta),
                updated.alpha0.eq(start.alpha), updated.depth.eq(start.depth),
                updated.move.eq(0), updated.best_move.eq(0),
                updated.scout.eq(0), updated.reduced.eq(0), updated.futile.eq(0), updated.null_done.eq(0),
                updated.verifying.eq(0), updated.verified.eq(0), updated.checks.eq(0),
                frames.load.eq(1),
            ]
        with m.If(self.side_in.valid & ~self.job.busy):
            m.d.sync += self.side.eq(self.side_in.payload)
        with m.If(self.job.busy):
            m.d.sync += self.job.cycles.eq(self.job.cycles + 1)
        with m.If(~stall):
            with m.If(control.clear):
                m.d.sync += [self.job.count.eq(0), self.job.cycles.eq(0), requested.eq(0)]
            # A node entered in the cycle a stop is asked for (a node limit reached: the executor
            # asks as the count gets there) is not counted: the count stops at the limit.
            with m.If(((control.count == Count.ONE) | ((control.count == Count.SEARCHED) & ~skipped))
                      & ~self.job.stop):
                m.d.sync += self.job.count.eq(self.job.count + 1)
            with m.If(control.count == Count.ANSWER):
                m.d.sync += self.job.count.eq(self.job.count + response.count)
            with m.If(control.done):
                m.d.sync += [self.job.busy.eq(0), self.job.score.eq(returned), self.job.best_move.eq(frame.best_move)]
            with m.If(control.enter):
                m.d.comb += [updated.pressed.eq(pressed), updated.escaping.eq(escaping),
                             updated.material.eq(self.material),
                             updated.checks.eq(frame.checks & ~pressed),   # pressed: it searches every move
                             *_new_pass(updated, mated),
                             updated.singular_candidate.eq(singular_candidate),
                             updated.singular_beta.eq(hash_value - SINGULAR_MARGIN),
                             updated.excluding.eq(0), updated.excluded.eq(0), updated.singular.eq(0),
                             updated.shallower.eq(0),
                             updated.slot.eq(self.key[:self._hash_bits]),
                             updated.check.eq(self.key[self._hash_bits:self._hash_bits + CHECK_BITS]),
                             updated.hash_move.eq(Mux(one_move_root, root_move,
                                                      Mux(self.hash.hit & (frame.depth != 0), probe.move, 0))),
                             frames.load.eq(1)]
                with m.If(frame.reduced & self.gen.in_check):      # a late move giving check
                    m.d.comb += [updated.depth.eq(parent.depth - 1), updated.reduced.eq(0), updated.checks.eq(0)]
            with m.If(control.iir & iir_due):   # one ply shallower, the depth entered with kept
                m.d.comb += [updated.depth.eq(frame.depth - 1), updated.shallower.eq(1), frames.load.eq(1)]
            with m.If(control.prune):       # futility: quiet moves skipped unless checks, no hash move
                m.d.comb += [updated.futile.eq(1), updated.hash_move.eq(0), frames.load.eq(1)]
            with m.If((control.gen == GenIssue.FIRST) | (control.gen == GenIssue.NEXT)
                      | (control.gen == GenIssue.PREFETCH) | ((control.gen == GenIssue.QUIESCENT) & quiescent_first)):
                m.d.comb += [updated.generating.eq(1), frames.load.eq(1)]
            with m.If(control.defer & deferring):
                m.d.comb += [updated.deferred.eq(1), frames.load.eq(1)]
            with m.If(control.exclude):     # the singular test: the other moves, shallower, below the entry
                m.d.comb += [updated.alpha.eq(frame.singular_beta - 1), updated.beta.eq(frame.singular_beta),
                             updated.beta_before.eq(frame.beta), updated.depth_before.eq(frame.depth),
                             updated.depth.eq(exclusion_depth(frame.depth)), updated.excluding.eq(1),
                             updated.excluded.eq(1), updated.null_done.eq(0), frames.load.eq(1)]
            with m.If(control.revisit):
                m.d.comb += [updated.revisiting.eq(1), frames.load.eq(1)]
            with m.If(control.kill & (control.ply != PlyStep.DOWN)):
                m.d.comb += [updated.killing.eq(frame.killing + 1), frames.load.eq(1)]
            # Once stopped, no value updates a frame: the root's best is the best of the moves
            # searched in full before the stop (a child cut short brings nothing back).
            # The null move's value is only a cutoff: below beta it changes nothing.
            null_fails = stepping_up & frames.parent.null_done & ~reaches_beta
            with m.If(control.update & ~void_return & ~self.job.stopped & ~null_fails):
                with m.If(update_candidate > base.best):
                    m.d.comb += [updated.best.eq(update_candidate), updated.best_move.eq(base.move)]
                with m.If(update_candidate > base.alpha):
                    m.d.comb += updated.alpha.eq(update_candidate)
                with m.If(stepping_up | (control.cand == Candidate.CHILD)):
                    m.d.comb += updated.tried.eq(Mux(base.tried == TRIED_LIMIT, TRIED_LIMIT, base.tried + 1))
                with m.If(~stepping_up & (control.cand == Candidate.STATIC)):     # standing pat
                    m.d.comb += updated.static.eq(clamped)
                m.d.comb += frames.load.eq(~stepping_up)
                # A quiet move that cuts off is the parent's ply's newest killer.
                with m.If(features.killers & stepping_up & reaches_beta & _quiet(base.move)
                          & (base.move.as_value() != 0)):
                    m.d.comb += [new_killers_valid.eq(1), new_killers[0].eq(base.move),
                                 new_killers[1].eq(Mux(parent_killers[0].as_value() == base.move.as_value(),
                                                       parent_killers[1], parent_killers[0]))]
                    m.d.sync += killer_known.bit_select(parent_killer_read.addr, 1).eq(1)
            with m.If(control.result != Result.NONE):
                m.d.sync += returned.eq(result_value)
            with m.If(control.ply == PlyStep.DOWN):
                m.d.sync += [ply.eq(ply + 1), self.side.eq(~self.side)]
                m.d.comb += frames.push.eq(1)
            with m.If(stepping_up):
                m.d.sync += [ply.eq(ply - 1), self.side.eq(~self.side)]
                m.d.comb += frames.pop.eq(1)
            with m.If(research):
                m.d.comb += [updated.eq(again), frames.load.eq(1)]
        # The frame pushed: the move being made; a PREFETCH has asked the generator.
        m.d.comb += [frames.pushed.eq(frame), frames.pushed.move.eq(Mux(nulling, 0, move)),
                     frames.pushed.null_done.eq(nulling), frames.pushed.late.eq(late_pruning),
                     frames.pushed.killing.eq(frame.killing + control.kill),
                     frames.pushed.generating.eq(frame.generating | (control.gen == GenIssue.PREFETCH)),
                     frames.next.eq(Mux(frames.push, child, updated))]
        return m
