"""Antichess on the machine: what following forced captures costs, and the capture order.

    python -m benchmarks.antichess [--positions N] [--depths 1,2,3,4] [--cap NODES] [--seed S]

N positions of seeded random antichess games (``benchmarks.search.search_positions``) are
searched by the reference search — the hardware's specification, equal to it node for node
(``tests/test_antichess.py``; ``python -m benchmarks.search --variant antichess`` runs the
hardware beside it) — with every search feature and the antichess table, at each depth:

* **the forced-capture bound**: with ``bounded`` (the default) a quiescence node forced to
  capture does not stand pat only below twice the root's depth; without it, never: the forced
  lines are followed to their end. A search that passes ``--cap`` nodes is cut there and
  counted at the cap (the total is then a lower bound);
* **the capture order**: the most valuable victim first (the host's choice) against the least
  valuable first (the antichess paper's), each with and without the bound.
"""

import argparse
import sys
import time
from dataclasses import replace

from hdl.eval.tables import FULL
from hdl.movegen.layouts import VictimOrder
from hdl.search.features import SearchFeatures
from models.search import ReferenceSearch
from sim.search_check import table_store

from .search import search_positions


class _Capped(Exception):
    pass


class _CappedSearch(ReferenceSearch):
    """The reference search, cut once it has entered ``cap`` nodes."""

    def __init__(self, params, store, cap):
        super().__init__(params, store)
        self.cap = cap

    def _node(self, *args, **kwargs):
        if self.nodes >= self.cap:
            raise _Capped
        return super()._node(*args, **kwargs)


def _total(search, boards, depth, features, order):
    """``(nodes, searches cut at the cap)`` over ``boards``."""
    nodes = capped = 0
    for board in boards:
        try:
            nodes += search.search(board, depth, features=features, victim_order=order).nodes
        except _Capped:
            nodes += search.cap
            capped += 1
    return nodes, capped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--depths", default="1,2,3,4")
    parser.add_argument("--cap", type=int, default=300_000, help="nodes at which a search is cut (300000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    depths = [int(d) for d in args.depths.split(",")]
    boards = search_positions(args.positions, args.seed, "antichess")
    search = _CappedSearch(FULL, table_store(FULL, "antichess"), args.cap)
    runs = [("bounded, most valuable first", SearchFeatures(), VictimOrder.MOST_VALUABLE),
            ("bounded, least valuable first", SearchFeatures(), VictimOrder.LEAST_VALUABLE),
            ("unbounded, most valuable first", replace(SearchFeatures(), bounded=False), VictimOrder.MOST_VALUABLE),
            ("unbounded, least valuable first", replace(SearchFeatures(), bounded=False), VictimOrder.LEAST_VALUABLE)]
    print(f"{len(boards)} random antichess positions (seed {args.seed}), every feature, the antichess table, "
          f"cut at {args.cap:,} nodes")
    for depth in depths:
        for name, features, order in runs:
            start = time.perf_counter()
            nodes, capped = _total(search, boards, depth, features, order)
            cut = f" ({capped} cut: at least)" if capped else ""
            print(f"depth {depth}, {name}: {nodes:,} nodes{cut} (wall {time.perf_counter() - start:.0f} s)",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
