"""Running a campaign: the same tasks on a local Dask cluster or on an existing one.

The driver plans the study (checking every point), skips the tasks the results file already
holds, submits the others to Dask and writes each task's rows as it finishes, from this one
process. Locally it starts a ``LocalCluster`` of single-threaded worker processes, one per
core by default; ``scheduler="tcp://HOST:PORT"`` sends the same tasks to an existing cluster.
Either way the code path is the same, and so are the rows: seeds come from the scenario and
the task, never from the worker or the clock.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from fray import FrayError, SpecError
from fray.campaign.db import ResultsDB, check_results_file
from fray.campaign.limits import MAX_WORKERS_PER_CORE, max_workers
from fray.campaign.progress import Progress
from fray.campaign.scenario import Scenario, load_scenario
from fray.campaign.tasks import Plan, execute, make_plan

__all__ = ["RunResult", "check_db", "check_target", "connect", "log_path", "run_campaign"]

_ADDRESS = re.compile(r"^(tcp|tls|ucx|inproc)://\S+$")


@dataclass(frozen=True)
class RunResult:
    """What a run did: tasks in the plan, skipped (already written) and run now."""

    name: str
    db: Path
    scenario_hash: str
    tasks: int
    skipped: int
    ran: int
    wall_s: float


def check_target(workers: int | None, scheduler: str | None) -> None:
    """``SpecError`` unless at most one of ``workers`` (from 1 to
    :func:`~fray.campaign.limits.max_workers`) and ``scheduler`` (an address) is given."""
    if scheduler is not None:
        if workers is not None:
            raise SpecError("workers: give either --workers or --scheduler, not both")
        if not _ADDRESS.match(scheduler):
            raise SpecError(f"scheduler: expected an address such as tcp://HOST:PORT, got "
                            f"{scheduler!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise SpecError(f"workers: expected a positive whole number, got {workers}")
    if workers is not None and workers > max_workers():
        shown = workers if workers < 10**12 else f"{workers:.3e}"
        raise SpecError(f"workers: at most {max_workers()} local worker processes on this "
                        f"machine ({MAX_WORKERS_PER_CORE} per core), got {shown}")


def check_db(db: str | Path, field: str = "db") -> Path:
    """``db`` as a ``Path`` when a run can write its results there (a DuckDB results file,
    or a new one in a folder that takes it) and its log beside it (:func:`log_path`);
    otherwise a ``SpecError`` naming ``field`` (the option) and what is wrong. Checked before
    the scenario is planned, so that no task runs for results that could not be kept."""
    path = check_results_file(db, field, writing=True)
    log = log_path(path)
    if log == path:
        raise SpecError(f"{field} {path}: a run writes its log to RESULTS.log beside the "
                        f"results file, which would be this file; give a name such as "
                        f"{path.with_suffix('.duckdb')}")
    if log.is_dir():
        raise SpecError(f"{field} {path}: the run's log {log} is a folder")
    if log.exists() and not os.access(log, os.W_OK):
        raise SpecError(f"{field} {path}: the run's log {log} exists and cannot be written")
    return path


@contextmanager
def connect(workers: int | None = None, scheduler: str | None = None) -> Iterator:
    """A Dask client: on the cluster at ``scheduler``, or on a new ``LocalCluster`` of
    ``workers`` single-threaded processes (default: one per core), closed afterwards."""
    from distributed import Client, LocalCluster

    check_target(workers, scheduler)
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise FrayError(f"scheduler {scheduler}: cannot connect ({exc})") from None
        try:
            yield client
        finally:
            client.close()
        return
    # One task per core: each worker is one thread, and the Rust core inside it one thread
    # too (RAYON_NUM_THREADS), so N workers keep N cores busy without oversubscribing them.
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=":0",
                           silence_logs=logging.ERROR, env={"RAYON_NUM_THREADS": "1"})
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def run_campaign(
    scenario: Scenario | str | Path,
    db: str | Path = "results.duckdb",
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    replace: bool = False,
    progress: str = "auto",
    stream: TextIO | None = None,
) -> RunResult:
    """Runs the tasks of ``scenario`` (a file or a :class:`Scenario`) that ``db`` does not
    hold yet, and writes their rows to it as they finish.

    ``progress`` is ``"auto"`` (a bar on a terminal, a line per task otherwise), ``"bar"``,
    ``"lines"`` or ``"none"``. Raises ``SpecError`` for a bad scenario, or a study of the same
    name from another scenario in ``db`` (unless ``replace``, which drops the old rows)."""
    check_target(workers, scheduler)
    check_db(db)
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    plan = make_plan(scenario)
    start = time.perf_counter()
    with ResultsDB(db) as results:
        results.register(plan, replace=replace)
        done = results.done_keys(scenario.name)
        pending = [t for t in plan.tasks if t.key not in done]
        if pending:
            _run(plan, pending, results, workers, scheduler, progress, stream)
    return RunResult(name=scenario.name, db=Path(db), scenario_hash=scenario.hash,
                     tasks=len(plan.tasks), skipped=len(plan.tasks) - len(pending),
                     ran=len(pending), wall_s=time.perf_counter() - start)


def log_path(db: str | Path) -> Path:
    """Where a run on the results file ``db`` writes what Dask and its workers print: the
    file beside it with the suffix ``.log`` (``results.duckdb`` -> ``results.log``)."""
    return Path(db).with_suffix(".log")


@contextmanager
def _stderr_to(path: Path) -> Iterator[TextIO]:
    """Points this process's standard error (file descriptor 2, which the worker processes
    it starts inherit) at the end of ``path`` for the block, so that Dask's and tornado's
    tracebacks go there and not to the terminal; yields a stream on the terminal's standard
    error for what the person should see (the progress bar)."""
    import sys

    sys.stderr.flush()
    saved = os.dup(2)
    terminal = os.fdopen(os.dup(2), "w", buffering=1)
    with open(path, "a", encoding="utf-8") as log:
        print(f"--- fray run, {time.strftime('%Y-%m-%d %H:%M:%S')}", file=log, flush=True)
        os.dup2(log.fileno(), 2)
        try:
            yield terminal
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            terminal.close()


def _run(plan: Plan, pending: list, results: ResultsDB, workers: int | None,
         scheduler: str | None, progress: str, stream: TextIO | None) -> None:
    from distributed import as_completed

    s = plan.scenario
    done_weight = plan.total_weight - sum(t.weight for t in pending)
    labels = {p.index: p.label for p in plan.points}
    bar = None
    interrupted = _CtrlC()
    log = log_path(results.path)
    try:
        with _stderr_to(log) as terminal, connect(workers, scheduler) as client:
            # The clock of the estimate starts once workers are up.
            bar = Progress(s.name, len(plan.tasks), len(plan.tasks) - len(pending),
                           plan.total_weight, done_weight, progress, stream or terminal)
            futures = {client.submit(execute, t, key=f"fray-{s.name}-{s.hash}-{t.key}",
                                     retries=0): t for t in pending}
            try:
                # Every task finished since the last write goes in one transaction.
                arrivals = as_completed(futures, with_results=True, raise_errors=False)
                for batch in _batches(arrivals, interrupted):
                    finished, failed = [], None
                    for future, result in batch:
                        task = futures.pop(future)
                        if future.status == "error":
                            failed = failed or (task, result[1])
                        else:
                            finished.append((task, result))
                    results.write_many(s.name, s.hash, [(t.key, c) for t, c in finished])
                    for task, _ in finished:
                        bar.update(task.weight)
                    if failed:
                        task, exc = failed
                        where = (f" at sweep point {task.point} ({labels[task.point]})"
                                 if labels[task.point] else "")
                        raise FrayError(f"task {task.key}{where} failed: "
                                        f"{type(exc).__name__}: {exc} (details in {log})"
                                        ) from exc
            finally:
                if futures:
                    client.cancel(list(futures))
    finally:
        interrupted.restore()
        if bar is not None:
            bar.close()


def _batches(arrivals, interrupted: _CtrlC) -> Iterator[list]:
    """The finished (future, result) pairs of ``arrivals`` (a Dask ``as_completed``), in
    batches, until every future has finished. Polls every 0.1 s rather than blocking, so
    that a Ctrl-C whose KeyboardInterrupt was not raised (see :class:`_CtrlC`) still stops
    the run."""
    while True:
        if interrupted.seen:
            raise KeyboardInterrupt
        batch = arrivals.next_batch(block=False)
        if batch:
            yield batch
        elif arrivals.is_empty():
            return
        else:
            time.sleep(0.1)


class _CtrlC:
    """Remembers a Ctrl-C during a run. Its KeyboardInterrupt is raised at once, except
    inside a finalizer (a Dask future's ``__del__``), where Python would print it as an
    ignored exception with a traceback and go on; there the handler only sets ``seen``, which
    the runner's wait loop checks. Installed only where Python's own handler is (the main
    thread, SIGINT not ignored)."""

    def __init__(self) -> None:
        self.seen = False
        self.previous = None
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self.previous = signal.signal(signal.SIGINT, self._on_sigint)

    def _on_sigint(self, signum, frame) -> None:
        self.seen = True
        if not _in_finalizer(frame):
            raise KeyboardInterrupt

    def restore(self) -> None:
        """Puts the previous SIGINT handler back."""
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None


def _in_finalizer(frame) -> bool:
    """Whether ``frame`` runs inside a ``__del__`` method, at any depth."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False
