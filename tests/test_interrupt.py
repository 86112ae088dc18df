"""Ctrl-C stops a long run inside the core, not only once it has ended."""

import signal
import subprocess
import sys

# Ten minutes or more of packet simulation uninterrupted (about 8e7 packets); the run is
# stopped one second in and must be gone well before. After the stop, a short run in the
# same process goes to its end: the stop request does not outlive the call it stopped.
SCRIPT = """
import fray
fabric = fray.Fabric.parse("dragonfly:p=2,a=4,h=2,g=9")
print("running", flush=True)
try:
    fray.simulate(fabric, fray.Traffic(load=0.5, measure="50ms"))
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
short = fray.simulate(fabric, fray.Traffic(load=0.1, warmup="1us", measure="1us"))
print("short run", short.traffic.packets > 0, flush=True)
"""


def test_ctrl_c_stops_a_long_simulation_in_the_core():
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
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
