"""The micro-assembler (placement, listing, every error) and the microsequencer (each branch
width, calls and returns, the return stack's limit, micro-store writes) in the Amaranth
simulator."""

import itertools

import pytest
from amaranth.lib import data

from hdl.encoding import pack
from hdl.search.assembler import AssemblyError, Program
from hdl.search.microsequencer import Microsequencer, MicroSpec, SeqOp, predecessors
from sim.testing import simulate

SPEC = MicroSpec(data.StructLayout({"out": 8, "flag": 1}), ["a", "b", "c", "d"], address_bits=7)


def branching_program():
    p = Program(SPEC)
    p.label("start")
    p.op(out=1)
    p.op(out=2, branch=["a"], targets=["two0", "two1"])
    for i in range(2):
        p.label(f"two{i}")
        p.op(out=10 + i, goto="four")
    p.label("four")
    p.op(out=3, branch=["a", "b"], targets=[f"four{i}" for i in range(4)])
    for i in range(4):
        p.label(f"four{i}")
        p.op(out=20 + i, goto="eight")
    p.label("eight")
    p.op(out=4, branch=["b", "c", "d"], targets=[f"eight{i}" for i in range(8)])
    for i in range(8):
        p.label(f"eight{i}")
        p.op(out=30 + i, goto="sixteen")
    p.label("sixteen")
    p.op(out=5, branch=["a", "b", "c", "d"], targets=[f"sixteen{i}" for i in range(16)])
    for i in range(16):
        p.label(f"sixteen{i}")
        p.op(out=40 + i, goto="calls")
    p.label("calls")
    p.op(out=6, call="outer")
    p.op(out=7, flag=1)
    p.label("end")
    p.op(out=8, goto="end")
    p.label("outer")
    p.op(out=60, call="inner")
    p.op(out=61, ret=True)
    p.label("inner")
    p.op(out=70, ret=True)
    return p


def expected_trace(status):
    a, b, c, d = ((status >> i) & 1 for i in range(4))
    return [1, 2, 10 + a, 3, 20 + (a | b << 1), 4, 30 + (b | c << 1 | d << 2), 5, 40 + status,
            6, 60, 70, 61, 7, 8, 8]


def run(program, status, cycles, writes=(), fast=(), flops=(), whole=False):
    """The trace of ``control.out`` (``whole``: of all of ``control``) and of the stack error."""
    dut = Microsequencer(SPEC, program.assemble(), fast=fast, flops=flops)
    trace, errors = [], []

    async def bench(ctx):
        ctx.set(dut.status, status)
        ctx.set(dut.entry, program.address_of("start"))
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        for cycle in range(cycles):
            for at, address, word in writes:
                if at == cycle:
                    ctx.set(dut.write.valid, 1)
                    ctx.set(dut.write.payload.address, address)
                    ctx.set(dut.write.payload.word.as_value(), word)
            trace.append(ctx.get(dut.control.as_value()) if whole else ctx.get(dut.control.out))
            errors.append(ctx.get(dut.stack_error))
            await ctx.tick()
            ctx.set(dut.write.valid, 0)

    simulate(dut, bench)
    return trace, errors


@pytest.mark.parametrize("status", [0b0000, 0b0101, 0b1010, 0b1111, 0b0110])
def test_branches_of_every_width_calls_and_returns(status):
    trace, errors = run(branching_program(), status, 16)
    assert trace == expected_trace(status), f"status {status:04b}"
    assert not any(errors)


