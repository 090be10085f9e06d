"""SUPREM hardware: Amaranth 0.5 components of the chess machine."""
