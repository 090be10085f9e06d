"""The ``suprem`` command line."""

import argparse
import os
import sys

import chess

from hdl.search.features import SearchFeatures
from host.oracle import KNOWLEDGE

__all__ = ["main", "positive_number"]


def _board_from_arg(text, variant="chess"):
    from host.epd import parse_position
    from models.position import new_board, validate_board
    if text in ("startpos", "start"):
        board = new_board(variant)
    else:
        board, _ = parse_position(text, variant)
    validate_board(board)
    return board


def cmd_moves(args):
    """The Verilated generator's moves for a position, in emission order."""
    from hdl.movegen.layouts import GenMode, MoveKey
    from host.antichess import victim_order
    from models.movegen import config_for
    from sim.movegen_check import compare_position, legal_by_king_check
    from sim.movegen_sim import VerilatedMovegen
    board = _board_from_arg(args.fen, args.variant)
    mode = GenMode.CAPTURES if args.captures else GenMode.ALL
    with VerilatedMovegen() as hw:
        hw.set_config(config_for(board, victim_order(board)))
        hw.set_position(board)
        moves, cycles = hw.generate(mode=mode)
        legal = {m.uci for m in legal_by_king_check(hw, board.copy(), moves)}
        diffs = compare_position(hw, board.copy(), victim_order(board))
    print(f"position {board.fen()}")
    print(f"{'#':>3} {'move':6} {'san':8} {'legal':5} key (victim safe centrality square attacker promotion)")
    for i, move in enumerate(moves, 1):
        key = MoveKey.from_bits(move.key)
        san = board.san(chess.Move.from_uci(move.uci)) if move.uci in legal else "-"
        print(f"{i:3} {move.uci:6} {san:8} {'yes' if move.uci in legal else 'no':5} "
              f"{int(key.victim):6} {int(key.safe)} {int(key.centrality)} {int(key.square):2} "
              f"{int(key.attacker):2} {int(key.promotion_rank)}")
    print(f"{len(moves)} moves ({len(legal)} legal) in {cycles} cycles")
    if diffs:
        print("python-chess and the model DISAGREE:")
        for line in diffs:
            print("  " + line)
        return 1
    print("python-chess and the bit-exact model agree")
    return 0


def _open_machine(args, eval_params=None):
    """The board of ``--port`` (a serial device), or a simulated board started for it (with the
    evaluator ``eval_params``, which a real board must have if given)."""
    from sim.board_sim import open_machine
    if args.port is None:
        print("suprem: starting a simulated board", file=sys.stderr, flush=True)
    return open_machine(args.port, eval_params=eval_params, baud=args.baud, legal_moves=args.generator == "legal")


def cmd_perft(args):
    """Hardware perft on the board (the simulated board without ``--port``)."""
    board = _board_from_arg(args.fen, args.variant)
    if not 0 <= args.depth < 64:
        print(f"suprem: perft depth must be 0..63, not {args.depth}", file=sys.stderr)
        return 2
    with _open_machine(args) as hw:
        if args.divide and args.depth >= 1:
            leaves = cycles = 0
            for move in sorted(board.legal_moves, key=lambda m: m.uci()):
                child = board.copy()
                child.push(move)
                hw.set_position(child)
                count, spent = hw.perft(args.depth - 1)
                print(f"{move.uci()}: {count}")
                leaves, cycles = leaves + count, cycles + spent
        else:
            hw.set_position(board)
            leaves, cycles = hw.perft(args.depth)
    per_leaf = f" ({cycles / leaves:.1f} cycles per leaf)" if leaves else ""
    print(f"perft {args.depth}: {leaves} leaves in {cycles} cycles{per_leaf}")
    return 0


def _limits(args):
    from host.driver import Limits
    chosen = [name for name in ("depth", "nodes", "movetime") if getattr(args, name) is not None]
    if len(chosen) > 1:
        raise ValueError(f"give one of --depth, --nodes, --movetime, not {' and '.join(chosen)}")
    if args.depth is not None and not 1 <= args.depth <= 63:
        raise ValueError(f"the depth must be 1..63, not {args.depth}")
    for name in ("nodes", "movetime"):
        if getattr(args, name) is not None and getattr(args, name) <= 0:
            raise ValueError(f"--{name} must be positive")
    if not chosen:
        return Limits(depth=5)
    return Limits(depth=args.depth, nodes=args.nodes, movetime_ms=args.movetime)


