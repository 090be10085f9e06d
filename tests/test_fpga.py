"""Board builds: PLL settings, the ULX3S top's pins and clocks as Amaranth prepares them for
Yosys and nextpnr (the build itself is a benchmark command: tens of minutes), reports, and
the programming command's errors."""

import json

import pytest

from fpga.boards import BOARDS, BoardTop, ecp5_pll
from fpga.build import BuildFailed, build_plan, program_board, read_report
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
    with pytest.raises(BuildFailed, match="not installed"):
        program_board("ulx3s-85f", bitstream)
