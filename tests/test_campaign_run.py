"""Running campaigns: the same rows whatever the workers, the order or the interruptions."""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import fray.spares
import pandas as pd
import pytest
from fray import FrayError, SpecError
from fray.campaign import load_scenario, make_plan, run_campaign, studies
from fray.campaign.db import ResultsDB, check_results_file
from fray.campaign.limits import max_workers
from fray.campaign.tasks import derive_seed
from fray.store import write_table

HERE = Path(__file__).resolve().parent

SAMPLED = """
[study]
kind = "spares"
name = "sampled"
[fabric]
topology = "mesh:8x8"
[jobs]
spare_allocation = "2D(2,1)"
[faults]
samples = 90
max_failures = 8
[mitigation]
substitution = "0D"
[sweep.grid]
mitigation.substitution = ["0D", "hybrid(all)"]
[replications]
count = 2
seed = 11
[tasks]
cases = 20
"""

# 40 tasks of about 50 ms each on one core: a run lasts long enough to be interrupted.
LONGER = """
[study]
kind = "spares"
name = "longer"
[fabric]
topology = "torus:6x6x6"
[jobs]
spare_allocation = "3D(2,1)"
[faults]
samples = 800
[mitigation]
substitution = "hybrid(all)"
[sweep.grid]
mitigation.substitution = ["hybrid(all)", "1D"]
[replications]
seed = 5
[tasks]
cases = 40
"""