def test_placement_aligns_blocks_and_keeps_return_points():
    p = branching_program()
    for name, size in (("two", 2), ("four", 4), ("eight", 8), ("sixteen", 16)):
        base = p.address_of(f"{name}0")
        assert base % size == 0, f"{name} block at {base}"
        assert [p.address_of(f"{name}{i}") for i in range(size)] == list(range(base, base + size))
    # the op after each call is at the call's address + 1
    image = p.assemble()
    calls = [a for a, word in enumerate(image) if SPEC.word.from_bits(word).seq.op == SeqOp.CALL]
    assert len(calls) == 2
    # 41 ops in a 128-word store, the blocks packed without holes between them
    assert len(p.listing().splitlines()) == 41
    used = sorted(p.address_of(f"{n}{i}") for n, k in (("two", 2), ("four", 4), ("eight", 8), ("sixteen", 16))
                  for i in range(k))
    assert used[-1] - used[0] + 1 == 30


def test_listing_shows_addresses_labels_and_fields():
    p = branching_program()
    lines = p.listing().splitlines()
    start = p.address_of("start")
    line = next(text for text in lines if text.split()[0] == str(start))
    assert "start" in line and "out=1" in line and "next" in line
    assert any("branch a|b|c|d -> sixteen0" in line for line in lines)
    assert any("call outer" in line for line in lines) and any("return" in line for line in lines)


def test_the_return_stack_is_eight_deep_and_reports_overflow():
    p = Program(SPEC)
    p.label("start")
    p.op(out=1, call="start")      # recursion without end
    p.op(out=2, ret=True)
    trace, errors = run(p, 0, 12)
    assert trace[:9] == [1] * 9
    assert errors.index(1) == 9, errors      # the ninth call overflows


def test_the_micro_store_is_rewritable():
    p = branching_program()
    end = p.address_of("end")
    word = pack(SPEC.word, seq={"op": SeqOp.GOTO, "next": end, "cond": [0] * 4}, control={"out": 99})
    trace, _ = run(p, 0, 18, writes=[(3, end, word)])
    assert trace[14:] == [99] * 4


def test_microsequencer_parameter_checks():
    with pytest.raises(ValueError, match="does not fit a 128-word micro-store"):
        Microsequencer(SPEC, [0] * 129)
    with pytest.raises(ValueError, match="at least one entry"):
        Microsequencer(SPEC, [], stack_depth=0)
    with pytest.raises(ValueError, match="status names repeat"):
        MicroSpec(data.StructLayout({"x": 1}), ["a", "a"])


def _error(build, message):
    p = Program(SPEC)
    with pytest.raises(AssemblyError, match=message) as info:
        build(p)
        p.assemble()
    assert "test_microsequencer.py:" in str(info.value)


@pytest.mark.parametrize("build,message", [
    (lambda p: p.op(goto="nowhere"), "unknown label 'nowhere'"),
    (lambda p: (p.label("x"), p.label("x")), "label 'x' defined twice"),
    (lambda p: p.op(out=256, goto="x"), "'out' is 8 bits wide; 256 does not fit"),
    (lambda p: p.op(colour=1), "unknown control field 'colour'"),
    (lambda p: p.op(branch=["e"], targets=["x", "y"]), "unknown status 'e'"),
    (lambda p: p.op(branch=["a", "b"], targets=["x", "y"]), "needs 4 targets, not 2"),
    (lambda p: p.op(branch=["a"] * 5, targets=["x"] * 32), "tests 1 to 4 statuses"),
    (lambda p: p.op(goto="x", call="y"), "one of goto, call and ret"),
    (lambda p: p.op(out=1, call="x") if p.label("x") is None else None, "needs an op after it"),
    (lambda p: [p.op(goto="l0") if i == 0 else p.op() for i in range(129)] and p.label("l0"), "no op after them"),
    (lambda p: (p.label("l0"), [p.op(goto="l0") for _ in range(129)]), "does not fit 128 words"),
    (lambda p: p.op(), "the last op must say where to go"),
    (lambda p: None, "the program is empty"),
])
def test_assembler_errors_name_the_source_line(build, message):
    _error(build, message)


