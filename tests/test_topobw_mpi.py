"""TopoBW on the real MPI (the mpich wheel): 4 and 8 ranks on localhost."""

import re
import sys

import pytest
from mpi_launch import mpirun

LINE = re.compile(r"^(c\d+-\d+c\d+s\d+n\d) ([XYZ])([+-])([CBM])([ES]) (c\d+-\d+c\d+s\d+n\d) "
                  r"\(nid(\d{5}) to nid(\d{5})\): (\d+\.\d{4}) seconds = (\d+\.\d{2}) MB/sec$")


def topobw(ranks, *args):
    return mpirun(sys.executable, "-m", "fray", "topobw", *args, ranks=ranks, timeout=300)


@pytest.mark.parametrize("ranks,layout,transfers", [(4, "builtin:2x2x1", 8),
                                                    (8, "builtin:2x2x2", 24)])
def test_report_has_every_pair_once(ranks, layout, transfers):
    r = topobw(ranks, "--layout", layout, "--size", "64KiB", "--count", "4")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    pairs = [LINE.match(x) for x in lines if not x.startswith("Bandwidth")]
    assert all(pairs), lines
    assert len(pairs) == transfers
    # Each direction of each Gemini link once (one node per Gemini: every transfer exclusive).
    keys = {(m[1], m[6]) for m in pairs}
    assert len(keys) == transfers
    assert all(m[5] == "E" for m in pairs)
    for m in pairs:
        # The time is printed to 0.1 ms: the rate must fit it within that rounding.
        seconds, rate = float(m[9]), float(m[10])
        assert rate > 0
        assert (seconds - 5e-5) * rate * 1e6 <= 4 * 65536 * 1.0001
        assert (seconds + 5e-5) * rate * 1e6 >= 4 * 65536 * 0.9999
    dims = {m[2] for m in pairs}
    summary = [x for x in lines if x.startswith("Bandwidth")]
    assert [s.split()[1] for s in summary] == sorted(dims)


def test_layout_file_with_partners(tmp_path):
    layout = tmp_path / "layout.txt"
    layout.write_text("machine gemini:2x2x1\n0 c0-0c0s0n0\n1 c0-0c0s0n1\n"
                      "2 nid00096\n3 1 0 0 1\n")
    out = tmp_path / "report.txt"
    r = topobw(4, "--layout", str(layout), "--size", "16KiB", "--count", "2",
               "--report", str(out))
    assert r.returncode == 0, r.stderr
    tags = [x.split()[1] for x in out.read_text().splitlines() if not x.startswith("Bandwidth")]
    # X only (the two Geminis are X neighbours): each node alone, then both at once.
    assert sorted(tags) == sorted(["X+CE", "X+CE", "X-CE", "X-CE"] + ["X+CS"] * 2 + ["X-CS"] * 2)


def test_bad_layout_is_one_line_and_exit_2(tmp_path):
    layout = tmp_path / "layout.txt"
    layout.write_text("machine gemini:2x2x1\n0 c0-0c0s0n0\n1 c0-0c0s0n7\n")
    r = topobw(2, "--layout", str(layout))
    assert r.returncode == 2
    errors = [x for x in r.stderr.splitlines() if "error" in x]
    assert len(errors) == 1 and "layout.txt:3:" in errors[0], r.stderr
