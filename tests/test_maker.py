"""The move maker in the Amaranth simulator: for every generated move of reference positions,
MAKE emits exactly ``move_halfmoves`` and UNMAKE its inverse, two a transfer (only the last
alone), nested two plies deep, with the bus holding transfers back at random and the command
port changing while a command plays."""

import random

import chess

from hdl.encoding import HalfmoveOp, HalfmovePair, Piece, pack, unpack
from hdl.search.maker import MakerOp, MoveMaker
from models.movegen import candidate_moves
from models.position import Halfmove, MachinePosition, inverse, move_halfmoves
from sim.testing import reference_positions, simulate


def _transfer(bits):
    """The halfmoves of a transfer (``HalfmovePair`` bits), in order."""
    fields = unpack(HalfmovePair, bits)
    parts = [fields["first"], fields["second"]] if fields["both"] else [fields["first"]]
    return [Halfmove(HalfmoveOp(part["op"]), part["square"], pack(Piece, **part["piece"])) for part in parts]


def _halfmoves(transfers, problems, what):
    """The halfmoves of ``transfers`` in order; a transfer of one before the last is a problem."""
    if any(len(transfer) != 2 for transfer in transfers[:-1]):
        problems.append(f"{what}: transfers of {[len(t) for t in transfers]} halfmoves")
    return [h for transfer in transfers for h in transfer]


def _boards():
    boards = [r.board for r in reference_positions("perft-standard.epd")]
    boards += [r.board for r in reference_positions("special-positions.epd", limit=40)]
    boards.append(chess.Board("n1r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1"))     # promotions, capturing or not
    return boards


def test_make_and_unmake_emit_the_canonical_halfmoves():
    dut = MoveMaker()
    rng = random.Random(2)
    problems = []
    checked = {"moves": 0, "irreversible": 0, "castle": 0, "en_passant": 0, "promotion": 0}

    async def command(ctx, op, ply, move=None):
        while not ctx.get(dut.search.command.ready):
            await ctx.tick()
        ctx.set(dut.search.command.valid, 1)
        ctx.set(dut.search.command.payload.op, op)
        ctx.set(dut.search.command.payload.ply, ply)
        if move is not None:
            ctx.set(dut.search.command.payload.move.as_value(), move.word)
            ctx.set(dut.search.command.payload.piece.as_value(), move.piece)
            ctx.set(dut.search.command.payload.victim.as_value(), move.victim)
        ctx.set(dut.halfmove.ready, 0)
        upcoming = ctx.get(dut.upcoming.as_value())     # the first transfer, a cycle ahead
        await ctx.tick()
        # The port goes on to offer something else while the command plays (a controller
        # presents its next command early): the maker must not look at it.
        ctx.set(dut.search.command.valid, 0)
        ctx.set(dut.search.command.payload.ply, rng.randrange(64))
        ctx.set(dut.search.command.payload.move.as_value(), rng.getrandbits(19))
        ctx.set(dut.search.command.payload.piece.as_value(), rng.getrandbits(4))
        out = []
        while True:
            ready = rng.random() < 0.7
            ctx.set(dut.halfmove.ready, ready)
            valid, payload = ctx.get(dut.halfmove.valid), ctx.get(dut.halfmove.payload.as_value())
            if valid and payload != upcoming:
                problems.append(f"{op.name} at ply {ply}: transfer {payload:#x}, announced {upcoming:#x}")
            if valid and ready:
                out.append(_transfer(payload))
            elif ctx.get(dut.search.idle):
                return _halfmoves(out, problems, f"{op.name} at ply {ply}")
            upcoming = ctx.get(dut.upcoming.as_value())
            await ctx.tick()

    async def bench(ctx):
        for board in _boards():
            position = MachinePosition.from_board(board)
            side = 0 if board.turn else 1
            moves = candidate_moves(position, side)
            special = [m for m in moves if m.castle or m.en_passant or m.promotion]
            for move in special + rng.sample(moves, min(10, len(moves))):
                chess_move = chess.Move.from_uci(move.uci)
                want = move_halfmoves(board, chess_move)
                ctx.set(dut.markers, position.markers)
                got = await command(ctx, MakerOp.MAKE, 3, move)
                checked["moves"] += 1
                checked["castle"] += move.castle
                checked["en_passant"] += move.en_passant
                checked["promotion"] += bool(move.promotion)
                if got != want:
                    problems.append(f"{board.fen()} {move.uci}: made {[str(h) for h in got]}, "
                                    f"want {[str(h) for h in want]}")
                    continue
                irreversible = board.is_zeroing(chess_move) or any(h.square in (0, 7, 56, 63) and h.piece == 7
                                                                   and h.op == HalfmoveOp.REMOVE for h in want)
                checked["irreversible"] += irreversible
                if ctx.get(dut.search.irreversible) != irreversible:
                    problems.append(f"{board.fen()} {move.uci}: irreversible {ctx.get(dut.search.irreversible)}")
                # one ply deeper, then back out of both
                inner = None
                board.push(chess_move)
                position.apply_all(want)
                replies = candidate_moves(position, side ^ 1)
                if replies:
                    reply = rng.choice(replies)
                    inner = move_halfmoves(board, chess.Move.from_uci(reply.uci))
                    ctx.set(dut.markers, position.markers)
                    if await command(ctx, MakerOp.MAKE, 4, reply) != inner:
                        problems.append(f"{board.fen()} {reply.uci}: nested make differs")
                    ctx.set(dut.markers, 0)         # UNMAKE must not need the markers
                    if await command(ctx, MakerOp.UNMAKE, 4) != inverse(inner):
                        problems.append(f"{board.fen()} {reply.uci}: nested unmake differs")
                board.pop()
                position = MachinePosition.from_board(board)
                if await command(ctx, MakerOp.UNMAKE, 3) != inverse(want):
                    problems.append(f"{board.fen()} {move.uci}: unmake differs")

    simulate(dut, bench)
    assert not problems, "\n".join(problems[:8])
    assert checked["moves"] > 400 and min(checked.values()) >= 5, checked


