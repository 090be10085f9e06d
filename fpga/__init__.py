"""FPGA targets: board builds and out-of-context synthesis of single blocks."""

#: The boards ``suprem build`` knows (``fpga.boards.BOARDS`` describes each).
BOARD_NAMES = ("ulx3s-85f", "icebreaker")

#: What a board can be built as: the searching machine (``hdl/top.py``), or the evaluation
#: station (``hdl/station.py``: the evaluator and the position, no generator, no search).
MACHINES = ("search", "station")

#: The move generators a searching machine can be built with: the legal one (``hdl/movegen``:
#: legal moves, bulk-counting perft), or the lean one (smaller: it leaves pins to the search,
#: which makes and tests those moves, and takes the same nodes).
GENERATORS = ("legal", "lean")
