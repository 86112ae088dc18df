"""The checked transport on a real MPI (the mpich wheel), 2 ranks on localhost."""

import json
import os
import sys

import pytest
from fray.cli import build_parser, main
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


# -- bad input: one line, exit 2, before MPI starts, on any number of ranks ------------------

@pytest.fixture
def no_mpi(monkeypatch):
    """Makes starting MPI in this process fail: a refusal must come before it."""
    for module in ("mpi4py.MPI", "fray.integrity.pingpong"):
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.parametrize("argv, needle", [
    # 0 and -1 trials were refused only once MPI ran, 10^20 ran for ever
    (("--trials", "0"), "argument --trials: must be from 1 to 10000, got 0"),
    (("--trials", "-1"), "argument --trials: must be from 1"),
    (("--trials", "99999999999999999999"), "argument --trials: must be from 1"),
    (("--trials", "9" * 309), "(309 characters)"),
    (("--trials", "1e20"), "argument --trials: expected a whole number"),
    # NaN, infinities and rates above 1 were refused after argparse, not naming --ber
    (("--ber", "nan"), "argument --ber: must be a finite number from 0 to 1, got nan"),
    (("--ber", "-inf"), "argument --ber"),
    (("--ber", "1e308"), "argument --ber"),
    (("--ber", "5%"), "argument --ber: expected a number"),
    # 1 TiB was a numpy MemoryError traceback on every rank
    (("--sizes", "1TiB"), "sizes: 1099511627776 bytes is more than the largest message"),
    (("--sizes", "2GiB"), "sizes: 2147483648 bytes is more than the largest message"),
    # a size or a mode given twice was measured twice, its rows doubled
    (("--sizes", "8B,8B"), "error: sizes: 8 given twice"),
    (("--checksum", "none,none"), "error: checksum: none given twice"),
    (("--checksum", ","), "error: checksum: give at least one mode"),
    (("--checksum", "sha1"), "error: checksum: unknown mode 'sha1'"),
    # options the chosen modes ignore
    (("--checksum", "none", "--path", "mpi"), "error: path: only fray's transports"),
    (("--checksum", "none,naive", "--no-alloc"), "error: no-alloc: only fray's transports"),
    (("--path", "mpi", "--no-alloc"), "error: no-alloc: with --path mpi"),
    (("--path", "banana"), "argument --path: invalid choice: 'banana'"),
    # a second value silently replaced the first
    (("--checksum", "crc32c", "--checksum", "none"), "argument --checksum: given twice"),
    (("--sizes", "8B", "--sizes", "1KiB"), "argument --sizes: given twice"),
    (("--plot", "a.png", "--plot", "b.png"), "argument --plot: given twice"),
    (("--plot", "x.txt"), "--plot: 'x.txt' must end in .png, .pdf or .svg"),
    # only 0-byte messages: matplotlib's warnings and an empty plot, after the whole run
    (("--sizes", "0B", "--plot", "p.png"), "--plot: every size is 0B"),
])
def test_pingpong_bad_options_are_one_line_before_mpi(no_mpi, capsys, argv, needle):
    code = main(["integrity", "pingpong", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith("fray integrity pingpong: error: "), err
    assert needle in err[0], err


def test_pingpong_plot_to_a_folder_is_refused_before_mpi(no_mpi, capsys, tmp_path):
    assert main(["integrity", "pingpong", "--plot", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"fray integrity pingpong: error: --plot: {tmp_path} is a folder, expected a file")


def test_pingpong_help_shows_every_default():
    parser = build_parser()
    integrity = next(a for a in parser._subparsers._group_actions[0].choices.values()
                     if a.prog == "fray integrity")
    pingpong = integrity._subparsers._group_actions[0].choices["pingpong"]
    for action in pingpong._actions:
        if action.option_strings and action.nargs != 0:  # takes a value
            assert "default" in action.help, action.option_strings


@pytest.mark.parametrize("ranks, argv, needle, env", [
    # every rank printed the line (two lines, at times run together on one)
    (2, ("pingpon",), "fray integrity: error: argument ACTION: invalid choice: 'pingpon'", {}),
    (2, ("pingpong", "--trials", "0"), "argument --trials: must be from 1", {}),
    (2, ("pingpong", "--sizes", "1TiB"), "error: sizes: 1099511627776 bytes", {}),
    (2, ("pingpong", "--checksum", "none,none"), "error: checksum: none given twice", {}),
    (3, ("pingpong", "--sizes", "8B", "--checksum", "none"),
     "ranks: pingpong needs exactly 2 ranks, got 3", {}),
    # every frame damaged: both ranks gave up, each with its own line
    (2, ("pingpong", "--ber", "0.5", "--sizes", "1KiB", "--trials", "1", "--checksum", "crc32c"),
     "ber: at 0.5 a message would stay damaged", {}),
    # eager messages over MPI damaged on every try: the receiver gave up, the sender waited
    # for ever
    (2, ("pingpong", "--ber", "1e-3", "--sizes", "1KiB", "--trials", "1", "--checksum",
         "crc32c", "--path", "mpi", "--network", "tcp"),
     "ber: at 0.001 a message would stay damaged", {}),
    # a tuning cache that cannot be written: rank 0's OSError traceback, rank 1 waited for
    # the tuned algorithm for ever
    (2, ("pingpong", "--sizes", "8B", "--trials", "1"),
     "FRAY_CACHE_DIR: cannot write the tuning cache /dev/null/integrity-tune.json",
     {"FRAY_CACHE_DIR": "/dev/null"}),
])
def test_pingpong_refusal_is_one_line_on_any_number_of_ranks(ranks, argv, needle, env):
    r = run(sys.executable, "-m", "fray", "integrity", *argv, ranks=ranks, timeout=120,
            env=env)
    err = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 2, r.stdout + r.stderr
    assert len(err) == 1 and needle in err[0], err
    assert r.stdout == ""