def test_the_null_move_passes():
    """A MAKE without a piece (the search's null move) emits ``move_halfmoves`` of
    ``chess.Move.null()`` — the en-passant marker lost, if there is one, nothing else — is
    irreversible, and UNMAKE puts the marker back; castling markers stay."""
    from types import SimpleNamespace
    dut = MoveMaker()
    passing = SimpleNamespace(word=0, piece=0, victim=0)
    boards = [b for b in _boards() if b.ep_square is not None][:6] + _boards()[:6]
    problems, with_marker = [], 0

    async def bench(ctx):
        nonlocal with_marker
        for board in boards:
            position = MachinePosition.from_board(board)
            want = move_halfmoves(board, chess.Move.null())
            with_marker += bool(want)
            ctx.set(dut.markers, position.markers)
            ctx.set(dut.search.command.valid, 1)
            ctx.set(dut.search.command.payload.op, MakerOp.MAKE)
            ctx.set(dut.search.command.payload.ply, 5)
            ctx.set(dut.search.command.payload.move.as_value(), passing.word)
            ctx.set(dut.search.command.payload.piece.as_value(), passing.piece)
            ctx.set(dut.search.command.payload.victim.as_value(), passing.victim)
            made = await _collect(ctx, dut)
            if made != want or not ctx.get(dut.search.irreversible):
                problems.append(f"{board.fen()}: null move made {[str(h) for h in made]}, "
                                f"want {[str(h) for h in want]}")
            ctx.set(dut.search.command.valid, 1)
            ctx.set(dut.search.command.payload.op, MakerOp.UNMAKE)
            if await _collect(ctx, dut) != inverse(want):
                problems.append(f"{board.fen()}: null move unmade wrong")

    simulate(dut, bench)
    assert not problems, "\n".join(problems)
    assert with_marker >= 3


