"""FPGA targets: board builds and out-of-context synthesis of single blocks."""
