"""The micro-assembler: microprograms written in Python, placed and encoded for the
microsequencer (hdl/search/microsequencer.py).

A :class:`Program` is written with :meth:`~Program.label` and :meth:`~Program.op`; macros are
plain Python functions that call them (errors name the line that called the macro too).
Every ``op`` gives control fields by name (checked against the spec's control layout: unknown
names and values that do not fit are errors) and how to go on:

- nothing: the next ``op`` in program order;
- ``goto="label"``;
- ``branch=["status", ...], targets=["label", ...]``: a 2/4/8/16-way branch, target i taken
  when the statuses (first = bit 0) read i;
- ``call="label"``: the subroutine returns to the next ``op`` in program order;
- ``ret=True``: back to the op after the last call.

Placement: the targets of a multiway branch go in an aligned block (its low address bits are
the branch bits), and the op after a CALL goes right after it (the return address is the
CALL's address + 1). A target that cannot sit in its slot — it is in another block already,
named in two slots, or a call or a call's return point — gets a *trampoline* there instead (a
bare goto: one more cycle on that path; the listing shows it as ``(label)``). Blocks are placed
first, largest first, at the lowest aligned free place; everything else fills the holes
first-fit in program order, so little is wasted. Enumerated control fields take their
members' names as strings. ``assemble`` gives
the micro-store image; ``listing`` shows address, labels and fields.
"""

import inspect
import os
from dataclasses import dataclass, field

from amaranth.lib import data, enum

from ..encoding import pack
from .microsequencer import BRANCH_BITS, SeqOp

__all__ = ["Program", "AssemblyError"]


class AssemblyError(Exception):
    """A microprogram that cannot be assembled; the message names the source line."""


def _where():
    """``file:line`` of the first caller outside this module, and of its caller (a macro's use)."""
    here = os.path.abspath(__file__)
    places = []
    for frame in inspect.stack()[1:]:
        if os.path.abspath(frame.filename) != here:
            places.append(f"{os.path.basename(frame.filename)}:{frame.lineno}")
            if len(places) == 2:
                break
    return places[0] + (f" (called from {places[1]})" if len(places) > 1 else "")


@dataclass
class _Op:
    index: int
    where: str
    control: dict
    op: SeqOp = SeqOp.GOTO
    goto: str = None            # label, or None for the next op
    branch: tuple = ()          # status names
    targets: tuple = ()         # labels
    labels: list = field(default_factory=list)
    address: int = None
    copy_of: "_Op" = None       # a copy of this op placed in a branch slot


