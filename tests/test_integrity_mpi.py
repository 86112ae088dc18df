"""The checked transport on a real MPI (the mpich wheel), 2 ranks on localhost."""

import json
import os
import sys

import pytest
from mpi_launch import mpirun


def run(*args, timeout=180, launch=()):
    """Runs ``args`` on 2 ranks; ``launch`` adds options of mpiexec."""
    return mpirun(*args, ranks=2, timeout=timeout, launch=launch)


@pytest.mark.parametrize("path", ["shared-memory", "mpi"])
@pytest.mark.parametrize("case", ["roundtrip", "ber", "alloc", "errors"])
def test_selftest(case, path):
    r = run(sys.executable, "-m", "fray.integrity.mpi_selftest", case, path)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(r.stdout.strip().splitlines()[-1])
    assert result["ok"], result
    if case == "ber":
        assert result["corrupted"] > 0 and result["resent"] >= result["corrupted"]


@pytest.mark.parametrize("path", ["shared-memory", "mpi"])
def test_pingpong_json_with_injected_errors(path, tmp_path):
    plot = tmp_path / "pingpong.png"
    r = run(sys.executable, "-m", "fray", "integrity", "pingpong", "--checksum",
            "none,naive,unchecked,crc32c", "--sizes", "8B,64KiB,1MiB", "--ber", "1e-8",
            "--trials", "1", "--path", path, "--json", "--plot", str(plot))
    assert r.returncode == 0, r.stderr
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads(r.stdout)
    assert len(rows) == 12
    assert {x["path"] for x in rows if x["mode"] in ("checked", "unchecked")} == {path}
    for row in rows:
        for key in ("size_bytes", "bandwidth_bytes_s", "checksum", "corrupted", "resent"):
            assert key in row
        assert row["bandwidth_bytes_s"] > 0
    checked = [x for x in rows if x["mode"] == "checked"]
    assert sum(x["corrupted"] for x in checked) > 0
    assert all(x["resent"] >= x["corrupted"] for x in checked)
    assert all(x["corrupted"] == 0 and x["resent"] == 0 for x in rows if x["mode"] == "none")
    # fray's transports send from CheckedComm.alloc buffers: one copy on shared memory.
    fray_modes = ("checked", "unchecked")
    assert [x["one_copy"] for x in rows] == [
        path == "shared-memory" and x["mode"] in fray_modes for x in rows]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="pinning 2 ranks needs 2 cores")
@pytest.mark.parametrize("launch", [(), ("--bind-to", "core")])
def test_pingpong_says_whether_ranks_are_pinned(launch):
    r = run(sys.executable, "-m", "fray", "integrity", "pingpong", "--checksum", "unchecked",
            "--sizes", "1KiB", "--trials", "1", "--json", launch=launch)
    assert r.returncode == 0, r.stderr
    pinned = bool(launch)
    assert [row["pinned"] for row in json.loads(r.stdout)] == [pinned]
    assert ("not pinned" in r.stderr) == (not pinned)