def cmd_analyze(args):
    """Iterative deepening on the board: a line per finished iteration, then the best move."""
    from host.driver import SearchDriver, score_text
    game = _board_from_arg(args.fen, args.variant)
    limits = _limits(args)
    with _open_machine(args) as hw:
        driver = SearchDriver(hw, knowledge=args.knowledge)
        driver.features = args.features
        driver.chunker = args.chunker
        driver.kpk = args.kpk
        if args.root is not None:
            driver.root_loop = args.root == "host"
        allocation = driver.oracle.allocate(game)
        print(f"position {game.fen()}")
        if args.explain:
            from host.analysis import analyse
            if args.variant != "antichess":         # the root analysis is of chess
                for line in analyse(game).explain():
                    print(f"analysis: {line}")
            for line in allocation.explain():
                print(f"oracle: {line}")
        else:
            print(f"oracle: {allocation.explain()[0]}")
        if not any(True for _ in game.legal_moves):
            if args.variant == "antichess":
                print("no legal move: the side to move has won")
            else:
                print("no legal move: " + ("checkmate" if game.is_check() else "stalemate"))
            return 0

        def show(it):
            if it.source:
                print(it.source)
            print(f"depth {it.depth:2} score {score_text(it.score):9} nodes {it.total_nodes:9} "
                  f"nps {it.nps():9} time {it.hardware_ms:8.1f} ms (wall {it.wall_ms / 1000:.1f} s) "
                  f"pv {game.variation_san(it.pv) if it.pv else ''}{'' if it.complete else ' (stopped)'}",
                  flush=True)

        iterations = driver.analyse(game, limits, on_iteration=show, new_table=True)
    best = iterations[-1].pv[0] if iterations and iterations[-1].pv else None
    print(f"bestmove {best.uci() if best else '(none)'}")
    return 0


def cmd_eval(args):
    """The board's static evaluation of a position under the Oracle's tables, against the model."""
    from host.oracle import Oracle
    from models.evaluator import evaluated
    game = _board_from_arg(args.fen)
    with _open_machine(args) as hw:
        allocation = Oracle(hw.eval_params, args.knowledge).allocate(game)
        store = allocation.store
        hw.set_position(game)
        hw.download(store)
        on_board = hw.evaluate()
    model = evaluated(store, game)
    print(f"position {game.fen()}")
    for line in allocation.explain():
        print(f"oracle: {line}")
    first_order = ", ".join(name for name, _ in allocation.chosen if name not in allocation.recognizers)
    print(f"  first-order ({first_order}): {model.first_order}")
    for k, pattern in enumerate(allocation.recognizers):
        if pattern:
            print(f"  {f'recognizer {k}: {pattern}':40} {model.recognizer_output(k):6}")
    print(f"static value, White's view: board {on_board}, model {model.value()}")
    if on_board != model.value():
        print("suprem: the board and the bit-exact model DISAGREE", file=sys.stderr)
        return 1
    return 0


def cmd_uci(args):
    """The UCI engine on stdin/stdout."""
    from host.uci import UciEngine
    from sim.board_sim import MachineOpener
    opener = MachineOpener(args.port, baud=args.baud, legal_moves=args.generator == "legal")
    try:
        UciEngine(opener).run()
    finally:
        opener.close()
    return 0


def cmd_play(args):
    """A game against the machine in the terminal."""
    from host.driver import Limits, SearchDriver, score_text
    game = _board_from_arg(args.fen, args.variant)
    human = chess.WHITE if args.color == "white" else chess.BLACK
    with _open_machine(args) as hw:
        driver = SearchDriver(hw)
        while not game.is_game_over(claim_draw=True):
            print()
            print(game.unicode(orientation=human) if args.unicode else game)
            if game.turn == human:
                text = input(f"your move ({'white' if human else 'black'}; SAN or UCI, 'quit'): ").strip()
                if text in ("quit", "exit"):
                    return 0
                try:
                    game.push(game.parse_san(text) if not _looks_uci(text) else _uci_move(game, text))
                except ValueError as error:
                    print(f"not a legal move here: {text} ({error})")
                continue
            iterations = driver.analyse(game, Limits(movetime_ms=args.movetime))
            move = iterations[-1].pv[0]
            print(f"suprem plays {game.san(move)} (depth {iterations[-1].depth}, "
                  f"score {score_text(iterations[-1].score)}, {iterations[-1].total_nodes} nodes)")
            game.push(move)
        print(game)
        print(f"game over: {game.result(claim_draw=True)}")
    return 0


def _looks_uci(text):
    return len(text) in (4, 5) and text[0] in "abcdefgh" and text[1] in "12345678" and text[2] in "abcdefgh"


def _uci_move(game, text):
    move = chess.Move.from_uci(text)
    if move not in game.legal_moves:
        raise ValueError("illegal")
    return move


