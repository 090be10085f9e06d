"""The evaluator (docs/architecture.md §5.2): first-order table, global-state units, recognizers and
an adder tree, all kept up to date by halfmoves and loaded through one table-download port."""
