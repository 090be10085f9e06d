

#: The whole machine's routed Fmax on the ULX3S-85F board build (BENCHMARKS.md, "Board build"),
#: for projecting cycles onto nodes or leaves per second.
BOARD_FMAX_MHZ = 24.8
