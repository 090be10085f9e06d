"""Simulation: Verilator builds, the simulated board and bit-exact reference models."""
