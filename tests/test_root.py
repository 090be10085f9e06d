"""The host's root loop (host/root.py) over the reference search's jobs (a root restricted to
one move, the hardware's START root move; tests/test_search.py checks the hardware against
the reference there): its value is the whole root's, its order follows the first iteration's
scores and then the subtree sizes, and a stopped iteration answers only with moves searched
in full."""

import random

import chess
import pytest

from hdl.eval.tables import FULL
from hdl.search.features import SearchFeatures
from hdl.search.frame import INFINITY
from host.root import RootJob, RootLoop
from models.search import ReferenceSearch
from sim.search_check import root_jobs, table_store
from sim.testing import reference_positions


@pytest.fixture(scope="module")
def store():
    return table_store(FULL, "patterns")


def _jobs(search, board, features, clear_table=False, log=None):
    """One root move's job on the reference search (the table cleared before each job if
    ``clear_table``), logged as ``(move, alpha, beta, score)``."""
    run = root_jobs(search.search, board, clear_first=False, features=features)

    def job(move, depth, alpha, beta, keep_killers):
        if clear_table:
            search.table = None
        found = run(move, depth, alpha, beta, keep_killers)
        if log is not None:
            log.append((move, alpha, beta, found.score))
        return found
    return job


def _boards(count, seed):
    records = reference_positions("random-positions.epd")
    return [r.board for r in random.Random(seed).sample(records, count) if any(r.board.legal_moves)]


def test_the_loop_finds_the_whole_roots_value(store):
    """Plain alpha-beta (no feature) from an empty table at each job, depth 2: the loop's value
    (the first move with the full window, the rest with null windows and re-searches) equals
    the whole root's, and its move scores that value."""
    features = SearchFeatures.none()
    for board in _boards(12, seed=3):
        whole = ReferenceSearch(FULL, store).search(board, 2, features=features)
        search = ReferenceSearch(FULL, store)
        loop = RootLoop(list(board.legal_moves))
        loop.iterations = 1             # not the first iteration: null windows after the first move
        result = loop.iterate(_jobs(search, board, features, clear_table=True), 2)
        assert result.score == whole.score, board.fen()
        alone = search.search(board, 2, features=features, root_move=result.move)
        assert alone.score == whole.score, board.fen()


def test_the_order_follows_shallow_scores_then_subtree_sizes(store):
    """Depth 1 searches every move with the full window; depth 2 takes them by those scores,
    best first; depth 3 takes the best move first and the rest by their depth-2 subtrees."""
    features = SearchFeatures()
    for board in _boards(4, seed=8):
        search = ReferenceSearch(FULL, store)
        log = []
        loop = RootLoop(list(board.legal_moves))
        loop.iterate(_jobs(search, board, features, clear_table=True, log=log), 1)
        assert all((alpha, beta) == (-INFINITY, INFINITY) for _, alpha, beta, _ in log)
        scores = {move: score for move, _, _, score in log}
        order = loop.order()
        assert [scores[m] for m in order] == sorted(scores.values(), reverse=True), board.fen()
        second = loop.iterate(_jobs(search, board, features), 2)
        order = loop.order()
        assert order[0] == second.move
        sizes = [loop.subtree.get(m, 0) for m in order[1:]]
        assert sizes == sorted(sizes, reverse=True), board.fen()


def test_a_stopped_iteration_answers_with_moves_searched_in_full(store):
    """A limit that stops the third job: the answer is the best of the first two (searched in
    full), or none when the first job is the one stopped."""
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    search = ReferenceSearch(FULL, store)
    loop = RootLoop(list(board.legal_moves))
    loop.iterate(_jobs(search, board, SearchFeatures()), 1)
    order, run = loop.order(), _jobs(search, board, SearchFeatures())
    calls = []

    def stopping(after):
        def job(*args):
            calls.append(args[0])
            found = run(*args)
            return RootJob(found.score, found.nodes, 0, len(calls) > after)
        return job

    result = loop.iterate(stopping(2), 2)
    assert result.stopped and result.move in order[:2] and result.move == calls[0]
    calls.clear()
    result = loop.iterate(stopping(0), 3)
    assert result.stopped and result.move is None


def test_a_root_move_must_be_legal(store):
    search = ReferenceSearch(FULL, store)
    with pytest.raises(ValueError, match="must be legal"):
        search.search(chess.Board(), 2, root_move=chess.Move.from_uci("e2e5"))
    with pytest.raises(ValueError, match="depth at least 1"):
        search.search(chess.Board(), 0, root_move=chess.Move.from_uci("e2e4"))
