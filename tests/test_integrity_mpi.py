"""The checked transport on a real MPI (the mpich wheel), 2 ranks on localhost."""

import json
import os
import sys

import pytest
from fray.cli.integrity import NETWORKS
from mpi_launch import mpirun


def run(*args, timeout=180, launch=(), ranks=2, network=None, env=None):
    """Runs ``args`` on ``ranks`` ranks; ``launch`` adds options of mpiexec; ``network``
    forces MPI onto that network (``tcp``) between the ranks; ``env`` adds variables."""
    return mpirun(*args, ranks=ranks, timeout=timeout, launch=launch,
                  env={**(NETWORKS[network] if network else {}), **(env or {})})


def selftest(case, path, ranks=2, env=None):
    """Runs a case of ``fray.integrity.mpi_selftest``; the ``mpi`` path over TCP."""
    r = run(sys.executable, "-m", "fray.integrity.mpi_selftest", case, path, ranks=ranks,
            network="tcp" if path == "mpi" else None, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(r.stdout.strip().splitlines()[-1])
    assert result["ok"], result
    return result


@pytest.mark.parametrize("path", ["shared-memory", "mpi"])
@pytest.mark.parametrize("case", ["roundtrip", "ber", "alloc", "errors", "late", "boundaries"])
def test_selftest(case, path):
    result = selftest(case, path)
    if case == "ber":
        assert result["corrupted"] > 0 and result["resent"] >= result["corrupted"]


def test_logged_eager_sends_return_early_and_are_resent_while_the_sender_is_elsewhere():
    result = selftest("logged", "mpi")
    assert result["corrupted"] > 0 and result["resent"] >= result["corrupted"]


@pytest.mark.parametrize("case", ["roundtrip", "ber", "errors"])
def test_without_thread_multiple_eager_sends_wait_for_their_verdict(case):
    # Below MPI_THREAD_MULTIPLE there is no helper thread, so eager sends stay synchronous.
    result = selftest(case, "mpi", env={"MPI4PY_RC_THREAD_LEVEL": "funneled"})
    assert result["logged"] is False


def test_one_rank_measures_its_network_to_itself():
    # measure_network has no pair to time on one rank; it used to leave the bandwidth at
    # infinity, and building the chunk plan failed.
    result = selftest("alone", "mpi", ranks=1)
    assert result["network"]["bandwidth_bytes_s"] > 1e8


def test_injected_errors_never_deliver_damaged_data_over_tcp():
    # Hypothesis draws sizes, buffer offsets and bit error rates (0 to 1e-5) on rank 0.
    result = selftest("ber_search", "mpi")
    assert result["draws"] == 40 and result["corrupted"] > 0


@pytest.mark.parametrize("path", ["shared-memory", "mpi"])
def test_two_senders_at_once_deliver_in_order(path):
    selftest("ordered_each", path, ranks=3)


def test_receive_from_any_source_in_order():
    # Not over forced TCP: MPICH 5.0 can lose a receive from any source with
    # MPIR_CVAR_NOLOCAL=1, plain mpi4py included.
    r = run(sys.executable, "-m", "fray.integrity.mpi_selftest", "ordered_any", "mpi", ranks=3)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["ok"]


@pytest.mark.parametrize("path", ["shared-memory", "mpi"])
def test_pingpong_json_with_injected_errors(path, tmp_path):
    plot = tmp_path / "pingpong.png"
    network = ("--network", "tcp") if path == "mpi" else ()
    r = run(sys.executable, "-m", "fray", "integrity", "pingpong", "--checksum",
            "none,naive,unchecked,crc32c", "--sizes", "8B,64KiB,1MiB", "--ber", "1e-8",
            "--trials", "1", "--path", path, *network, "--json", "--plot", str(plot))
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
