"""The SimGrid peers: the same 7P halo exchange simulated by SimGrid 3.32, so that wall time
and predicted phase time can be set beside fray's ``load-stencil``; and the same message list
on SimGrid's max-min model, beside fray's flow engine (``flow-peer``), message by message:
on a torus SimGrid's own torus zone, elsewhere fray's channels and routes given to SimGrid one
by one (``peers/simgrid_routes.py``).

SimGrid comes from Debian's ``python3-simgrid``, which installs for the system Python only,
so ``peers/simgrid_stencil.py`` runs as a subprocess of ``/usr/bin/python3``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import scenarios
from result import Result
from timing import measure, summary

SYSTEM_PYTHON = "/usr/bin/python3"
SCRIPT = Path(__file__).parent / "peers" / "simgrid_stencil.py"
MESSAGES_SCRIPT = Path(__file__).parent / "peers" / "simgrid_messages.py"
ROUTES_SCRIPT = Path(__file__).parent / "peers" / "simgrid_routes.py"


def unavailable() -> str | None:
    """Why the peer cannot run, or None when it can."""
    try:
        subprocess.run(
            [SYSTEM_PYTHON, "-c", "import simgrid"], capture_output=True, check=True, timeout=60
        )
    except FileNotFoundError:
        return f"{SYSTEM_PYTHON} not found"
    except subprocess.CalledProcessError:
        return "SimGrid is not installed for the system Python (apt-get install python3-simgrid)"
    except subprocess.TimeoutExpired:
        return "importing simgrid timed out"
    return None


def simgrid_stencil(fabric: str, size_bytes: float, model: str, repeat: int) -> Result:
    """Runs the SimGrid exchange on ``fabric`` (a torus spec, e.g. ``"torus:12x12x12"``)
    ``repeat`` times.

    The runs' wall and CPU times are the subprocess's (interpreter start-up included);
    ``simgrid_wall_s`` is the time SimGrid itself spent loading the platform and simulating,
    the number to compare with fray's in-process time.
    """
    args = [*_torus_args(SCRIPT, fabric), "--size-bytes", repr(size_bytes), "--model", model]
    runs, last, simgrid_wall_s = _peer_runs(args, None, repeat)
    return Result(
        scenario="simgrid-stencil",
        case=f"{fabric} 7P periodic, {size_bytes:g} B/msg, SimGrid {model}",
        runs=runs,
        work=last["messages"],
        work_unit="messages",
        extra={
            "fabric": fabric,
            "model": model,
            "simgrid_version": last["simgrid_version"],
            "config": last["config"],
            "phase_time_s": last["phase_time_s"],
            "simgrid_wall_s": simgrid_wall_s,
        },
    )


def simgrid_flow(
    fabric: str,
    workload: str,
    messages: list,
    bandwidth_bytes_s: float,
    latency_s: float,
    repeat: int,
) -> Result:
    """Runs one phase of ``messages`` (``(src, dst, bytes)`` over the hosts of the torus
    ``fabric``) on SimGrid's plain max-min model ``repeat`` times (see
    ``peers/simgrid_messages.py``); every torus link has ``bandwidth_bytes_s`` and
    ``latency_s``. Times and results as in :func:`_flow_runs`."""
    args = [
        *_torus_args(MESSAGES_SCRIPT, fabric),
        "--bandwidth-bytes-s",
        repr(bandwidth_bytes_s),
        "--latency-s",
        repr(latency_s),
    ]
    label = f"{fabric} {workload}, {len(messages)} messages, {latency_s * 1e9:g} ns/hop, SimGrid"
    return _flow_runs(args, json.dumps(messages), label, fabric, workload, latency_s, repeat)


def simgrid_routes(
    fabric: str, workload: str, messages: list, latency_s: float, repeat: int
) -> Result:
    """Runs one phase of ``messages`` (``(src, dst, bytes)`` over the endpoints of
    ``fabric``) on fray's own channels, every one at ``latency_s``, and fray's own routes
    (``scenarios.explicit_platform``) on SimGrid's plain max-min model ``repeat`` times (see
    ``peers/simgrid_routes.py``). Times and results as in :func:`_flow_runs`."""
    platform = json.dumps(scenarios.explicit_platform(fabric, messages, latency_s))
    label = (
        f"{fabric} {workload}, {len(messages)} messages, {latency_s * 1e9:g} ns/hop,"
        " SimGrid on fray's routes"
    )
    args = [SYSTEM_PYTHON, str(ROUTES_SCRIPT)]
    return _flow_runs(args, platform, label, fabric, workload, latency_s, repeat)


def _flow_runs(
    args: list[str],
    stdin: str,
    case: str,
    fabric: str,
    workload: str,
    latency_s: float,
    repeat: int,
) -> Result:
    """Runs the messages peer ``args`` with ``stdin`` ``repeat`` times as the ``simgrid-flow``
    scenario's ``case``. Runs' wall and CPU times are the subprocess's; ``simgrid_wall_s`` is
    the time SimGrid spent building the platform and simulating (seconds). The last run's
    makespan and per-message completion times (simulated seconds) go in ``extra``."""
    runs, last, simgrid_wall_s = _peer_runs(args, stdin, repeat)
    return Result(
        scenario="simgrid-flow",
        case=case,
        runs=runs,
        work=last["messages"],
        work_unit="messages",
        extra={
            "fabric": fabric,
            "workload": workload,
            "latency_s": latency_s,
            "simgrid_version": last["simgrid_version"],
            "config": last["config"],
            "makespan_s": last["makespan_s"],
            "completion_s": last["completion_s"],
            "simgrid_wall_s": simgrid_wall_s,
        },
    )


def _torus_args(script: Path, fabric: str) -> list[str]:
    """The command line of the torus peer ``script`` on the torus spec ``fabric``: the system
    Python, the script and its ``--dims``."""
    return [SYSTEM_PYTHON, str(script), "--dims", ",".join(map(str, scenarios.torus_dims(fabric)))]


def _peer_runs(args: list[str], stdin: str | None, repeat: int) -> tuple[list, dict, dict]:
    """Runs the peer ``args`` with ``stdin`` (none when ``None``) ``repeat`` times. Returns the
    runs' wall and CPU times (the subprocess's, interpreter start-up included), the last run's
    report and ``simgrid_wall_s``: the summary of the time SimGrid itself spent building the
    platform and simulating in each run (seconds)."""
    reports: list[dict] = []

    def run() -> None:
        done = subprocess.run(args, input=stdin, check=False, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"SimGrid peer exited {done.returncode}: {done.stderr[-2000:]}")
        reports.append(json.loads(done.stdout))

    runs, _ = measure(run, repeat)
    wall = summary([r["build_wall_s"] + r["simulate_wall_s"] for r in reports])
    return runs, reports[-1], wall
