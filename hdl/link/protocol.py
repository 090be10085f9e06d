"""The host link's protocol (docs/architecture.md §6), defined once for the hardware
(``hdl/link/``) and the host (``host/link.py``).

A frame is ``[sequence | type | payload | CRC-32]``, COBS-encoded and ended by a 0x00 byte.
The CRC-32 is ``zlib.crc32`` of sequence, type and payload, little-endian; multi-byte fields
are little-endian too. The board answers each good command frame with one reply frame of the
same sequence number: type ``command | REPLY`` with the command's reply payload, or ``NAK``
with a reason byte. A frame that arrives corrupt (bad CRC, bad COBS, a UART framing error
inside it), truncated or longer than ``MAX_FRAME`` is dropped and counted, never acted on, and
answered by ``NAK`` ``CORRUPT`` with sequence 0 (the host sends its frame again). A good frame
with the sequence number and type of the last one executed is not executed again: its reply is
sent again (the host retransmits when a reply is lost).

Commands (payload → reply payload):

* ``STATUS`` → :data:`Status`: busy, the job's progress and the last result, link counters.
* ``RESET`` → nothing: stops a job, empties the board, the game history and the
  transposition table.
* ``POSITION`` ``flags`` (bit 0 black to move, bit 1 empty the board first), halfmoves (2 bytes
  each, :class:`~hdl.encoding.Halfmove`) → nothing. Emptying the board takes every piece and
  marker off every unit at once, so a position is set without knowing the last one.
* ``HISTORY`` ``flags`` (bit 0 forget the history first), entries (:data:`HistoryEntry`, 9
  bytes each) → nothing: positions of the game before the root, oldest first, root last.
* ``WRITE`` :data:`~hdl.eval.tables.TableAddress` (3 bytes), data words (3 bytes each) → nothing:
  table (or microcode) writes at consecutive indices from the address.
* ``CHECKSUM`` :data:`~hdl.eval.tables.TableSelect` (1 byte) → the table's CRC-32 (4 bytes).
* ``START`` :data:`Start` → nothing: a search or perft begins; poll ``STATUS``.
* ``STOP`` → nothing: the job unwinds and ends (``STATUS`` shows it stopped).
* ``PROBE`` → :data:`~hdl.search.hashtable.HashEntry` and a hit byte: the transposition
  table's entry for the position on the board.
* ``HASH_CLEAR`` → nothing: empties the transposition table.
* ``FILL`` :data:`Fill` → nothing: one value written at consecutive indices of a table (a
  table's long runs of zeros, cleared in one frame).
* ``EVALUATE`` → :data:`Evaluation`: the evaluator's static value of the position on the board
  (White's view), once every halfmove and table write given so far is in it.

Refused with ``NAK``: an unknown type (``UNKNOWN``), a payload of the wrong length
(``LENGTH``), a command that changes the board or the tables, or reads the evaluator, while a
job runs (``BUSY``).
"""

import enum

from amaranth import signed
from amaranth.lib import data

from ..encoding import MoveWord
from ..eval.tables import EvaluatorParams, TableAddress
from ..movegen.layouts import GenConfig
from ..search.controller import Job
from ..search.features import Features
from ..search.hashtable import HashEntry
from ..search.repetition import StackEntry
from ..search.zobrist import KEY_BITS

__all__ = ["Command", "REPLY", "NAK", "NakReason", "MAX_FRAME", "RESIDUE", "HALFMOVE_BYTES",
           "HISTORY_BYTES", "WRITE_WORD_BYTES", "Start", "Status", "StatusFlags", "Probe",
           "HistoryEntry", "PositionFlags", "Fill", "Evaluation", "EvaluatorShape", "PROTOCOL_VERSION",
           "payload_bytes", "evaluator_shape", "evaluator_params"]

#: 2: EVALUATE; STATUS gives the evaluator's shape; the evaluation station. 3: START carries
#: the search's generation; PROBE's entry has it (the transposition table is aged, not cleared).
#: 4: START carries the search's features (hdl/search/features.py). 5: START carries a root
#: move and whether the killer moves are kept (the host's root loop). 6: STATUS's evaluator
#: shape has the narrow recognizers (how many, their maps' widths). 7: the features' twelfth bit,
#: reverse futility pruning. 8: the thirteenth, late-move pruning. 9: START's job carries the
#: generator's configuration (antichess, the victim order). 10: the fourteenth feature bit,
#: later moves reduced more. 11: a HISTORY entry carries its position's fifty-move clock. 12:
#: the fifteenth feature bit, internal iterative reductions. 13: the sixteenth, quiet checks in
#: quiescence. 14: the features a 24-bit word, the seventeenth bit the singular test's
#: multi-cut. 15: the eighteenth and nineteenth, the check and recapture extensions (on in the
#: features' ``none``: a board of 14 would extend whatever they say), the twentieth ``spite``.
#: 16: the twenty-first, favoured squares. 17: favoured squares taken out again (bit 20 unused).
PROTOCOL_VERSION = 17

#: The longest frame, before COBS: sequence, type, payload and CRC. A board may take less
#: (STATUS says how much: the evaluation station's buffers are 256 bytes).
MAX_FRAME = 2048

