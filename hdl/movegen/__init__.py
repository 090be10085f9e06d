"""The move generator: 64 square cells, a priority arbiter and their control (docs/architecture.md §5.1)."""