def cmd_sim(args):
    """Start a simulated board and print its serial device; runs until interrupted."""
    import time

    from hdl.eval import tables
    from sim.board_sim import SimulatedBoard
    start = time.monotonic()
    params = tables.CONFIGS[args.config or ("small" if args.station else "full")]
    with SimulatedBoard(params, station=args.station, legal_moves=args.generator == "legal") as board:
        what = "evaluation station" if args.station else "board"
        print(f"simulated {what} on {board.device} (started in {time.monotonic() - start:.2f} s; "
              f"Ctrl-C stops it)", flush=True)
        try:
            while board.running:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


def cmd_cache(args):
    """What the build cache holds, kind by kind; with ``--prune DAYS`` remove what was not used
    for that many days."""
    from sim.cache import KINDS, WORK, entries, prune
    from sim.verilator import cache_dir
    if args.prune is not None:
        try:
            removed = prune(args.prune)
        except ValueError as error:
            print(f"suprem: --prune: {error}", file=sys.stderr)
            return 2
        print(f"removed {len(removed)} entries not used for {args.prune:g} days: "
              f"{sum(e.size for e in removed) / 1e6:,.1f} MB")
    found = entries()
    print(f"{cache_dir()}: {len(found)} entries, {sum(e.size for e in found) / 1e6:,.1f} MB")
    for kind in (*KINDS, WORK):
        mine = [e for e in found if e.kind == kind]
        if mine:
            print(f"  {kind:8} {len(mine):4} entries {sum(e.size for e in mine) / 1e6:9,.1f} MB, "
                  f"the oldest last used {max(e.age_days() for e in mine):.1f} days ago"
                  f"  ({KINDS.get(kind, 'work directories of builds whose process died')})")
    return 0


def cmd_search(args):
    """Iterative deepening with the hardware search on the Verilated machine: a line per depth."""
    from hdl.eval.tables import FULL
    from host.driver import score_text
    from sim.machine_sim import VerilatedMachine
    from sim.search_check import table_store
    board = _board_from_arg(args.fen)
    if not 1 <= args.depth < 64:
        print(f"suprem: search depth must be 1..63, not {args.depth}", file=sys.stderr)
        return 2
    with VerilatedMachine(FULL) as hw:
        hw.write_store(table_store(FULL, args.tables))
        hw.set_position(board)
        hw.clear_hash()
        print(f"position {board.fen()}")
        best = None
        for depth in range(1, args.depth + 1):
            start = hw.now()
            result = hw.search(depth, features=args.features)
            end = hw.now()
            line = hw.principal_variation(board)
            best = result.move
            print(f"depth {depth} score {score_text(result.score)} nodes {result.nodes} cycles {result.cycles} "
                  f"({result.cycles / result.nodes:.1f} per node) pv {' '.join(m.uci() for m in line)} "
                  f"(simulation cycles {start}..{end})", flush=True)
    print(f"bestmove {best.uci() if best else '(none)'}")
    return 0