class Program:
    """A microprogram for a :class:`~hdl.search.microsequencer.MicroSpec`."""

    def __init__(self, spec):
        self.spec = spec
        self._ops = []
        self._labels = {}           # label -> op index (None until the next op arrives)
        self._pending = []          # labels waiting for their op
        self._label_where = {}      # label -> where it was defined
        self._trampolines = []      # gotos the placement put in branch slots
        self._assembled = None

    # --- writing -----------------------------------------------------------------------------
    def label(self, name):
        if name in self._labels or name in self._pending:
            raise AssemblyError(f"{_where()}: label {name!r} defined twice")
        self._pending.append(name)
        self._label_where[name] = _where()

    def op(self, *, goto=None, branch=(), targets=(), call=None, ret=False, **control):
        where = _where()
        self._check_control(control, where)
        branch, targets = tuple(branch), tuple(targets)
        if sum(x is not None and x is not False for x in (goto, call, ret or None)) > 1:
            raise AssemblyError(f"{where}: give one of goto, call and ret")
        if branch or targets:
            if goto is not None or call is not None or ret:
                raise AssemblyError(f"{where}: a branch takes its targets from targets=, not goto/call/ret")
            if not 1 <= len(branch) <= BRANCH_BITS:
                raise AssemblyError(f"{where}: a branch tests 1 to {BRANCH_BITS} statuses, not {len(branch)}")
            if len(targets) != 1 << len(branch):
                raise AssemblyError(f"{where}: a {len(branch)}-status branch needs {1 << len(branch)} targets, "
                                    f"not {len(targets)}")
            for name in branch:
                if name not in self.spec.statuses:
                    raise AssemblyError(f"{where}: unknown status {name!r} (there are {self.spec.statuses})")
        op = _Op(len(self._ops), where, control, branch=branch, targets=targets)
        if call is not None:
            op.op, op.goto = SeqOp.CALL, call
        elif ret:
            op.op = SeqOp.RETURN
        else:
            op.goto = goto
        op.labels = self._pending
        for name in self._pending:
            self._labels[name] = op.index
        self._pending = []
        self._ops.append(op)
        self._assembled = None
        return op.index

    def _check_control(self, control, where):
        layout = self.spec.control
        names = {name for name, _ in layout}
        for name, value in control.items():
            if name not in names:
                raise AssemblyError(f"{where}: unknown control field {name!r} (there are {sorted(names)})")
            shape = layout[name].shape
            if isinstance(shape, enum.EnumType):
                members = {member.name: member for member in shape}
                if isinstance(value, str):
                    if value not in members:
                        raise AssemblyError(f"{where}: control field {name!r} has no value {value!r} "
                                            f"(it has {sorted(members)})")
                    control[name] = members[value]
                continue
            if isinstance(shape, data.Layout) or not isinstance(value, int) or isinstance(value, bool):
                continue        # nested layouts and flags are checked when packed
            width = layout[name].width
            if not 0 <= value < 1 << width:
                raise AssemblyError(f"{where}: control field {name!r} is {width} bits wide; {value} does not fit")

    # --- placement ---------------------------------------------------------------------------
    def _resolve(self, name, where):
        if name not in self._labels:
            raise AssemblyError(f"{where}: unknown label {name!r}")
        return self._labels[name]

    def _place(self):
        ops = self._ops
        if self._pending:
            raise AssemblyError(f"{self._label_where[self._pending[0]]}: labels {self._pending} have no op after them")
        if not ops:
            raise AssemblyError(f"{_where()}: the program is empty")
        for op in ops:
            op.address = None
            for name in ([op.goto] if op.goto else []) + list(op.targets):
                self._resolve(name, op.where)
            if op.op == SeqOp.CALL and op.index + 1 >= len(ops):
                raise AssemblyError(f"{op.where}: a call needs an op after it to return to")
        depth = self.spec.depth
        used = set()

        # Multiway blocks: each distinct target tuple once. A target op sits in its block's slot
        # itself unless it is already in a block (or named twice here): then the slot holds a
        # copy of it (the same control fields, going where it goes). A call and a call's return
        # point must stay next to each other: their slots hold a trampoline, a bare goto (one
        # more cycle on that path).
        self._trampolines = []
        self._block_base = {}       # targets -> address of slot 0
        blocks, owned = {}, set()
        for op in ops:
            if not op.targets or op.targets in blocks:
                continue
            members = []
            for name in op.targets:
                target = ops[self._labels[name]]
                pinned = target.op == SeqOp.CALL or (target.index > 0 and ops[target.index - 1].op == SeqOp.CALL)
                if pinned:
                    target = _Op(-1, op.where, {}, goto=name, labels=[f"({name})"])
                    self._trampolines.append(target)
                elif target.index in owned:
                    target = _Op(-1, target.where, target.control, op=target.op, goto=target.goto,
                                 branch=target.branch, targets=target.targets, labels=[f"={name}"],
                                 copy_of=target)
                    self._trampolines.append(target)
                else:
                    owned.add(target.index)
                members.append(target)
            blocks[op.targets] = (op, members)
        for op, members in sorted(blocks.values(), key=lambda block: -len(block[1])):
            size = len(members)
            base = next((b for b in range(0, depth, size) if not used & set(range(b, b + size))), None)
            if base is None:
                raise AssemblyError(f"{op.where}: no aligned room left for a {size}-way block in {depth} words")
            self._block_base[op.targets] = base
            for slot, member in enumerate(members):
                member.address = base + slot
                used.add(base + slot)

        # Everything else in program order, first fit; the op after a CALL right after it.
        for op in ops:
            if op.address is not None or (op.index > 0 and ops[op.index - 1].op == SeqOp.CALL):
                continue
            chain = [op]
            while chain[-1].op == SeqOp.CALL:
                chain.append(ops[chain[-1].index + 1])
            start = next((a for a in range(depth - len(chain) + 1)
                          if not used & set(range(a, a + len(chain)))), None)
            if start is None:
                raise AssemblyError(f"{op.where}: the program does not fit {depth} words")
            for offset, member in enumerate(chain):
                member.address = start + offset
                used.add(start + offset)

    # --- output ------------------------------------------------------------------------------
    def assemble(self):
        """The micro-store image: one integer per address (unused words: GOTO self)."""
        if self._assembled is not None:
            return self._assembled
        self._place()
        spec = self.spec
        image = [pack(spec.word, seq={"op": SeqOp.GOTO, "next": a, "cond": [0] * BRANCH_BITS}, control={})
                 for a in range(spec.depth)]
        for op in self._ops + self._trampolines:
            cond = [spec.status_index(name) for name in op.branch] + [0] * (BRANCH_BITS - len(op.branch))
            if op.targets:
                nxt = self._block_base[op.targets]
            elif op.goto is not None:
                nxt = self._ops[self._labels[op.goto]].address
            elif op.op == SeqOp.RETURN:
                nxt = 0
            else:
                index = (op.copy_of or op).index
                if index + 1 >= len(self._ops):
                    raise AssemblyError(f"{op.where}: the last op must say where to go (goto, ret, branch)")
                nxt = self._ops[index + 1].address
            try:
                image[op.address] = pack(spec.word, seq={"op": op.op, "next": nxt, "cond": cond},
                                         control=op.control)
            except (TypeError, ValueError) as error:
                raise AssemblyError(f"{op.where}: {error}") from None
        self._assembled = image
        return image

    def address_of(self, label):
        self.assemble()
        return self._ops[self._resolve(label, "address_of")].address

    def listing(self):
        """One line per placed op: address, labels, sequencing and the control fields set."""
        self.assemble()
        lines = []
        for op in sorted(self._ops + self._trampolines, key=lambda o: o.address):
            labels = ",".join(op.labels)
            if op.targets:
                flow = f"branch {'|'.join(op.branch)} -> {' '.join(op.targets)}"
            elif op.op == SeqOp.CALL:
                flow = f"call {op.goto}"
            elif op.op == SeqOp.RETURN:
                flow = "return"
            else:
                flow = f"goto {op.goto}" if op.goto else "next"
            fields = " ".join(f"{k}={getattr(v, 'name', v)}" for k, v in op.control.items())
            lines.append(f"{op.address:4d}  {labels:14} {flow:40} {fields}".rstrip())
        return "\n".join(lines)
