"""Model of the repetition detector (hdl/search/repetition.py)."""

__all__ = ["repeats"]


def repeats(entries, window=32):
    """Whether the last of ``entries`` [(key, irreversible)] repeats the position 2, 4, ...
    ``window`` entries before it with only reversible moves since (an entry's flag says the
    move that reached it was irreversible)."""
    if not entries:
        return False
    top = entries[-1][0]
    for k in range(1, min(window, len(entries) - 1) + 1):
        if entries[-k][1]:          # the move reaching the entry k - 1 below the top
            return False
        if k % 2 == 0 and entries[-1 - k][0] == top:
            return True
    return False
