"""``fray spares`` as a user runs it: outputs, figure, and one-line errors with exit 2."""

import subprocess
import sys

import pytest
from fray.cli import main
from fray.store import read_table


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "fray", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_exhaustive_csv_and_plot(tmp_path, capsys):
    out, fig = tmp_path / "r.csv", tmp_path / "c.png"
    rc = main(
        [
            "spares",
            "--fabric",
            "mesh:8x8",
            "--alloc",
            "2D(1,1)",
            "--method",
            "0D",
            "--exhaustive",
            "--max-failures",
            "2",
            "--out",
            str(out),
            "--plot",
            str(fig),
        ]
    )
    assert rc == 0
    t = read_table(out)
    assert list(t["failures"]) == [0, 1, 2]
    assert list(t["cases"]) == [1, 56, 56 * 55 // 2]
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "0D on mesh:8x8" in capsys.readouterr().out


def test_samples_parquet_round_trip(tmp_path):
    out = tmp_path / "r.parquet"
    rc = main(
        [
            "spares",
            "--fabric",
            "torus:6x6x6",
            "--alloc",
            "3D(2,1)",
            "--method",
            "hybrid(all)",
            "--samples",
            "40",
            "--seed",
            "3",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    t = read_table(out)
    assert len(t) == 6 * 6 * 6 - 5 * 5 * 6 + 1
    assert (t["cases"] == 40).all()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--alloc", "2D(1,1)", "--method", "4D"], "4D sliding"),
        (["--alloc", "2D(3,1)", "--method", "0D"], "r must be between"),
        (["--alloc", "2D(1,1)", "--method", "0D", "--max-failures", "99"], "spare nodes"),
        # 40 spares for 24 ranks: the 25th failure had no rank left (a Rust panic)
        (["--alloc", "2D(1,5)", "--method", "0D", "--max-failures", "25"],
         "max_failures: 25 failures but the job has only 24 ranks"),
        (["--alloc", "2D(1,1)", "--method", "0D", "--out", "r.xlsx"], ".csv or .parquet"),
        (["--alloc", "2D(1,1)", "--method", "0D", "--samples", "0"],
         "argument --samples: must be from 1"),
        (["--alloc", "2D(1,1)", "--method", "0D", "--seed", "-1"], "argument --seed"),
    ],
)
def test_bad_input_one_line_exit_2(args, needle):
    r = run_cli("spares", "--fabric", "mesh:8x8", "--samples", "1", *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        # the CLI's option, not the API's argument
        ([], "--max-failures is required with --exhaustive"),
        # the seed draws nothing when every set is enumerated: it was silently ignored
        (["--max-failures", "2", "--seed", "5"], "--seed draws the failures of --samples"),
    ],
)
def test_exhaustive_bad_input_one_line_exit_2(args, needle):
    r = run_cli("spares", "--fabric", "mesh:5x5", "--alloc", "2D(1,1)", "--method", "0D",
                "--exhaustive", *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