def test_a_macro_error_names_the_macro_use():
    def pair(p, value):            # a macro: two ops
        p.op(out=value)
        p.op(out=value + 1, goto="missing")

    p = Program(SPEC)
    pair(p, 3)
    with pytest.raises(AssemblyError, match=r"test_microsequencer.py:\d+ \(called from test_microsequencer.py:\d+\)"):
        p.assemble()


def test_every_status_combination_reaches_its_slot():
    p = branching_program()
    for status in itertools.product((0, 1), repeat=4):
        value = sum(bit << i for i, bit in enumerate(status))
        assert p.address_of(f"sixteen{value}") == p.address_of("sixteen0") + value


def test_copies_and_trampolines_fill_slots_that_cannot_hold_their_target():
    """One op wanted by two branches and twice by one, a call and a return point as targets:
    the placement puts copies of the op (same fields, same way on) or, for the call and its
    return point, gotos in those slots, and every path still arrives."""
    p = Program(SPEC)
    p.label("start")
    p.op(out=1, branch=["a", "b"], targets=["shared", "sub_call", "shared", "back"])
    p.label("shared")
    p.op(out=2)
    p.op(out=7, goto="end")
    p.label("sub_call")
    p.op(out=3, call="sub")
    p.label("back")
    p.op(out=4, branch=["c"], targets=["shared", "end"])
    p.label("end")
    p.op(out=5, goto="end")
    p.label("sub")
    p.op(out=6, ret=True)
    listing = p.listing()
    assert "=shared" in listing and "(sub_call)" in listing and "(back)" in listing
    assert "(shared)" not in listing
    # a trampoline shows as 0 (no control fields) in the trace; a copy as the op itself, and it
    # falls through to the op after the original
    for status, want in [(0b000, [1, 2, 7, 5]), (0b001, [1, 0, 3, 6, 4, 2, 7, 5]), (0b010, [1, 2, 7, 5]),
                         (0b011, [1, 0, 4, 2, 7, 5]), (0b111, [1, 0, 4, 5])]:
        trace, _ = run(p, status, len(want) + 1)
        assert trace[:len(want)] == want, f"status {status:03b}: {trace}"


def test_enumerated_fields_take_member_names():
    from hdl.search.controller import SPEC as CONTROLLER
    p = Program(CONTROLLER)
    p.label("x")
    p.op(gen="FIRST", wait="GEN", goto="x")
    from hdl.search.controller import GenIssue
    assert CONTROLLER.word.from_bits(p.assemble()[p.address_of("x")]).control.gen == GenIssue.FIRST
    with pytest.raises(AssemblyError, match="has no value 'LAST'"):
        p.op(gen="LAST")



@pytest.mark.parametrize("fast,flops", [(("out",), ()), (("flag", "out"), ()), ((), ("out",)), (("flag",), ("out",))])
def test_fast_fields_are_the_same_bits_on_the_same_cycles(fast, flops):
    # every branch width, calls, returns and a rewrite of a word while it is read again
    p = branching_program()
    end = p.address_of("end")
    word = pack(SPEC.word, seq={"op": SeqOp.GOTO, "next": end, "cond": [0] * 4}, control={"out": 99, "flag": 1})
    for status in (0b0000, 0b0110, 0b1111):
        for writes in ((), [(3, end, word)], [(13, end, word)], [(14, end, word)]):
            with_copy = run(p, status, 18, writes, fast=fast, flops=flops, whole=True)
            assert with_copy == run(p, status, 18, writes, whole=True), (status, writes)
            assert 99 + 256 in with_copy[0] if writes else 99 + 256 not in with_copy[0]
    with pytest.raises(KeyError, match="no control field 'gen'"):
        Microsequencer(SPEC, [], fast=("gen",))
    with pytest.raises(KeyError, match="no control field 'gen'"):
        Microsequencer(SPEC, [], flops=("gen",))
    with pytest.raises(ValueError, match=r"both fast and from flip-flops: \['out'\]"):
        Microsequencer(SPEC, [], fast=("out",), flops=("out",))


