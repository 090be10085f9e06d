"""Bit-exact Python models of the hardware units: they are the specification."""
