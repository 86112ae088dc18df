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


def test_integrity_halo_computes_the_same_grid_on_both_paths():
    from test_integrity_mpi import run

    for path in ("shared-memory", "mpi"):
        r = run(sys.executable, str(EXAMPLES / "integrity_halo.py"), "--path", path,
                "--rows", "8", "--cols", "4096", "--iterations", "5", "--trials", "1",
                network="tcp" if path == "mpi" else None)
        assert r.returncode == 0, r.stdout + r.stderr
        lines = r.stdout.strip().splitlines()
        assert lines[0].startswith(f"2 ranks, {path} path, checksum ")
        assert [x.split()[0] + " " + x.split()[1] for x in lines[1:]] == [
            "plain MPI", "fray unchecked", "fray checked"]
        assert all("same grid: yes" in x for x in lines[1:])
