from hdl.link.top import BOARD_CLOCK_HZ

#: The core clock the ULX3S-85F board build runs the machine at (``hdl/link/top.py``), for
#: projecting cycles onto nodes or leaves per second. A projection: whether the current
#: hardware meets it is the board build's report (BENCHMARKS.md, "Board build").
BOARD_CLOCK_MHZ = BOARD_CLOCK_HZ / 1e6
