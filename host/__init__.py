"""The host program: Oracle, search driver, CLI and UCI engine."""
