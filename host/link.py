"""The host side of the link (protocol: ``hdl/link/protocol.py``): frames over a serial port,
with retransmission, and the board's commands as methods.

:class:`LinkClient` sends one command at a time and waits for its reply (stop and wait). A
reply that does not come within the timeout, or a ``NAK CORRUPT``, makes it send the same
frame again (same sequence number: the board does not execute a frame twice); after
``retries`` attempts it raises :class:`BoardNotAnswering`.
"""

import os
import select
import time
import zlib
from dataclasses import dataclass

from cobs import cobs

from hdl.encoding import MoveWord, pack, unpack
from hdl.eval.tables import DATA_BITS, TableAddress, TableSelect
from hdl.link.protocol import (
    MAX_FRAME,
    NAK,
    PROTOCOL_VERSION,
    REPLY,
    Command,
    Evaluation,
    Fill,
    HistoryEntry,
    NakReason,
    PositionFlags,
    Probe,
    Start,
    Status,
    evaluator_params,
    payload_bytes,
)
from hdl.movegen.layouts import CHESS

__all__ = ["LinkClient", "LinkError", "BoardNotAnswering", "CommandRefused", "encode_frame",
           "FrameDecoder", "BoardStatus"]


#: The shortest run of one value a table download sends by FILL rather than word by word.
FILL_RUN = 64


class LinkError(Exception):
    """A link failure the host cannot recover from by itself."""


class BoardNotAnswering(LinkError):
    pass


class CommandRefused(LinkError):
    """The board answered NAK (busy, wrong length, unknown command)."""

    def __init__(self, command, reason):
        self.reason = reason
        super().__init__(f"the board refused {_name(command)}: {reason.name.lower()}")


def _name(command):
    return Command(command).name if command in Command._value2member_map_ else f"command {command:#04x}"


def encode_frame(sequence, kind, payload=b""):
    """The bytes on the line for one frame: COBS of sequence, type, payload and CRC, then 0."""
    raw = bytes([sequence & 0xFF, kind & 0xFF]) + bytes(payload)
    return cobs.encode(raw + zlib.crc32(raw).to_bytes(4, "little")) + b"\0"


class FrameDecoder:
    """Splits received bytes into frames: ``feed(bytes)`` returns the good frames completed,
    as ``(sequence, type, payload)``; corrupt ones are counted in ``dropped``."""

    def __init__(self):
        self._pending = bytearray()
        self.dropped = 0

    def feed(self, data):
        frames = []
        for byte in data:
            if byte != 0:
                self._pending.append(byte)
                if len(self._pending) > 2 * MAX_FRAME:
                    self._pending.clear()
                    self.dropped += 1
                continue
            if not self._pending:
                continue
            encoded, self._pending = bytes(self._pending), bytearray()
            try:
                raw = cobs.decode(encoded)
            except cobs.DecodeError:
                self.dropped += 1
                continue
            if len(raw) < 6 or zlib.crc32(raw[:-4]).to_bytes(4, "little") != raw[-4:]:
                self.dropped += 1
                continue
            frames.append((raw[0], raw[1], raw[2:-4]))
        return frames


@dataclass(frozen=True)
class BoardStatus:
    busy: bool
    stopped: bool
    count: int          # nodes (perft: leaves) of the job running or last run
    cycles: int
    score: int
    best_move: int      # move word
    key: int            # Zobrist key of the position on the board
    frames: int
    dropped: int
    oversized: int
    overruns: int
    version: int
    max_ply: int
    hash_bits: int
    clock_hz: int       # the board's core clock (a simulated board: the board it stands for)
    evaluator: object   # the board's EvaluatorParams (None: another protocol version)
    max_frame: int      # the longest frame the board takes
    lean_generator: bool = False    # the board's generator leaves pins to the search

    @property
    def searches(self):
        """The board runs searches (not the evaluation station)."""
        return self.max_ply > 0


def _evaluator(fields):
    """STATUS's evaluator shape as ``EvaluatorParams``; None from a board of another protocol
    version (whose STATUS does not have it: the host refuses such a board)."""
    shape = fields.pop("evaluator")
    return evaluator_params(shape) if fields["version"] == PROTOCOL_VERSION else None