def write(tmp_path: Path, text: str, name: str = "study.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def stored_rows(db: Path, name: str) -> pd.DataFrame:
    """A study's rows in a fixed order, without the wall time (the one column that may
    differ between runs)."""
    with ResultsDB(db, read_only=True) as r:
        (study,) = r.studies([name])
        rows = r.rows(study)
    return rows.drop(columns=["wall_s"]).sort_values(
        [c for c in ("task_key", "failures", "row") if c in rows]).reset_index(drop=True)


def task_count(db: Path, name: str) -> tuple[int, int]:
    """(finished tasks, distinct task keys among the rows)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        done = con.execute("SELECT count(*) FROM fray_tasks WHERE study = ?", [name]).fetchone()
        keys = con.execute(f'SELECT count(DISTINCT task_key) FROM "{name}"').fetchone()
        return done[0], keys[0]
    finally:
        con.close()


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    """The SAMPLED study run once on one worker and once on two."""
    tmp = tmp_path_factory.mktemp("sampled")
    path = write(tmp, SAMPLED)
    one = run_campaign(path, tmp / "one.duckdb", workers=1, progress="none")
    two = run_campaign(path, tmp / "two.duckdb", workers=2, progress="none")
    return path, one, two


def copy_db(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst


def test_one_and_two_workers_give_identical_rows(sampled):
    path, one, two = sampled
    plan = make_plan(load_scenario(path))
    assert len(plan.tasks) == 2 * 2 * 5  # points x replications x chunks of 20 of 90 cases
    assert one.ran == two.ran == len(plan.tasks)
    a, b = stored_rows(one.db, "sampled"), stored_rows(two.db, "sampled")
    assert len(a) == len(plan.tasks) * (8 + 1)
    pd.testing.assert_frame_equal(a, b)


def test_the_merged_curve_is_the_direct_study_for_the_same_seed(sampled):
    kind = studies.get("spares")
    with ResultsDB(sampled[2].db, read_only=True) as r:
        (study,) = r.studies()
        per_rep = kind.curve(r.con, study, by_replication=True)
        merged = kind.curve(r.con, study)
    for point, method in enumerate(["0D", "hybrid(all)"]):
        for rep in range(2):
            direct = fray.spares.study("mesh:8x8", "2D(2,1)", method, samples=90, max_failures=8,
                                       seed=derive_seed(11, "replication", rep))
            got = per_rep[(per_rep["point"] == point) & (per_rep["replication"] == rep)]
            pd.testing.assert_frame_equal(got[list(direct.columns)].reset_index(drop=True),
                                          direct, check_dtype=False)
        m = merged[merged["point"] == point]
        assert (m["cases"] == 2 * 90).all()
    # Both replications draw different failure sequences (their seeds differ).
    r0 = per_rep[(per_rep["point"] == 0) & (per_rep["replication"] == 0)]["mean"].to_numpy()
    r1 = per_rep[(per_rep["point"] == 0) & (per_rep["replication"] == 1)]["mean"].to_numpy()
    assert (r0 != r1).any()


def test_an_exhaustive_campaign_is_the_exhaustive_study(tmp_path):
    text = SAMPLED.replace("samples = 90\nmax_failures = 8", 'mode = "exhaustive"\n'
                           "max_failures = 3").replace("count = 2", "count = 1").replace(
        "cases = 20", "cases = 300")
    path = write(tmp_path, text)
    assert len(make_plan(load_scenario(path)).tasks) > 2  # several chunks of first ranks
    db = tmp_path / "r.duckdb"
    run_campaign(path, db, workers=2, progress="none")
    with ResultsDB(db, read_only=True) as r:
        (study,) = r.studies()
        curve = studies.get("spares").curve(r.con, study)
    for point, method in enumerate(["0D", "hybrid(all)"]):
        direct = fray.spares.study("mesh:8x8", "2D(2,1)", method, exhaustive=True,
                                   max_failures=3)
        got = curve[curve["point"] == point][list(direct.columns)].reset_index(drop=True)
        pd.testing.assert_frame_equal(got, direct, check_dtype=False)


def test_a_rerun_skips_finished_tasks_and_rewrites_nothing(sampled, tmp_path):
    path, one, _ = sampled
    db = copy_db(one.db, tmp_path)
    with ResultsDB(db, read_only=True) as r:
        before = r.rows(r.studies()[0])
    again = run_campaign(path, db, workers=1, progress="none")
    assert (again.skipped, again.ran) == (one.tasks, 0)
    with ResultsDB(db, read_only=True) as r:
        after = r.rows(r.studies()[0])
    pd.testing.assert_frame_equal(before, after)  # wall times too: nothing was rewritten


def test_a_changed_scenario_is_refused_and_replace_drops_the_old_rows(sampled, tmp_path):
    db = copy_db(sampled[1].db, tmp_path)
    changed = write(tmp_path, SAMPLED.replace("samples = 90", "samples = 60"), "changed.toml")
    new_hash = load_scenario(changed).hash
    with pytest.raises(SpecError, match=r"holds results of another scenario.*" + new_hash):
        run_campaign(changed, db, workers=1, progress="none")
    r = subprocess.run([sys.executable, "-m", "fray", "run", str(changed), "--db", str(db)],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--replace" in r.stderr
    run_campaign(changed, db, workers=1, progress="none", replace=True)
    rows = stored_rows(db, "sampled")
    assert set(rows["scenario_hash"]) == {new_hash}
    assert set(rows["chunk_end"]) == {20, 40, 60}


PROGRESS = re.compile(r": (\d+)/(\d+) tasks done")


def _run_until(args: list[str], done: int, sig: int,
               group: bool = False) -> tuple[subprocess.Popen, str]:
    """Starts ``fray run`` and sends ``sig`` once it reports ``done`` finished tasks: to the
    driver, or with ``group`` to it and every process it started, as a terminal's Ctrl-C
    does."""
    # Ctrl-C as a terminal delivers it: undo an ignored SIGINT that this test process may
    # have inherited or been left with (a child starts with the ignored disposition, and
    # Python then never raises KeyboardInterrupt).
    proc = subprocess.Popen([sys.executable, "-m", "fray", "run", *args], stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509 (no threads yet)
    seen = []
    try:
        for line in proc.stderr:
            seen.append(line)
            m = PROGRESS.search(line)
            if m and int(m.group(1)) >= done:
                (os.killpg if group else os.kill)(proc.pid, sig)
                break
        rest = proc.communicate(timeout=120)[1]
    finally:
        try:  # worker processes of a killed driver: end them with it
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return proc, "".join(seen) + (rest or "")


@pytest.fixture(scope="module")
def longer_whole(tmp_path_factory) -> Path:
    """The LONGER study run without interruption."""
    tmp = tmp_path_factory.mktemp("longer")
    run_campaign(write(tmp, LONGER), tmp / "whole.duckdb", workers=2, progress="none")
    return tmp / "whole.duckdb"


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_a_run_killed_mid_way_resumes_to_the_same_rows(tmp_path, sig, longer_whole):
    path = write(tmp_path, LONGER)
    total = len(make_plan(load_scenario(path)).tasks)
    assert total == 40
    db = tmp_path / "killed.duckdb"
    proc, err = _run_until([str(path), "--db", str(db), "--workers", "1"], 2, sig)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130, err
        assert "interrupted" in err and "Traceback" not in err
    done, keys = task_count(db, "longer")
    assert done == keys >= 2  # every finished task complete, none half-written
    resumed = run_campaign(path, db, workers=2, progress="none")
    assert resumed.skipped == done and resumed.ran == total - done
    assert resumed.ran > 0  # it was stopped mid-way
    a, b = stored_rows(db, "longer"), stored_rows(longer_whole, "longer")
    assert task_count(db, "longer") == (total, total)
    pd.testing.assert_frame_equal(a, b)


def test_ctrl_c_at_the_terminal_is_one_line_and_the_run_resumes(tmp_path, longer_whole):
    """Ctrl-C reaching the driver and its Dask processes once the first rows are written:
    exit 130 and one line naming the log (beside the progress lines), Dask's noise in that
    log; a second ``fray run`` completes the file with every row once."""
    path = write(tmp_path, LONGER)
    db = tmp_path / "ctrl_c.duckdb"
    proc, err = _run_until([str(path), "--db", str(db), "--workers", "1"], 1, signal.SIGINT,
                           group=True)
    assert proc.returncode == 130, err
    said = [line for line in err.splitlines() if line.strip() and not PROGRESS.search(line)]
    assert len(said) <= 2, err
    log = tmp_path / "ctrl_c.log"
    assert "interrupted" in said[-1] and str(log) in said[-1], err
    assert log.exists()
    done, keys = task_count(db, "longer")
    assert done == keys >= 1
    again = subprocess.run([sys.executable, "-m", "fray", "run", str(path), "--db", str(db),
                            "--workers", "1", "--quiet"], check=False, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"{40 - done} run now, {done} already in" in again.stdout
    assert task_count(db, "longer") == (40, 40)
    pd.testing.assert_frame_equal(stored_rows(db, "longer"), stored_rows(longer_whole, "longer"))


@pytest.fixture(scope="module")
def local_cluster():
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR,
                           preload=[str(HERE / "campaign_dying_kind.py")])
    try:
        yield cluster
    finally:
        cluster.close()


def test_a_dask_cluster_through_scheduler_gives_the_local_rows(tmp_path, local_cluster):
    path = write(tmp_path, SAMPLED)
    db = tmp_path / "dask.duckdb"
    r = subprocess.run([sys.executable, "-m", "fray", "run", str(path), "--db", str(db),
                        "--scheduler", local_cluster.scheduler_address, "--quiet"],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    assert "20 tasks, 20 run now, 0 already" in r.stdout
    run_campaign(path, tmp_path / "local.duckdb", workers=1, progress="none")
    pd.testing.assert_frame_equal(stored_rows(db, "sampled"),
                                  stored_rows(tmp_path / "local.duckdb", "sampled"))


def test_a_worker_dying_mid_task_loses_and_duplicates_nothing(tmp_path, local_cluster):
    import campaign_dying_kind  # noqa: F401  (registers the kind in this process)

    marker = tmp_path / "died"
    text = f"""
[study]
kind = "dying_for_tests"
name = "dying"
[work]
tasks = 6
die_at = 3
marker = "{marker}"
"""
    db = tmp_path / "r.duckdb"
    result = run_campaign(write(tmp_path, text), db, scheduler=local_cluster.scheduler_address,
                          progress="none")
    assert marker.exists()  # a worker really died in task 3
    assert result.ran == 6
    assert task_count(db, "dying") == (6, 6)
    rows = stored_rows(db, "dying")
    assert len(rows) == 6 * 3 and not rows.duplicated(["task_key", "row"]).any()
    redone = rows[rows["i"] == 3]
    assert (redone["pid"] != int(marker.read_text())).all()  # finished by another process
    assert list(rows["value"]) == [derive_seed(0, "task", i) % 1000 + r for i in range(6)
                                   for r in range(3)]


def test_a_failing_task_stops_the_run_naming_it_and_keeps_what_finished(tmp_path,
                                                                        local_cluster):
    import campaign_dying_kind  # noqa: F401

    text = f"""
[study]
kind = "dying_for_tests"
name = "failing"
[work]
tasks = 4
die_at = 99
fail_at = 2
marker = "{tmp_path / 'unused'}"
"""
    db = tmp_path / "r.duckdb"
    with pytest.raises(FrayError, match=r"task t002 failed: ValueError: task 2 cannot be"):
        run_campaign(write(tmp_path, text), db, scheduler=local_cluster.scheduler_address,
                     progress="none")
    done, keys = task_count(db, "failing")
    assert done == keys and "t002" not in set(stored_rows(db, "failing")["task_key"])


def test_bad_worker_options_are_one_line_errors(tmp_path):
    path = write(tmp_path, SAMPLED)
    for args, needle in ((["--workers", "0"], "workers: expected a positive"),
                         (["--scheduler", "localhost:8786"], "scheduler: expected an address"),
                         (["--workers", "99999999999999999999"], "workers: at most "),
                         (["--workers", str(max_workers() + 1)],
                          f"workers: at most {max_workers()} local worker processes")):
        r = subprocess.run([sys.executable, "-m", "fray", "run", str(path), "--db",
                            str(tmp_path / "x.duckdb"), *args], capture_output=True, text=True,
                           timeout=300, check=False)
        assert r.returncode == 2 and needle in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


class _InterruptedConnection:
    """A DuckDB connection stand-in whose statements were cut by a Ctrl-C."""

    def __init__(self, where):
        self.where, self.rolled_back = where, False

    def begin(self):
        if self.where == "begin":
            raise RuntimeError("Query interrupted")

    def commit(self):
        if self.where == "commit":
            raise RuntimeError("Query interrupted")

    def rollback(self):
        self.rolled_back = True


@pytest.mark.parametrize("where", ["begin", "commit", "body"])
def test_ctrl_c_caught_by_duckdb_stops_like_any_ctrl_c(where):
    from fray.campaign.db import _Transaction

    con = _InterruptedConnection(where)
    with pytest.raises(KeyboardInterrupt), _Transaction(con):
        if where == "body":
            raise RuntimeError("Query interrupted")
    assert con.rolled_back == (where == "body")


class _Arrivals:
    """A Dask ``as_completed`` stand-in: ``batches`` arrive one per poll, then none."""

    def __init__(self, batches):
        self.batches = list(batches)

    def next_batch(self, block=True):
        assert not block  # the runner polls, so that a swallowed Ctrl-C is still seen
        return self.batches.pop(0) if self.batches else []

    def is_empty(self):
        return not self.batches


class _SignalsOnCollection:
    """Sends this process a SIGINT from its finalizer, as a Ctrl-C landing in a Dask
    future's ``__del__`` does."""

    def __del__(self):
        signal.raise_signal(signal.SIGINT)


def test_ctrl_c_inside_a_finalizer_stops_the_run_without_a_traceback(monkeypatch):
    from fray.campaign.runner import _batches, _CtrlC

    ignored = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    monkeypatch.setattr(signal, "getsignal", lambda _: signal.default_int_handler)
    interrupted = _CtrlC()
    try:
        assert interrupted.previous is not None
        batches = _batches(_Arrivals([["a"], ["b"]]), interrupted)
        assert next(batches) == ["a"]
        obj = _SignalsOnCollection()
        del obj  # the signal arrives inside __del__: nothing raised, nothing printed
        assert interrupted.seen and ignored == []
        with pytest.raises(KeyboardInterrupt):
            next(batches)  # the next poll stops the run before batch "b"
        with pytest.raises(KeyboardInterrupt):  # outside a finalizer it raises at once
            signal.raise_signal(signal.SIGINT)
    finally:
        interrupted.restore()


def test_the_wait_ends_when_every_future_has_arrived():
    from fray.campaign.runner import _batches, _CtrlC

    assert list(_batches(_Arrivals([["a", "b"], ["c"]]), _CtrlC())) == [["a", "b"], ["c"]]


def _bad_dbs(tmp_path: Path) -> list[tuple[Path | str, str]]:
    """Results files a run must refuse, each with what its one line says."""
    table = pd.DataFrame({"a": [1, 2], "b": [3.0, 4.0]})
    csv = write_table(table, tmp_path / "table.csv")
    parquet = write_table(table, tmp_path / "table.parquet")
    (tmp_path / "short.parquet").write_text("abc\n")
    (tmp_path / "noise.csv").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "empty.duckdb").write_bytes(b"")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    return [
        (csv, "not a fray results file (a CSV table, not a DuckDB database)"),
        (parquet, "not a fray results file (a Parquet file, not a DuckDB database)"),
        (tmp_path / "short.parquet", "not a fray results file (a text file"),
        (tmp_path / "noise.csv", "not a fray results file (binary data"),
        (tmp_path / "empty.duckdb", "not a fray results file (an empty file"),
        (tmp_path / "adir", "is a folder, expected a results file"),
        (tmp_path / "afile" / "x.duckdb", "afile is not a folder"),
        (tmp_path / "new.csv", "DuckDB reads a .csv file as a table"),
        (tmp_path / "new.json.gz", "DuckDB reads a .json.gz file as a table"),
        (tmp_path / "results.log", "a run writes its log to RESULTS.log"),
        (":memory:", "DuckDB reads this as an in-memory, remote or other system's database"),
        ("sqlite:x.db", "DuckDB reads this as an in-memory, remote or other system's database"),
    ]