def test_predecessors_are_the_steps_the_sequencer_can_take():
    p = branching_program()
    into = predecessors(SPEC, p.assemble())
    at = p.address_of
    assert into[at("four")] == {at("two0"), at("two1")}
    for i in range(8):
        assert into[at(f"eight{i}")] == {at("eight")}
    assert into[at("outer")] == {at("calls")}
    # A RETURN may pop any return address: the op after either CALL.
    returns = {at("outer") + 1, at("inner")}
    assert into[at("calls") + 1] == returns and into[at("outer") + 1] == returns
    assert into[at("end")] == {at("calls") + 1, at("end")}


def _hash_program(between=False, result_after_decision=True):
    """A search-like microprogram for the controller: a node entered, then its table probe
    (``between``: a word that enters nothing in between), then the table's value returned
    (``result_after_decision`` False: from a word that does not branch on hash_cut)."""
    from hdl.search.controller import SPEC as CONTROLLER
    p = Program(CONTROLLER)
    p.label("idle")
    p.op(branch=["start", "search"], targets=["idle", "idle", "idle", "enter"])
    p.label("enter")
    p.op(enter=1, goto="between" if between else "probe")
    if between:
        p.label("between")
        p.op(count="ONE", goto="probe")
    p.label("probe")
    p.op(branch=["hash_cut"], targets=["idle", "hash_return" if result_after_decision else "elsewhere"])
    if not result_after_decision:
        p.label("elsewhere")
        p.op(count="ONE", goto="hash_return")
    p.label("hash_return")
    p.op(result="HASH", goto="idle")
    return p


def test_the_controller_refuses_a_microprogram_that_breaks_the_timing_contract():
    from hdl.search.controller import Controller, timing_violations
    from hdl.search.microcode import program
    assert timing_violations(program().assemble()) == []
    assert timing_violations(program(count_interior=True).assemble()) == []
    good = _hash_program()
    assert timing_violations(good.assemble()) == []
    Controller(good.assemble(), good.address_of("idle"))
    early = _hash_program(between=True)
    problems = timing_violations(early.assemble())
    assert problems == [f"word {early.address_of('probe')} branches on hash_cut after word "
                        f"{early.address_of('between')}, which enters no node"]
    with pytest.raises(ValueError, match="breaks the timing contract: word .* enters no node"):
        Controller(early.assemble(), early.address_of("idle"))
    late = _hash_program(result_after_decision=False)
    assert timing_violations(late.assemble()) == [
        f"word {late.address_of('hash_return')} returns the table's value after word "
        f"{late.address_of('elsewhere')}, which does not branch on hash_cut"]


def _killer_program(*, kill_before_asking=False):
    """A microprogram that asks the generator about a killer right after deciding to, or (with
    ``kill_before_asking``) from a word that also counts a killer considered."""
    from hdl.search.controller import SPEC as CONTROLLER
    p = Program(CONTROLLER)
    p.label("idle")
    p.op(branch=["start", "search"], targets=["idle", "idle", "idle", "killers"])
    p.label("killers")
    p.op(stash=1, kill=int(kill_before_asking), branch=["killer_fresh"], targets=["idle", "killer_legal"])
    p.label("killer_legal")
    p.op(gen="KILLER")
    p.op(wait="GEN", goto="idle")
    return p


def test_a_killer_is_asked_about_only_right_after_the_word_that_decided_to():
    from hdl.search.controller import Controller, timing_violations
    good = _killer_program()
    assert timing_violations(good.assemble()) == []
    bad = _killer_program(kill_before_asking=True)
    assert timing_violations(bad.assemble()) == [
        f"word {bad.address_of('killer_legal')} asks about a killer after word {bad.address_of('killers')}, "
        "which does not decide on killer_fresh or changes the ply or the killers considered"]
    with pytest.raises(ValueError, match="asks about a killer"):
        Controller(bad.assemble(), bad.address_of("idle"))
