"""The move generator: 64 square cells, a priority arbiter and their control (DESIGN §4.1)."""
