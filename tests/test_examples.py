"""The examples run as they are and print what their docstrings promise."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_spare_nodes_quickstart_prints_the_exhaustive_worst_cases():
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "spare_nodes_quickstart.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = r.stdout.strip().splitlines()
    # 0D: one failure already puts 5 routes on a channel (the paper's Figure 4);
    # hybrid(all) with two spare sides slides the first two failures away without collision.
    assert lines[0] == "0D           2D(1,1): worst collisions F=1: 5, F=2: 5, F=3: 6"
    assert lines[1].startswith("hybrid(all)  2D(2,1): worst collisions F=1: 1, F=2: 1, F=3: ")