#: ``zlib.crc32`` of any frame followed by its own CRC (little-endian).
RESIDUE = 0x2144DF1C


class Command(enum.IntEnum):
    STATUS = 0x01
    RESET = 0x02
    POSITION = 0x03
    HISTORY = 0x04
    WRITE = 0x05
    CHECKSUM = 0x06
    START = 0x07
    STOP = 0x08
    PROBE = 0x09
    HASH_CLEAR = 0x0A
    FILL = 0x0B
    EVALUATE = 0x0C


#: A reply's type is the command's with this bit set.
REPLY = 0x80
NAK = 0xFF


class NakReason(enum.IntEnum):
    CORRUPT = 1     # a frame was dropped (its sequence number could not be trusted)
    UNKNOWN = 2     # no such command
    LENGTH = 3      # the payload's length does not fit the command
    BUSY = 4        # a job is running


HALFMOVE_BYTES = 2
WRITE_WORD_BYTES = 3

PositionFlags = data.StructLayout({"black": 1, "clear": 1, "unused": 6})

#: One position of the game's history: the repetition detector's entry — its Zobrist key (side
#: included), whether the move reaching it was irreversible, and its fifty-move clock.
HistoryEntry = StackEntry

#: START's payload: the job (whether the killer moves of the job before are kept, and the
#: generator's rules and capture order: chess or antichess, ``GenConfig``), its
#: depth, the search window, a node limit (0: none), the search's generation (modulo
#: 2**GENERATION_BITS: the host counts its searches from new roots), its features (the control
#: word; unused bits 0) and a root move (0: every move; see ``StartCommand``).
Start = data.StructLayout({
    "job": data.StructLayout({"kind": Job, "keep_killers": 1, "config": GenConfig, "unused": 6 - GenConfig.size}),
    "depth": 8,
    "alpha": signed(16),
    "beta": signed(16),
    "node_limit": 64,
    "generation": 8,
    "features": Features,
    "root_move": MoveWord,
    "unused": -MoveWord.size % 8,     # whole bytes
})

StatusFlags = data.StructLayout({"busy": 1, "stopped": 1, "search": 1, "lean_generator": 1, "unused": 4})

#: The evaluator's shape (:class:`~hdl.eval.tables.EvaluatorParams`) as STATUS reports it: the
#: host compiles tables for the board it finds. Unused context selectors are 0.
EvaluatorShape = data.StructLayout({
    "recognizers": 8, "globals": 8, "branch_bits": 8, "combine_bits": 8, "final_bits": 8,
    "global_bits": 8, "context_bits": data.ArrayLayout(8, 3), "tree_stages": 8,
    "narrow": 8, "narrow_bits": data.ArrayLayout(8, 3),
})


def evaluator_shape(params):
    """:data:`EvaluatorShape`'s fields for ``params``."""
    return dict(recognizers=params.recognizers, globals=params.globals, branch_bits=params.branch_bits,
                combine_bits=params.combine_bits, final_bits=params.final_bits, global_bits=params.global_bits,
                context_bits=list(params.context_bits) + [0] * (3 - len(params.context_bits)),
                tree_stages=params.tree_stages, narrow=params.narrow, narrow_bits=list(params.narrow_bits))


def evaluator_params(shape):
    """The :class:`~hdl.eval.tables.EvaluatorParams` of :data:`EvaluatorShape`'s fields."""
    fields = dict(shape)
    return EvaluatorParams(context_bits=tuple(c for c in fields.pop("context_bits") if c),
                           narrow_bits=tuple(fields.pop("narrow_bits")), **fields)


#: STATUS's reply: the job's state, its nodes (perft: leaves) and cycles so far, the last
#: search's score and best move, the Zobrist key of the position on the board, the link's
#: counters and the build's parameters (a simulated board gives the clock of the board it
#: stands for; ``max_ply`` 0 is the evaluation station, which runs no jobs).
Status = data.StructLayout({
    "flags": StatusFlags,
    "count": 64,
    "cycles": 64,
    "score": signed(16),
    "best_move": MoveWord,
    "key": KEY_BITS,
    "frames": 16,           # good frames received
    "dropped": 16,          # frames dropped: bad CRC, bad COBS, UART framing errors
    "oversized": 16,        # frames dropped for their length
    "overruns": 16,         # frames dropped because the previous one was still executing
    "version": 8,
    "max_ply": 8,
    "hash_bits": 8,
    "clock_hz": 32,         # the core clock the board is built for: cycles / clock_hz = seconds
    "evaluator": EvaluatorShape,
    "max_frame": 16,        # the longest frame the board takes
})

#: FILL's payload.
Fill = data.StructLayout({"address": TableAddress, "count": 16, "data": 24})

#: EVALUATE's reply: the evaluator's value, White's view (the search negates it for Black).
Evaluation = data.StructLayout({"value": signed(16)})

#: PROBE's reply.
Probe = data.StructLayout({"hit": 8, "entry": HashEntry})


def payload_bytes(layout):
    """The bytes a layout occupies in a payload (whole bytes, padded)."""
    return (layout.size + 7) // 8


#: A HISTORY entry's bytes (the detector's ``StackEntry``: 9).
HISTORY_BYTES = payload_bytes(HistoryEntry)