def _verify(args, checks, summary=None):
    """Print the mismatches of ``checks`` (``sim.verification``'s ``(record, differences)`` per
    position of ``args.file``), ``summary()``'s line, then ``N positions, M mismatches``."""
    from sim.verification import checked_positions
    try:
        records, rejected = checked_positions(args.file, args.limit, variant=getattr(args, "variant", "chess"))
    except OSError as error:
        print(f"suprem: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    mismatches = shown = 0
    for record, diffs in checks(records):
        if diffs:
            mismatches += 1
            if shown < args.show:
                shown += 1
                print(f"mismatch at line {record.line}: FEN {record.board.fen()}")
                for line in diffs:
                    print("  " + line)
    if rejected:
        print(f"{rejected} lines not checked (malformed or impossible positions)")
    if summary is not None:
        print(summary())
    print(f"{len(records)} positions, {mismatches} mismatches")
    return 1 if mismatches else 0


def cmd_verify_movegen(args):
    from hdl.movegen.layouts import VictimOrder
    from sim.verification import movegen_checks
    order = VictimOrder.LEAST_VALUABLE if args.victims == "least-valuable" else VictimOrder.MOST_VALUABLE
    return _verify(args, lambda records: movegen_checks(records, order, legal=args.generator == "legal"))


EVALUATOR_CONFIGS = ("full", "hitech", "small")     # hdl.eval.tables.CONFIGS, without importing Amaranth
TABLE_SETS = ("material", "patterns", "random", "antichess")     # sim.search_check.TABLE_SETS


def cmd_verify_eval(args):
    from hdl.eval.tables import CONFIGS
    from sim.verification import eval_checks
    return _verify(args, lambda records: eval_checks(records, CONFIGS[args.config], seed=args.seed,
                                                     plies=args.plies, tables_every=args.tables_every))


def cmd_verify_search(args):
    from hdl.eval.tables import CONFIGS
    from hdl.movegen.layouts import VictimOrder
    from sim.machine_sim import VerilatedMachine
    from sim.search_check import table_store
    from sim.verification import SearchVerification
    if not 0 <= args.depth < 64:
        print(f"suprem: search depth must be 0..63, not {args.depth}", file=sys.stderr)
        return 2
    params = CONFIGS[args.config]
    store = table_store(params, args.tables, seed=args.seed)
    if args.port is None:
        machine = VerilatedMachine(params, legal_moves=args.generator == "legal")
    else:                                       # over the link: a board, or "sim"
        args.port = None if args.port == "sim" else args.port
        machine = _open_machine(args, params)
    with machine as hw:
        order = VictimOrder.LEAST_VALUABLE if args.victims == "least-valuable" else VictimOrder.MOST_VALUABLE
        verification = SearchVerification(hw, params, store, args.depth, jobs=args.jobs, features=args.features,
                                          victim_order=order)
        return _verify(args, verification.checks, verification.summary)


def cmd_chunker(args):
    """Solve a position of CHUNKER's domain, or check the exact database and the schemas."""
    import time

    from host.chunker import place, unmirror
    from host.chunker.database import open_database
    from host.chunker.domain import PAPER, is_win, plies
    from host.chunker.search import solve
    if args.check is not None:
        from host.chunker.check import check
        _prepare_chunker(None, out=sys.stderr, quiet_when_built=True)
        return 0 if check(args.check, args.seed, progress=lambda line: print(line, file=sys.stderr, flush=True)) else 1
    if args.prepare:
        return _prepare_chunker(args.levels)
    if args.fen is None:
        raise ValueError("give a FEN, --check N or --prepare")
    board = _board_from_arg(args.fen)
    inside, mirrored = place(board)
    _prepare_chunker(args.levels, out=sys.stderr, quiet_when_built=True)    # their builds said, not silent
    start = time.monotonic()
    solution = solve(inside, PAPER, max_depth=args.depth, max_nodes=args.nodes, levels=args.levels)
    seconds = time.monotonic() - start
    side = chess.COLOR_NAMES[board.turn].capitalize()
    other = chess.COLOR_NAMES[not board.turn].capitalize()
    print(f"domain: {PAPER.name()}{' (mirrored left to right)' if mirrored else ''}")
    if solution.value is None:
        print(f"result: unknown — no proof within {solution.depth} plies and {solution.total:,} nodes "
              f"({seconds:.1f} s)")
    else:
        verdict = {1: f"{side} wins", -1: f"{other} wins", 0: "draw"}[solution.value]
        print(f"result: {verdict} — proved at depth {solution.depth} in {solution.total:,} nodes ({seconds:.1f} s)")
        line = [unmirror(move) if mirrored else move for move in solution.line]
        if solution.value == 0:
            print("line: none — a draw is proved over every move, each line ending in a decided node")
        elif line:
            print(f"line: {board.variation_san(line)}  (its last node decided by: {solution.ending})")
        else:
            print(f"decided at the root by: {solution.ending}")
    print("nodes: " + ", ".join(f"{kind} {count:,}" for kind, count in sorted(solution.nodes.items())))
    if args.database:
        db = open_database(PAPER)
        value = db.value(inside)
        exact = "draw" if value == 0 else f"{side if is_win(value) else other} wins in {plies(value)} plies"
        if value:
            exact_line = [unmirror(move) if mirrored else move for move in db.line(inside)]
            exact += f", at best {board.variation_san(exact_line)}"
        agrees = solution.value is None or solution.value == (0 if value == 0 else 1 if is_win(value) else -1)
        print(f"exact database: {exact} — {'agrees' if agrees else 'DISAGREES'}")
        if not agrees:
            return 1
    return 0


def _prepare_chunker(levels, out=None, quiet_when_built=False):
    """Build every library CHUNKER's schemas of ``levels`` (all: None) may ask on the paper's
    domain, the databases and then level 9's tempo libraries, saying each database on ``out``
    (standard output by default; nothing at all with ``quiet_when_built`` when none is missing)."""
    import time

    out = out or sys.stdout
    from host.chunker.chunks import tempo_library
    from host.chunker.domain import PAPER
    from host.chunker.schemas import libraries, prepare, tempo_libraries, unbuilt, unmade_tempo_libraries
    wanted, missing = libraries(PAPER, levels), unbuilt(PAPER, levels)
    tempo = unmade_tempo_libraries(PAPER, levels)
    if quiet_when_built and not missing and not tempo:
        return 0
    named = "every level" if levels is None else "levels " + ",".join(map(str, levels)) if levels else "no level"
    print(f"CHUNKER's libraries for {named}: {len(wanted)}, {len(wanted) - len(missing)} built already "
          "(each built once, then cached)", file=out, flush=True)

    def told(count, of, domain, report):
        print(f"  {count}/{of} {domain.name()}: {domain.size:,} positions, {report.stored_bytes:,} bytes "
              f"in {report.total_seconds:.0f} s", file=out, flush=True)

    start = time.monotonic()
    reports = prepare(PAPER, levels, told)
    print(f"built {len(reports)} ({sum(report.stored_bytes for report in reports):,} bytes) in "
          f"{time.monotonic() - start:.0f} s", file=out, flush=True)
    if tempo:
        print(f"level 9's tempo libraries: {len(tempo_libraries(PAPER))}, making the {len(tempo)} not made",
              file=out, flush=True)
        start = time.monotonic()
        for colour, files, rules in tempo:
            tempo_library(colour, files, **rules)
        print(f"made {len(tempo)} in {time.monotonic() - start:.0f} s", file=out, flush=True)
    return 0


def _levels(text):
    """CHUNKER's schema levels, comma-separated (empty: none)."""
    from host.chunker.schemas import SCHEMAS
    try:
        levels = [int(level) for level in text.split(",") if level.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: levels are whole numbers, comma-separated") from None
    unknown = [level for level in levels if level not in SCHEMAS]
    if unknown:
        raise argparse.ArgumentTypeError(f"no level {unknown[0]}: the levels are {min(SCHEMAS)} to {max(SCHEMAS)}")
    return levels


def cmd_build(args):
    """Yosys and nextpnr for a board: bitstream and report."""
    from fpga.build import BuildFailed, build_board
    try:
        report = build_board(args.board, clock_mhz=args.clock, config=args.config, machine=args.machine,
                             generator=args.generator, build_dir=args.build_dir, router=args.router,
                             placer=args.placer)
    except BuildFailed as error:
        print(f"suprem: {error}", file=sys.stderr)
        return 1
    print(report.text())
    if not report.timing_met():
        print(f"suprem: timing NOT met at {report.clock_mhz:g} MHz: the bitstream is unreliable "
              f"(build with a lower --clock)", file=sys.stderr)
        return 1
    return 0


def cmd_program(args):
    """Load the built bitstream into the board."""
    from fpga.build import BuildFailed, program_board
    try:
        print(program_board(args.board, args.bitstream))
    except BuildFailed as error:
        print(f"suprem: {error}", file=sys.stderr)
        return 1
    return 0


VARIANTS = ("chess", "antichess")      # models.position.VARIANTS, without importing python-chess's variants


def _variant_option(parser, victims=False):
    parser.add_argument("--variant", choices=VARIANTS, default="chess",
                        help="the rules: chess (default) or antichess (captures compulsory, losing all wins)")
    if victims:
        parser.add_argument("--victims", choices=("most-valuable", "least-valuable"), default="most-valuable",
                            help="the generator's capture order: most valuable victim first (default) or least")


def _board_options(parser):
    parser.add_argument("--port", help="the board's serial device (default: start a simulated board)")
    parser.add_argument("--baud", type=int, default=1_000_000, help="the link's rate (1000000)")
    _generator_option(parser, "the simulated board's move generator")


GENERATORS = ("legal", "lean")      # fpga.GENERATORS, without importing Amaranth
BOARDS_OWN = "the board's own: legal on the ULX3S-85F"


def _generator_option(parser, what, default="legal"):
    parser.add_argument("--generator", choices=GENERATORS, default=default,
                        help=f"{what}: legal (legal moves; perft counts its last ply unmade) or lean (the "
                             f"smaller build: pins left to the search, which makes and tests a pinned piece's "
                             f"moves; perft counts the rest unmade; a search takes the same nodes) "
                             f"({default or BOARDS_OWN})")


def _trace_options(parser):
    parser.add_argument("--trace", metavar="FILE",
                        help="write the Verilated hardware's waveform here (FST if FILE ends in .fst, else VCD; "
                             "a separate cached tracing build, for GTKWave or Surfer)")
    parser.add_argument("--trace-from", type=int, default=0, metavar="CYCLE",
                        help="the first clock cycle traced, counted from the simulation's reset (0)")
    parser.add_argument("--trace-cycles", type=int, metavar="N", help="how many cycles to trace (all)")


_TRACE_SETTINGS = ("SUPREM_TRACE", "SUPREM_TRACE_FROM", "SUPREM_TRACE_CYCLES")


def _start_trace(args):
    """Pass ``--trace`` and its window to the Verilated harnesses this command starts (through
    the environment, which also selects their tracing build)."""
    if getattr(args, "trace", None) is None:
        return
    if getattr(args, "port", None) is not None:
        raise ValueError("--trace records the simulated hardware: not with --port")
    if args.trace_from < 0 or (args.trace_cycles is not None and args.trace_cycles <= 0):
        raise ValueError("--trace-from must be >= 0 and --trace-cycles > 0")
    os.environ["SUPREM_TRACE"] = os.path.abspath(args.trace)
    os.environ["SUPREM_TRACE_FROM"] = str(args.trace_from)
    os.environ["SUPREM_TRACE_CYCLES"] = "" if args.trace_cycles is None else str(args.trace_cycles)
    print(f"suprem: tracing to {args.trace}", file=sys.stderr, flush=True)


def _features(text):
    """A ``--features`` argument: ``all``, ``none``, names, or ``-name`` to leave one out."""
    try:
        return SearchFeatures.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_number(text):
    """A whole number above 0 (an argparse type: the command line's, and the benchmarks')."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value} must be above 0")
    return value


KNOWLEDGE_HELP = ("the Oracle's knowledge: root (patterns chosen for the root by its analysis, most relevant "
                  "first while they fit, weighed against the fitted table; the default), material (material and "
                  "piece-square values fitted to Stockfish, blended by the phase) or phase (two fixed lists by "
                  "the game's phase)")
FEATURES_HELP = (f"the search's features: all (default), none (plain alpha-beta with its check and recapture "
                 f"extensions), names ({','.join(SearchFeatures.names())}: none and those), -name (all but that "
                 "one: write --features=-lmr), +name, or none,-name")


def build_parser():
    parser = argparse.ArgumentParser(prog="suprem", description="The SUPREM chess machine.")
    sub = parser.add_subparsers(dest="command", required=True)
    moves = sub.add_parser("moves", help="the Verilated generator's ordered moves for a position")
    moves.add_argument("fen", help="a FEN (quoted), or 'startpos'")
    moves.add_argument("--captures", action="store_true", help="capture-only mode")
    _variant_option(moves)
    _trace_options(moves)
    moves.set_defaults(func=cmd_moves)
    perft = sub.add_parser("perft", help="count the legal leaves DEPTH plies down, by hardware perft")
    perft.add_argument("fen", help="a FEN (quoted), or 'startpos'")
    perft.add_argument("depth", type=int)
    perft.add_argument("--divide", action="store_true", help="the count after each legal root move")
    _variant_option(perft)
    _board_options(perft)
    _trace_options(perft)
    perft.set_defaults(func=cmd_perft)
    analyze = sub.add_parser("analyze", help="analyse a position on the board: iterative deepening, "
                                             "a line per depth, the best move")
    analyze.add_argument("fen", help="a FEN (quoted), or 'startpos'")
    _variant_option(analyze)
    analyze.add_argument("--depth", type=int, help="the last iteration's depth (default 5)")
    analyze.add_argument("--features", type=_features, default="all", help=FEATURES_HELP)
    analyze.add_argument("--root", choices=("board", "host"),
                         help="who searches the root: the board, or the host's root loop (each root move a job, "
                              "ordered by shallow searches and subtree sizes); default: the driver's")
    analyze.add_argument("--knowledge", choices=KNOWLEDGE, default=KNOWLEDGE[0], help=KNOWLEDGE_HELP)
    analyze.add_argument("--no-chunker", dest="chunker", action="store_false",
                         help="search a position of CHUNKER's domain on the board too (default: CHUNKER's proof "
                              "of a win answers it)")
    analyze.add_argument("--no-kpk", dest="kpk", action="store_false",
                         help="search king and pawn against king on the board alone (default: its database wins "
                              "it in the fewest plies, or keeps the draw)")
    analyze.add_argument("--explain", action="store_true",
                         help="print the Oracle's root analysis and which pattern went into which recognizer")
    analyze.add_argument("--nodes", type=int, help="stop after about N nodes")
    analyze.add_argument("--movetime", type=float, help="hardware milliseconds (cycles / Fmax)")
    _board_options(analyze)
    _trace_options(analyze)
    analyze.set_defaults(func=cmd_analyze)
    evaluate = sub.add_parser("eval", help="the board's static evaluation of a position under the Oracle's "
                                           "tables, term by term from the bit-exact model")
    evaluate.add_argument("fen", help="a FEN (quoted), or 'startpos'")
    evaluate.add_argument("--knowledge", choices=KNOWLEDGE, default=KNOWLEDGE[0], help=KNOWLEDGE_HELP)
    _board_options(evaluate)
    evaluate.set_defaults(func=cmd_eval)
    uci = sub.add_parser("uci", help="run as a UCI engine on stdin/stdout")
    _board_options(uci)
    uci.set_defaults(func=cmd_uci)
    play = sub.add_parser("play", help="play a game against the machine in the terminal")
    play.add_argument("--color", choices=("white", "black"), default="white", help="your colour (white)")
    play.add_argument("--movetime", type=float, default=200, help="the machine's hardware ms per move (200)")
    play.add_argument("--fen", default="startpos", help="the starting position (startpos)")
    play.add_argument("--unicode", action="store_true", help="draw the board with chess symbols")
    _variant_option(play)
    _board_options(play)
    play.set_defaults(func=cmd_play)
    sim = sub.add_parser("sim", help="start a simulated board and print its serial device")
    sim.add_argument("--station", action="store_true",
                     help="the evaluation station (the iCEBreaker's build: the evaluator and the position alone)")
    sim.add_argument("--config", choices=EVALUATOR_CONFIGS,
                     help="the evaluator's configuration (full; small for the station)")
    _generator_option(sim, "the move generator")
    _trace_options(sim)
    sim.set_defaults(func=cmd_sim)
    cache = sub.add_parser("cache", help="what the build cache holds (Verilog, Verilated builds, CHUNKER's "
                                         "databases); --prune removes what was not used lately")
    cache.add_argument("--prune", type=float, metavar="DAYS",
                       help="remove the entries not used for DAYS days (builds in use are kept)")
    cache.set_defaults(func=cmd_cache)
    from fpga import BOARD_NAMES, MACHINES
    from fpga.build import PLACERS, ROUTERS
    build = sub.add_parser("build", help="build the machine for a board: bitstream and report")
    build.add_argument("--board", choices=BOARD_NAMES, required=True)
    build.add_argument("--clock", type=float, help="core clock in MHz (the board's default)")
    build.add_argument("--config", choices=EVALUATOR_CONFIGS,
                       help="the evaluator's configuration (the board's own: full on the ULX3S-85F, "
                            "small on the iCEBreaker)")
    build.add_argument("--machine", choices=MACHINES,
                       help="the searching machine, or the evaluation station (the evaluator and the position "
                            "alone); the board's own: search on the ULX3S-85F, station on the iCEBreaker")
    _generator_option(build, "the searching machine's move generator", default=None)
    build.add_argument("--build-dir", help="where the build goes (build/BOARD)")
    build.add_argument("--router", choices=ROUTERS,
                       help="nextpnr's router (the board's: router2 on the ULX3S-85F, where router1 does not "
                            "finish; nextpnr's router1 on the iCEBreaker)")
    build.add_argument("--placer", choices=PLACERS,
                       help="nextpnr's placer (the board's: static on the ULX3S-85F, which places this design "
                            "with less wiring; nextpnr's heap on the iCEBreaker)")
    build.set_defaults(func=cmd_build)
    program = sub.add_parser("program", help="load the built bitstream into the board")
    program.add_argument("--board", choices=BOARD_NAMES, required=True)
    program.add_argument("--bitstream", help="the bitstream (build/BOARD/suprem.bit)")
    program.set_defaults(func=cmd_program)
    search = sub.add_parser("search", help="search a position with the hardware alpha-beta search, "
                                           "iterative deepening to DEPTH")
    search.add_argument("fen", help="a FEN (quoted), or 'startpos'")
    search.add_argument("--depth", type=int, default=4, help="the last iteration's depth (4)")
    search.add_argument("--features", type=_features, default="all", help=FEATURES_HELP)
    search.add_argument("--tables", choices=TABLE_SETS[:2], default="patterns",
                        help="material: material + piece-square; patterns: with recognizers (default)")
    _trace_options(search)
    search.set_defaults(func=cmd_search)
    chunker = sub.add_parser("chunker", help="solve a king-and-pawns ending of CHUNKER's domain (each side's "
                             "pawns on three files of its own: a-c against f-h) by search and chunk schemas")
    chunker.add_argument("fen", nargs="?", help="a FEN (quoted)")
    chunker.add_argument("--depth", type=positive_number, default=80, help="the deepest iteration, in plies (80)")
    chunker.add_argument("--nodes", type=positive_number, default=2_000_000,
                         help="the node budget: nodes searched (those a table hit or a promotion decides come on "
                              "top in the count printed; 2000000)")
    chunker.add_argument("--levels", type=_levels,
                         help="the schema levels to use (or --prepare), e.g. 1,2,3 (all); empty for none")
    chunker.add_argument("--no-database", dest="database", action="store_false",
                         help="do not compare with the exact database (built on first use, ~2 minutes)")
    chunker.add_argument("--check", type=positive_number, metavar="N",
                         help="instead: check the exact database and the schemas on N seeded random positions")
    chunker.add_argument("--seed", type=int, default=1, help="the seed of --check (1)")
    chunker.add_argument("--prepare", action="store_true",
                         help="instead: build the libraries of --levels (every level's), which the engine's "
                              "hand-off to CHUNKER (levels 1-6, 8 and 9) does not build in a game")
    chunker.set_defaults(func=cmd_chunker)
    verify = sub.add_parser("verify", help="check a hardware unit against its model and python-chess")
    units = verify.add_subparsers(dest="unit", required=True)
    movegen = units.add_parser("movegen", help="the move generator on every position of an EPD/FEN file")
    movegen.add_argument("file")
    _variant_option(movegen, victims=True)
    _generator_option(movegen, "the generator checked")
    movegen.add_argument("--limit", type=int, help="check at most N positions")
    movegen.add_argument("--show", type=int, default=5, help="details of the first N mismatches (5)")
    movegen.set_defaults(func=cmd_verify_movegen)
    evaluator = units.add_parser("eval", help="the evaluator with random tables on random make/unmake "
                                              "walks from every position of an EPD/FEN file")
    evaluator.add_argument("file")
    evaluator.add_argument("--limit", type=int, help="check at most N positions")
    evaluator.add_argument("--seed", type=int, default=1, help="seed of the tables and walks (1)")
    evaluator.add_argument("--plies", type=int, default=8, help="moves made (and unmade) per walk (8)")
    evaluator.add_argument("--tables-every", type=int, default=100, metavar="N",
                           help="download fresh random tables every N positions (100)")
    evaluator.add_argument("--config", choices=EVALUATOR_CONFIGS, default="full",
                           help="evaluator configuration (full: ULX3S-85F)")
    evaluator.add_argument("--show", type=int, default=5, help="details of the first N mismatches (5)")
    evaluator.set_defaults(func=cmd_verify_eval)
    search = units.add_parser("search", help="the hardware alpha-beta search against the reference search "
                                             "(value, best move, nodes, principal variation, the board and "
                                             "evaluator restored) on every position of an EPD/FEN file")
    search.add_argument("file")
    _variant_option(search, victims=True)
    _generator_option(search, "the Verilated machine's generator")
    search.add_argument("--depth", type=int, default=3, help="plies searched (3)")
    search.add_argument("--features", type=_features, default="all", help=FEATURES_HELP)
    search.add_argument("--limit", type=int, help="check at most N positions")
    search.add_argument("--tables", choices=TABLE_SETS, default="patterns",
                        help="material: material + piece-square; patterns: with recognizers (default); "
                             "random: random tables of every kind")
    search.add_argument("--seed", type=int, default=1, help="seed of the random tables (1)")
    search.add_argument("--config", choices=EVALUATOR_CONFIGS, default="full",
                        help="evaluator configuration (full: ULX3S-85F)")
    search.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes for the reference search (default: one per core; 0: in this process)")
    search.add_argument("--show", type=int, default=5, help="details of the first N mismatches (5)")
    search.add_argument("--port", help="search on the board behind this serial device, or 'sim' for a simulated "
                                       "board over the link (default: the Verilated machine driven directly)")
    search.add_argument("--baud", type=int, default=1_000_000, help="the link's rate (1000000)")
    search.set_defaults(func=cmd_verify_search)
    return parser


def main(argv=None):
    from host.link import LinkError
    args = build_parser().parse_args(argv)
    saved = {name: os.environ.get(name) for name in _TRACE_SETTINGS}
    try:
        _start_trace(args)
        return args.func(args)
    except ValueError as error:       # bad FEN, impossible position, bad limits
        print(f"suprem: {error}", file=sys.stderr)
        return 2
    except LinkError as error:        # no board, a board that stopped answering
        print(f"suprem: {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    finally:
        for name, value in saved.items():       # a tracing command leaves no trace behind
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


if __name__ == "__main__":
    sys.exit(main())
