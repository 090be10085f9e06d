"""CHUNKER (Campbell and Berliner): king-and-pawn endings of passed pawns, solved by chunks.

``domain`` defines the positions and rules, ``database`` the exact retrograde database that
checks everything else."""
