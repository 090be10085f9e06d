"""FPGA targets: board builds and out-of-context synthesis of single blocks."""

#: The boards ``suprem build`` knows (``fpga.boards.BOARDS`` describes each).
BOARD_NAMES = ("ulx3s-85f", "icebreaker")