async def _collect(ctx, dut):
    """Offer the command set on the port until taken, then the halfmoves it emits."""
    while not ctx.get(dut.search.command.ready):
        await ctx.tick()
    await ctx.tick()
    ctx.set(dut.search.command.valid, 0)
    ctx.set(dut.halfmove.ready, 1)
    out = []
    while True:
        if ctx.get(dut.halfmove.valid):
            out.append(_transfer(ctx.get(dut.halfmove.payload.as_value())))
        elif ctx.get(dut.search.idle):
            problems = []
            halfmoves = _halfmoves(out, problems, "the command")
            assert not problems, problems
            return halfmoves
        await ctx.tick()


def test_unmakes_follow_each_other_a_cycle_apart():
    """Returns from several plies: an UNMAKE offered as the last transfer of the one before it
    leaves is taken in that cycle, so the bus carries the unmakes' transfers back to back —
    each its move's inverse, in order — and a MAKE is not taken so early."""
    dut = MoveMaker()
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    position = MachinePosition.from_board(board)
    made = []

    async def offer(ctx, op, ply, move=None):
        ctx.set(dut.search.command.valid, 1)
        ctx.set(dut.search.command.payload.op, op)
        ctx.set(dut.search.command.payload.ply, ply)
        if move is not None:
            ctx.set(dut.search.command.payload.move.as_value(), move.word)
            ctx.set(dut.search.command.payload.piece.as_value(), move.piece)
            ctx.set(dut.search.command.payload.victim.as_value(), move.victim)

    async def bench(ctx):
        ctx.set(dut.halfmove.ready, 1)
        for ply in range(3):            # a capture, then two more moves, each made alone
            moves = sorted(candidate_moves(position, 0 if board.turn else 1), key=lambda m: m.uci)
            move = next((m for m in moves if m.victim), moves[0]) if ply == 0 else moves[0]
            chess_move = chess.Move.from_uci(move.uci)
            ctx.set(dut.markers, position.markers)
            await offer(ctx, MakerOp.MAKE, ply, move)
            halfmoves = await _collect(ctx, dut)
            assert halfmoves == move_halfmoves(board, chess_move)
            position.apply_all(halfmoves)
            board.push(chess_move)
            made.append(halfmoves)
        # The three UNMAKEs, each offered from the cycle after the one before was taken.
        transfers, cycles = [], 0
        for ply in (2, 1, 0):
            await offer(ctx, MakerOp.UNMAKE, ply)
            while True:
                taken = ctx.get(dut.search.command.ready)
                if ctx.get(dut.halfmove.valid):
                    transfers.append(_transfer(ctx.get(dut.halfmove.payload.as_value())))
                await ctx.tick()
                cycles += 1
                if taken:
                    break
        ctx.set(dut.search.command.valid, 0)
        while not ctx.get(dut.search.idle):
            transfers.append(_transfer(ctx.get(dut.halfmove.payload.as_value())))
            await ctx.tick()
            cycles += 1
        want = [h for halfmoves in reversed(made) for h in inverse(halfmoves)]
        assert [h for t in transfers for h in t] == want
        # Back to back: the first UNMAKE's cycle, then one cycle per transfer.
        assert cycles == 1 + len(transfers), (cycles, [len(t) for t in transfers])
        # A MAKE offered as a transfer leaves waits for the maker to be idle.
        await offer(ctx, MakerOp.UNMAKE, 0)
        await ctx.tick()
        ctx.set(dut.markers, MachinePosition.from_board(chess.Board()).markers)
        await offer(ctx, MakerOp.MAKE, 0, candidate_moves(MachinePosition.from_board(chess.Board()), 0)[0])
        assert ctx.get(dut.halfmove.valid) and not ctx.get(dut.search.command.ready)

    simulate(dut, bench)
