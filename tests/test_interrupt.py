"""Ctrl-C stops a long run inside the core, not only once it has ended."""

import signal
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"

# Each script runs something that takes ten minutes or more uninterrupted; it is stopped one
# second in and must be gone well before. After the stop, a short run in the same process
# goes to its end: the stop request does not outlive the call it stopped.
TEMPLATE = """
import fray, fray.health, fray.packet, fray.spares
print("running", flush=True)
try:
    {long}
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
print("short run", {short}, flush=True)
"""

RUNS = {
    # About 8e7 packets.
    "packet simulation": (
        'fray.simulate("dragonfly:p=2,a=4,h=2,g=9", fray.Traffic(load=0.5, measure="50ms"))',
        ('fray.simulate("dragonfly:p=2,a=4,h=2,g=9", fray.Traffic(load=0.1, warmup="1us", '
         'measure="1us")).traffic.packets > 0')),
    # One iteration of 10 GB messages on the packet engine (about an hour): a few messages
    # whose packets are many events each, with no message ending for minutes.
    "packet engine, large messages": (
        'fray.simulate("dragonfly:p=2,a=4,h=2,g=9", "uniform:size=1e10", engine="packet")',
        ('fray.simulate("dragonfly:p=2,a=4,h=2,g=9", "uniform:size=1e4", engine="packet")'
         '.iteration_s[0] > 0')),
    # Ten million allreduces of about 0.2 ms each on the paper's 1,728-node tree.
    "fabric collective": (
        ('fray.packet.collective("xgft:3;24,12,6;1,12,6", ["none"], ["ber:1e-9"], '
         'ops=10_000_000)'),
        'len(fray.packet.collective("xgft:2;4,4;1,4", ["none"], ["none"], ops=10)[0]) == 1'),
    # A million failure sequences on the paper's largest torus (about 50 minutes), in one
    # call to the core.
    "spare-node study": (
        'fray.spares.study("torus:24x24x24", "3D(2,1)", "hybrid(all)", samples=1_000_000)',
        ('fray.spares.study("torus:8x8x8", "3D(2,1)", "hybrid(all)", samples=20)["cases"][1] '
         '== 20')),
    # Every set of up to three failures on a 40x40 mesh (5.9e8 sets, about an hour), in
    # one call to the core.
    "exhaustive spare-node study": (
        ('fray.spares.study("mesh:40x40", "2D(2,1)", "hybrid(all)", exhaustive=True, '
         'max_failures=3)'),
        ('fray.spares.study("mesh:7x7", "2D(2,1)", "1D", exhaustive=True, '
         'max_failures=2)["cases"][2] == 630')),
    # Two workloads' repair plans over 100,000 seeds each, on threads of their own, where
    # the signal does not reach: the thread that catches it stops them.
    "runs on other threads": (
        (f'fray.health.cost_now("{DATA / "x5.topofile"}", "{DATA / "x5_down.txt"}", '
         '["halo3d26", "alltoall"], seeds=100_000)'),
        'fray.simulate("torus:4x4", "halo3d26:nx=2").iteration_s[0] > 0'),
}


@pytest.mark.parametrize("name", RUNS)
def test_ctrl_c_stops_a_long_run_in_the_core(name):
    long, short = RUNS[name]
    script = TEMPLATE.format(long=long, short=short)
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509 (no threads yet)
    try:
        assert proc.stdout.readline() == "running\n"
        try:  # the simulation has started (or is about to): interrupt it
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
        # A hang check, not a timing: uninterrupted, the run takes ten minutes or more.
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out == "interrupted\nshort run True\n", (out, err)
