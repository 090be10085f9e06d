"""``suprem chunker --check N``: the exact database and every schema, checked on seeded positions.

Draws ``N`` valid positions of the paper's domain at random (seeded), and for each: the
database's value against one ply of minimax over python-chess's moves and the database's own
values of the children (``database.verify``: with no disagreement anywhere the database is
exact), and every schema that classifies it against the database's result (a bound, level 5's
"this side does not lose", against the result it allows; a win's moves against the exact
distance). Prints the counts
(positions, each schema's classified count and disagreements, the database's disagreements) and
returns whether nothing disagreed.
"""

import collections
import random
import time

from .database import open_database, verify
from .domain import DRAW, INVALID, PAPER, is_win
from .schemas import DRAWN, SCHEMAS, Holds, agrees

__all__ = ["check"]


def check(count, seed=1, domain=PAPER, out=print):
    db = open_database(domain)
    rng = random.Random(seed)
    start = time.monotonic()
    classified, bounded, wrong, results = (collections.Counter() for _ in range(4))
    indices = []
    while len(indices) < count:
        index = rng.randrange(domain.size)
        value = db.value_at(index)
        if value == INVALID:
            continue
        indices.append(index)
        board = domain.board(index)
        truth = DRAWN if value == DRAW else board.turn if is_win(value) else not board.turn
        results["draw" if truth == DRAWN else "won by the side to move" if truth == board.turn else
                "lost by the side to move"] += 1
        for level, schema in SCHEMAS.items():
            result = schema(domain, board)
            if result is not None:
                classified[level] += 1
                bounded[level] += isinstance(result, Holds)
                wrong[level] += not agrees(result, value, board.turn)
    mismatches = verify(db, indices)
    out(f"{count:,} positions of {domain.name()} (seed {seed}): " +
        ", ".join(f"{n:,} {kind}" for kind, n in sorted(results.items())))
    out(f"exact database: {len(mismatches)} disagreements with one ply of python-chess minimax")
    for level, schema in SCHEMAS.items():
        bounds = f" ({bounded[level]:,} of them a bound: one side does not lose)" if bounded[level] else ""
        out(f"schema level {level} ({schema.__name__}): classifies {classified[level]:,} "
            f"({100 * classified[level] / count:.1f} %){bounds}, {wrong[level]} disagreements")
    out(f"{time.monotonic() - start:.0f} s")
    return not mismatches and not any(wrong.values())