def test_a_results_file_that_is_not_a_duckdb_database_is_refused_before_any_task(tmp_path):
    # DuckDB opens an existing CSV or Parquet file as an empty in-memory database: a run
    # there once said "24 run now" and kept nothing. Now: one line, exit 2, nothing written.
    path = write(tmp_path, SAMPLED)
    for db, needle in _bad_dbs(tmp_path):
        before = sorted(p.name for p in tmp_path.rglob("*"))
        contents = Path(db).read_bytes() if Path(db).is_file() else None
        r = subprocess.run([sys.executable, "-m", "fray", "run", str(path), "--db", str(db),
                            "--workers", "1", "--quiet"], capture_output=True, text=True,
                           timeout=300, check=False)
        assert r.returncode == 2, (db, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, (db, r.stderr)
        assert lines[0].startswith(f"fray run: error: --db {db}: ") and needle in lines[0], (
            db, lines[0])
        assert "still writing" not in lines[0], lines[0]
        assert r.stdout == ""
        assert sorted(p.name for p in tmp_path.rglob("*")) == before, db
        if contents is not None:
            assert Path(db).read_bytes() == contents
    with pytest.raises(SpecError, match="not a fray results file"):
        run_campaign(load_scenario(path), tmp_path / "table.csv", workers=1, progress="none")


def test_report_and_export_refuse_a_file_that_is_not_a_duckdb_database(tmp_path):
    bad = [(db, needle) for db, needle in _bad_dbs(tmp_path)
           if Path(db).exists() or str(db) in (":memory:", "sqlite:x.db")]
    bad.append((tmp_path / "afile", "not a fray results file (a text file"))
    for db, needle in bad:
        for command in (["report", str(db), "--out", str(tmp_path / "rep")],
                        ["export", str(db), "--out", str(tmp_path / "exp")]):
            r = subprocess.run([sys.executable, "-m", "fray", *command], capture_output=True,
                               text=True, timeout=300, check=False)
            assert r.returncode == 2, (command, r.stderr)
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and f"{db}: " in lines[0] and needle in lines[0], (
                command, r.stderr)
            assert "still writing" not in lines[0]


def test_only_a_file_another_process_holds_is_said_to_be_still_written(tmp_path, sampled):
    # The hint "is a campaign still writing it?" once ended every error of opening the
    # file, a folder or a CSV table included; now only DuckDB's lock held elsewhere gives it.
    db = copy_db(sampled[1].db, tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", ("import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                                "print('held', flush=True); time.sleep(60)"), str(db)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for read_only in (True, False):
            with pytest.raises(FrayError, match=r"another process holds it: is a campaign "
                               r"still writing it\?"):
                ResultsDB(db, read_only=read_only)
    finally:
        holder.kill()
        holder.wait()
    with ResultsDB(db, read_only=True) as r:
        assert r.studies()


def test_the_check_of_a_results_file_names_what_the_file_is(tmp_path):
    (tmp_path / "t.json").write_text('{"a": 1}')
    (tmp_path / "t.tsv").write_text("a\tb\n1\t2\n")
    (tmp_path / "s.db").write_bytes(b"SQLite format 3\0" + bytes(100))
    for name, what in (("t.json", "a JSON file"), ("t.tsv", "a TSV table"),
                       ("s.db", "a SQLite database")):
        with pytest.raises(SpecError, match=f"--db {tmp_path / name}: not a fray results "
                           f"file \\({what}, not a DuckDB database\\)"):
            check_results_file(tmp_path / name, "--db", writing=True)
        with pytest.raises(SpecError, match=what):
            check_results_file(tmp_path / name, writing=False)
    assert check_results_file(tmp_path / "sub" / "new.duckdb", writing=True) == (
        tmp_path / "sub" / "new.duckdb")
    with pytest.raises(SpecError, match="no such results file"):
        check_results_file(tmp_path / "new.duckdb", writing=False)