def _layout_bytes(layout, **fields):
    return pack(layout, **fields).to_bytes(payload_bytes(layout), "little")


class LinkClient:
    """The board behind a serial port (a real board's, or the simulated board's terminal).

    ``port`` is a pyserial port object, or a device path opened at ``baud``.
    """

    def __init__(self, port, *, baud=1_000_000, timeout=0.5, retries=8):
        if isinstance(port, str):
            import serial
            try:
                port = serial.Serial(port, baud, timeout=0)
            except (serial.SerialException, OSError) as error:
                raise BoardNotAnswering(f"cannot open {port}: {error}") from None
        self._port = port
        self._timeout, self._retries = timeout, retries
        self._decoder = FrameDecoder()
        self._sequence = os.urandom(1)[0]
        self.retransmissions = 0
        self.bytes_sent = self.bytes_received = 0     # on the line, both ways
        self._port.reset_input_buffer()
        # Two status requests with different sequence numbers: the second cannot be taken for
        # a repeat of whatever the board executed last.
        self._port.write(b"\0")
        self.status()
        #: The longest frame the board takes (commands are split to fit it).
        self.max_frame = self.status().max_frame

    @property
    def port(self):
        """The serial port (for tests that write raw bytes)."""
        return self._port

    def close(self):
        self._port.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- frames ----------------------------------------------------------------------------------
    def command(self, command, payload=b"", timeout=None):
        """Send a command and return its reply's payload (raising on NAK or silence)."""
        self._sequence = (self._sequence + 1) & 0xFF
        frame = encode_frame(self._sequence, command, payload)
        for attempt in range(self._retries):
            if attempt:
                self.retransmissions += 1
            try:
                self._port.write(frame)
                self.bytes_sent += len(frame)
                reply = self._await_reply(self._sequence, command, timeout or self._timeout)
            except OSError as error:                # the port went away (unplugged, ended)
                raise BoardNotAnswering(f"the board's port failed during {_name(command)}: {error}") from None
            if reply is None:
                continue
            kind, body = reply
            if kind == NAK:
                reason = NakReason(body[0]) if body and body[0] in NakReason._value2member_map_ else None
                if reason is None or reason == NakReason.CORRUPT:
                    continue
                raise CommandRefused(command, reason)
            return body
        raise BoardNotAnswering(f"no answer to {_name(command)} after {self._retries} attempts")

    def _await_reply(self, sequence, command, timeout):
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            waiting = max(1, self._port.in_waiting)
            data = self._port.read(waiting)
            self.bytes_received += len(data)
            if not data:
                self._wait_readable(remaining)
                continue
            for seq, kind, body in self._decoder.feed(data):
                if kind == NAK and seq == 0 and body[:1] == bytes([NakReason.CORRUPT]):
                    return kind, body
                if seq == sequence and kind in (NAK, command | REPLY):
                    return kind, body
        return None

    def _wait_readable(self, seconds):
        """Sleep until the port has a byte to read or ``seconds`` pass (polling where the port
        has no file descriptor to wait on)."""
        try:
            select.select([self._port.fileno()], [], [], seconds)
        except (AttributeError, OSError, ValueError):
            time.sleep(min(seconds, 0.0005))

    # --- commands --------------------------------------------------------------------------------
    def status(self):
        fields = unpack(Status, int.from_bytes(self.command(Command.STATUS), "little"))
        flags = fields.pop("flags")
        score = fields.pop("score")
        return BoardStatus(busy=bool(flags["busy"]), stopped=bool(flags["stopped"]),
                           lean_generator=bool(flags["lean_generator"]),
                           score=score - (1 << 16) if score >= 0x8000 else score,
                           best_move=pack(MoveWord, **fields.pop("best_move")),
                           evaluator=_evaluator(fields), **fields)

    def reset(self):
        self.command(Command.RESET, timeout=2.0)

    def set_position(self, halfmoves, black_to_move, clear=True):
        """Empty the board (``clear``), play ``halfmoves`` (``models.position.Halfmove``) and
        set the side to move."""
        payload = bytearray(_layout_bytes(PositionFlags, black=int(black_to_move), clear=int(clear)))
        for h in halfmoves:
            payload += h.bits.to_bytes(2, "little")
        if len(payload) + 6 > self.max_frame:  # (a position has at most 32 pieces and 5 markers)
            raise LinkError(f"{len(halfmoves)} halfmoves do not fit one POSITION frame")
        self.command(Command.POSITION, bytes(payload))

    def set_history(self, entries):
        """The game's positions before the root and the root: ``(key, irreversible, clock)``
        (``models.repetition.game_history``)."""
        records = b"".join(_layout_bytes(HistoryEntry, key=key, irreversible=int(irreversible), clock=clock)
                           for key, irreversible, clock in entries)
        first = True
        size = payload_bytes(HistoryEntry)
        step = (self.max_frame - 8) // size * size
        for start in range(0, max(len(records), 1), step):
            self.command(Command.HISTORY, bytes([1 if first else 0]) + records[start:start + step])
            first = False

    def write_table(self, unit, kind, start, words):
        """Make a table's entries from index ``start`` equal ``words`` (24-bit): runs of one
        value (``FILL_RUN`` or longer, zeros above all) by FILL, the rest by WRITE frames of
        consecutive indices."""
        words = [w & ((1 << DATA_BITS) - 1) for w in words]
        per_frame = (self.max_frame - 12) // 3
        pending_start, pending = start, []

        def flush():
            for offset in range(0, len(pending), per_frame):
                chunk = pending[offset:offset + per_frame]
                address = _layout_bytes(TableAddress, index=pending_start + offset, table=kind, unit=unit)
                self.command(Command.WRITE, address + b"".join(w.to_bytes(3, "little") for w in chunk))
            pending.clear()

        i = 0
        while i < len(words):
            j = i
            while j < len(words) and words[j] == words[i]:
                j += 1
            if j - i >= FILL_RUN:
                flush()
                for offset in range(i, j, 0xFFFF):
                    count = min(0xFFFF, j - offset)
                    self.command(Command.FILL, _layout_bytes(
                        Fill, address={"index": start + offset, "table": kind, "unit": unit}, count=count,
                        data=words[i]))
                pending_start = start + j
            else:
                pending.extend(words[i:j])
            i = j
        flush()

    def checksum(self, unit, kind):
        return int.from_bytes(self.command(Command.CHECKSUM, _layout_bytes(TableSelect, table=kind, unit=unit)),
                              "little")

    def start(self, job, depth, alpha=0, beta=0, node_limit=0, generation=0, features=None, root_move=0,
              keep_killers=False, config=CHESS):
        """START a job; ``features``: the search's ``SearchFeatures`` (None: none); ``root_move``
        a move word (0: every root move); ``config`` the generator's ``GenConfig`` (a dict)."""
        self.command(Command.START, _layout_bytes(Start, job={"kind": job, "keep_killers": int(keep_killers),
                                                              "config": config},
                                                  depth=depth, alpha=alpha, beta=beta,
                                                  node_limit=node_limit, generation=generation,
                                                  features=features.fields() if features else {},
                                                  root_move=MoveWord.from_bits(root_move)))

    def stop(self):
        self.command(Command.STOP)

    def probe(self):
        """``(hit, entry fields)`` for the position on the board."""
        fields = unpack(Probe, int.from_bytes(self.command(Command.PROBE), "little"))
        return bool(fields["hit"]), fields["entry"]

    def clear_hash(self):
        self.command(Command.HASH_CLEAR, timeout=2.0)

    def evaluate(self):
        """The evaluator's static value of the position on the board (White's view)."""
        return unpack(Evaluation, int.from_bytes(self.command(Command.EVALUATE), "little"))["value"]

    def wait(self, poll=0.002, deadline=None, on_progress=None):
        """Poll STATUS until the job ends; ``on_progress(status)`` sees each poll."""
        while True:
            status = self.status()
            if on_progress:
                on_progress(status)
            if not status.busy:
                return status
            if deadline is not None and time.monotonic() > deadline:
                return status
            time.sleep(poll)

