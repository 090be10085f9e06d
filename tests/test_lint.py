"""The code passes the linter configured in pyproject.toml (ruff: pyflakes, pycodestyle, import
order, bugbear, pyupgrade), so the test command checks style and likely bugs too."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
