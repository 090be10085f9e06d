"""The microsequencer (docs/architecture.md §5.3): Hitech's next-address-field sequencing.

Each microinstruction carries the address of the next one. A branch ORs up to four selected
status signals into that address's low bits, so an aligned block of 2, 4, 8 or 16
instructions is a 2/4/8/16-way branch in one cycle. CALL pushes the address after its own on a
return-address stack and goes to its target; RETURN pops it (and may branch the same way).
The micro-store is a RAM with a default image, rewritable through ``write`` without
resynthesis.

One microinstruction per cycle: the next address is computed combinationally from the word
being executed and the status, and read from the micro-store at the clock edge, so the word
is on ``control`` in the following cycle. ``stall`` holds the current word (the datapath
waits on a unit); ``start`` goes to ``entry`` whatever is executing.

The micro-store is a block RAM, whose data comes out late in the cycle (about 8.5 ns on the
ECP5). Control fields named in ``fast`` come instead from a copy of their bits, written with
the micro-store and read at the same next address into a register: the same values on the
same cycles. Written so (an asynchronous read into a register, transparent for a write),
Yosys merges the register into a synchronous read port and places the copy in a block RAM of
its own, whose outputs drive only the datapath (the board build: 22.0 -> 24.6 MHz). Forced into
distributed RAM (``ram_style``), the read follows the next-address logic in the same cycle,
which is slower for all of them (the controller alone: 24.8 MHz against 30.9). Fields named in
``flops`` are read so, into flip-flops: out at the start of the cycle, for the few bits whose
paths are the longest after the block RAM's delay (the generator's request).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, enum, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ..encoding import unpack
from ..handshake import Pulse

__all__ = ["SeqOp", "MicroSpec", "Microsequencer", "MicroStoreLoader", "microcode_entries", "PART_STRIDE",
           "predecessors"]

#: How many status signals a branch can OR in (16-way at most).
BRANCH_BITS = 4


class SeqOp(enum.Enum, shape=2):
    GOTO = 0        # next address | selected status bits
    CALL = 1        # push the address after this one; then as GOTO
    RETURN = 2      # popped address | selected status bits


class MicroSpec:
    """The shape of a microprogram: the datapath's control fields, the status signals a branch
    can test (by name; selector 0 is the constant 0) and the micro-store's size.

    ``word`` is the microinstruction layout: ``{"op", "next", "cond": [4 selectors], "control"}``,
    defined once here for the hardware and the assembler.
    """

    def __init__(self, control, statuses, address_bits=9):
        self.control = data.Layout.cast(control)
        self.statuses = list(statuses)
        if len(set(self.statuses)) != len(self.statuses):
            raise ValueError(f"status names repeat: {self.statuses}")
        self.address_bits = address_bits
        self.select_bits = max(1, ceil_log2(len(self.statuses) + 1))
        self.sequencing = data.StructLayout({
            "op": SeqOp,
            "next": address_bits,
            "cond": data.ArrayLayout(self.select_bits, BRANCH_BITS),
        })
        self.word = data.StructLayout({"seq": self.sequencing, "control": self.control})
        #: One word of the micro-store rewritten, from the writer's side.
        self.store_write = Pulse(data.StructLayout({"address": address_bits, "word": self.word}))

    @property
    def depth(self):
        return 1 << self.address_bits

    def status_index(self, name):
        """The selector of a status signal (1-based; 0 selects the constant 0)."""
        try:
            return 1 + self.statuses.index(name)
        except ValueError:
            raise KeyError(f"no status signal {name!r} (there are {self.statuses})") from None


class Microsequencer(wiring.Component):
    """Executes a microprogram one word per cycle.

    Interface attributes
    --------------------
    status : In(len(statuses))      the signals branches test, in ``spec.statuses`` order
    start : In(1)                   go to ``entry`` (the stack is emptied)
    entry : In(address_bits)
    stall : In(1)                   execute the current word again
    write : In(spec.store_write)    rewrite one word of the micro-store
    control : Out(spec.control)     the control fields of the word executing
    address : Out(address_bits)     its address
    stack_error : Out(1)            sticky: a CALL overflowed or a RETURN underflowed the stack

    ``fast`` names the control fields served from a copy of their bits (rewritten with the
    micro-store; a block RAM of its own once synthesized), ``flops`` those served from
    flip-flops loaded from a copy in distributed RAM: bit for bit the same ``control``.
    """

    def __init__(self, spec, image=None, *, stack_depth=8, fast=(), flops=()):
        if stack_depth < 1:
            raise ValueError(f"the return stack needs at least one entry, not {stack_depth}")
        image = list(image or [])
        if len(image) > spec.depth:
            raise ValueError(f"a {len(image)}-word image does not fit a {spec.depth}-word micro-store")
        fields = dict(spec.control)
        for name in (*fast, *flops):
            if name not in fields:
                raise KeyError(f"no control field {name!r} (there are {list(fields)})")
        if both := set(fast) & set(flops):
            raise ValueError(f"control fields both fast and from flip-flops: {sorted(both)}")
        self._spec, self._image, self._stack_depth = spec, image, stack_depth
        self._fast, self._flops = tuple(fast), tuple(flops)
        super().__init__({
            "status": In(max(1, len(spec.statuses))),
            "start": In(1),
            "entry": In(spec.address_bits),
            "stall": In(1),
            "write": In(spec.store_write),
            "control": Out(spec.control),
            "address": Out(spec.address_bits),
            "stack_error": Out(1),
        })

    @property
    def spec(self):
        return self._spec

    def elaborate(self, platform):
        m = Module()
        spec = self._spec
        # Stored as plain bits, so the image is the assembler's integers.
        m.submodules.store = store = Memory(shape=spec.word.size, depth=spec.depth, init=self._image)
        write = store.write_port()
        read = store.read_port(transparent_for=(write,))
        m.d.comb += [write.en.eq(self.write.valid), write.addr.eq(self.write.payload.address),
                     write.data.eq(self.write.payload.word)]

        word = spec.word(read.data)
        seq = word.seq
        m.d.comb += self.control.eq(word.control)

        # The address of the word on ``read.data``: the address read at the last edge.
        current = Signal(spec.address_bits)
        m.d.comb += self.address.eq(current)

        # Branch bits: status selected by each cond field (selector 0 = constant 0).
        selectable = Cat(Const(0, 1), self.status)
        branch = Signal(BRANCH_BITS)
        for i in range(BRANCH_BITS):
            m.d.comb += branch[i].eq(selectable.bit_select(seq.cond[i], 1))

        stack = Signal(data.ArrayLayout(spec.address_bits, self._stack_depth))
        depth = Signal(range(self._stack_depth + 1))
        top = Signal(spec.address_bits)
        with m.Switch(depth):
            for level in range(1, self._stack_depth + 1):
                with m.Case(level):
                    m.d.comb += top.eq(stack[level - 1])

        following = Signal(spec.address_bits)
        m.d.comb += following.eq(current + 1)
        target = Signal(spec.address_bits)
        with m.If(self.start):
            m.d.comb += target.eq(self.entry)
            m.d.sync += depth.eq(0)
        with m.Elif(self.stall):
            m.d.comb += target.eq(current)
        with m.Elif(seq.op == SeqOp.RETURN):
            m.d.comb += target.eq(top | branch)
            with m.If(depth == 0):
                m.d.sync += self.stack_error.eq(1)
            with m.Else():
                m.d.sync += depth.eq(depth - 1)
        with m.Else():
            m.d.comb += target.eq(seq.next | branch)
            with m.If(seq.op == SeqOp.CALL):
                with m.If(depth == self._stack_depth):
                    m.d.sync += self.stack_error.eq(1)
                with m.Else():
                    m.d.sync += depth.eq(depth + 1)
                    with m.Switch(depth):
                        for level in range(self._stack_depth):
                            with m.Case(level):
                                m.d.sync += stack[level].eq(following)
        m.d.comb += read.addr.eq(target)
        m.d.sync += current.eq(target)
        self._copy(m, "fast_store", self._fast, write, target, {})
        self._copy(m, "flop_store", self._flops, write, target, {"ram_style": "distributed"})
        return m

    def _copy(self, m, name, fields, write, target, attrs):
        """The control ``fields`` from a copy of their bits (``attrs``: the memory's synthesis
        attributes), written with the micro-store and read at ``target`` into a register, as
        the micro-store is read, including its transparency for a write to that address."""
        if not fields:
            return
        spec = self._spec
        control_offset = spec.word["control"].offset
        ranges = [(control_offset + spec.control[field].offset, spec.control[field].width) for field in fields]

        def bits(word):             # the fields' bit ranges, concatenated: of an int or a value
            if isinstance(word, int):
                return sum(((word >> offset) & ((1 << width) - 1)) << sum(w for _, w in ranges[:i])
                           for i, (offset, width) in enumerate(ranges))
            return Cat(*(word[offset:offset + width] for offset, width in ranges))

        width = sum(w for _, w in ranges)
        m.submodules[name] = store = Memory(shape=width, depth=spec.depth, init=[bits(word) for word in self._image],
                                            attrs=attrs)
        copy_write, copy_read = store.write_port(), store.read_port(domain="comb")
        copied = Signal(width, reset_less=True)
        m.d.comb += [copy_write.en.eq(write.en), copy_write.addr.eq(write.addr),
                     copy_write.data.eq(bits(write.data)), copy_read.addr.eq(target)]
        m.d.sync += copied.eq(Mux(write.en & (write.addr == target), bits(write.data), copy_read.data))
        at = 0
        for offset, width in ranges:
            offset -= control_offset
            m.d.comb += self.control.as_value()[offset:offset + width].eq(copied[at:at + width])
            at += width


#: Download-port indices per micro-store word: word ``a`` is written as 24-bit parts at indices
#: ``a * PART_STRIDE + 0, 1, ...`` (unused indices of the stride are ignored).
PART_STRIDE = 4


class MicroStoreLoader(wiring.Component):
    """Microinstructions from 24-bit download writes (the table-download port's format): the
    parts of a word are staged, and the write of its last part rewrites the word in the
    micro-store (the sequencer's ``write``) in the same cycle.

    Interface attributes
    --------------------
    write : In(Pulse({index, data}))   a download write addressed to the micro-store
    store : Out(spec.store_write)      to ``Microsequencer.write``
    """

    def __init__(self, spec, data_bits=24):
        self._spec, self._data_bits = spec, data_bits
        self._parts = -(-spec.word.size // data_bits)
        if self._parts > PART_STRIDE:
            raise ValueError(f"a {spec.word.size}-bit microinstruction needs more than {PART_STRIDE} parts")
        super().__init__({
            "write": In(Pulse(data.StructLayout({"index": 16, "data": data_bits}))),
            "store": Out(spec.store_write),
        })

    @property
    def parts(self):
        return self._parts

    def elaborate(self, platform):
        m = Module()
        bits, parts = self._data_bits, self._parts
        staged = Signal(parts * bits)
        part = self.write.payload.index[:2]
        assembled = Signal(parts * bits)
        m.d.comb += assembled.eq(staged)
        with m.Switch(part):
            for p in range(parts):
                with m.Case(p):
                    m.d.comb += assembled.word_select(p, bits).eq(self.write.payload.data)
        with m.If(self.write.valid):
            m.d.sync += staged.eq(assembled)
        m.d.comb += [
            self.store.valid.eq(self.write.valid & (part == parts - 1)),
            self.store.payload.address.eq(self.write.payload.index[2:]),
            self.store.payload.word.eq(assembled[:self._spec.word.size]),
        ]
        return m


def microcode_entries(spec, image, data_bits=24):
    """The download writes of a micro-store image, from index 0 on: ``PART_STRIDE`` entries a
    word (its 24-bit parts, low first, then padding)."""
    parts = -(-spec.word.size // data_bits)
    entries = []
    for word in image:
        entries += [(word >> (p * data_bits)) & ((1 << data_bits) - 1) for p in range(parts)]
        entries += [0] * (PART_STRIDE - parts)
    return entries


def predecessors(spec, image):
    """For each address of a micro-store image, the addresses whose word may go there next, as
    the sequencer computes it (a stall stays put: not a step): a GOTO's or CALL's next address
    ORed with any of the branch bits its ``cond`` selects, a RETURN's with the address after any
    CALL (a return address it may pop)."""
    words = [unpack(spec.word, word)["seq"] for word in image]
    returns = [a + 1 for a, seq in enumerate(words) if seq["op"] == SeqOp.CALL.value and a + 1 < spec.depth]
    into = [set() for _ in range(spec.depth)]
    for address, seq in enumerate(words):
        bits = [1 << i for i, selector in enumerate(seq["cond"]) if selector != 0]
        branches = {sum(b for j, b in enumerate(bits) if subset >> j & 1) for subset in range(1 << len(bits))}
        bases = returns if seq["op"] == SeqOp.RETURN.value else [seq["next"]]
        for base in bases:
            for branch in branches:
                into[base | branch].add(address)
    return into
