"""``fray.simulate``: one run of a workload spec, a phase of messages or traffic on any engine,
and one cell of a links table reproduced by one call."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import fray
import numpy as np
import pytest
from fray import SpecError

SMALL = "dragonfly:p=2,a=4,h=2,g=5"


class Spec:
    """An option object whose ``str()`` is its spec, as fray's typed option classes are."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def test_one_message_alone_takes_latency_plus_bytes_over_bandwidth():
    # One message between neighbours of a ring: injection, one router hop, ejection; every
    # link at the same rate, so the flow engine's time is three latencies and the bytes
    # over one link's bandwidth, and each of the three channels carries the message's bytes.
    fabric = fray.Fabric.parse("torus:4")
    size = 1e6
    r = fray.simulate(fabric, [(0, 1, size)], routing="dor", time_tolerance=0)
    path = fabric.route(0, 1, routing="dor")
    bw = fabric.channel(path[0])["bandwidth_bytes_s"]
    latency = sum(fabric.channel(c)["latency_s"] for c in path)
    assert len(path) == 3
    assert r.jobs[0].iteration_s == pytest.approx(latency + size / bw, rel=1e-12)
    assert sorted(np.flatnonzero(r.channel_bytes)) == sorted(path)
    assert (r.channel_bytes[path] == size).all()
    assert r.jobs[0].messages == 1 and r.jobs[0].ranks == fabric.num_endpoints
    assert r.throughput == pytest.approx(fabric.num_endpoints / r.jobs[0].iteration_s)


@pytest.mark.parametrize("engine", ["flow", "load", "packet"])
def test_a_spec_object_runs_as_its_string(engine):
    by_text = fray.simulate(SMALL, "halo3d26:jobs=2,nx=6,compute=no", engine=engine,
                            routing="ugal", seed=3)
    by_object = fray.simulate(SMALL, Spec("halo3d26:jobs=2,nx=6,compute=no"),
                              engine=Spec(engine), routing=Spec("ugal"), seed=3)
    assert by_text.iteration_s == by_object.iteration_s
    assert (by_text.channel_bytes == by_object.channel_bytes).all()
    assert by_text.engine.startswith(engine) and by_text.routing == "ugal"
    assert len(by_text.jobs) == 2
    ranks = [j.ranks for j in by_text.jobs]
    assert by_text.throughput == sum(n / t for n, t in zip(ranks, by_text.iteration_s,
                                                           strict=True))


def test_host_costs_as_an_option_equal_the_specs_own():
    spec = "halo3d26:nx=6,compute=no"
    apart = fray.simulate(SMALL, spec, host="ember", seed=2)
    inside = fray.simulate(SMALL, spec + ",host=ember", seed=2)
    bare = fray.simulate(SMALL, spec, seed=2)
    assert apart.iteration_s == inside.iteration_s
    assert apart.iteration_s[0] > bare.iteration_s[0]
    with pytest.raises(SpecError, match="host: given twice") as err:
        fray.simulate(SMALL, spec + ",host=ember", host="ember")
    assert err.value.field == "host"


def test_messages_run_on_every_engine_and_put_the_same_bytes_on_the_host_links():
    fabric = fray.Fabric.parse("torus:4x4")
    messages = [(0, 5, 2e5), (5, 0, 1e5), (3, 12, 3e5)]
    runs = {e: fray.simulate(fabric, messages, engine=e, routing="dor") for e in
            ("load", "flow", "packet")}
    host = slice(fabric.num_router_channels, None)
    for r in runs.values():
        assert r.jobs[0].bytes == 6e5 and r.jobs[0].messages == 3
        assert r.channel_bytes[host].sum() == 2 * 6e5
    # DOR is deterministic: the three engines put the same bytes on every channel.
    assert (runs["load"].channel_bytes == runs["flow"].channel_bytes).all()
    assert (runs["flow"].channel_bytes == runs["packet"].channel_bytes).all()
    with pytest.raises(SpecError, match="message 1"):
        fray.simulate(fabric, [(0, 1, 1.0), (0, 99, 1.0)])
    with pytest.raises(SpecError, match="message 0 is not"):
        fray.simulate(fabric, [(0, 1)])


def test_traffic_runs_on_the_packet_engine_with_the_virtual_channels_it_needs():
    r = fray.simulate("dragonfly:p=2,a=4,h=2,g=9", fray.Traffic(0.1, measure="10us"))
    assert r.vcs == 3 and r.jobs == () and r.throughput is None
    assert 0 < r.traffic.accepted <= 1.05 * r.traffic.offered
    again = fray.simulate("dragonfly:p=2,a=4,h=2,g=9", fray.Traffic(0.1, measure=10e-6))
    assert (again.traffic.accepted, again.traffic.packets) == (r.traffic.accepted,
                                                               r.traffic.packets)
    with pytest.raises(SpecError, match="traffic runs on the packet engine") as err:
        fray.simulate(SMALL, fray.Traffic(0.1), engine="flow")
    assert err.value.field == "engine"
    with pytest.raises(SpecError, match="load"):
        fray.simulate(SMALL, fray.Traffic(-1.0))


def test_the_result_reads_in_one_line():
    r = fray.simulate(SMALL, "halo3d26:jobs=2,nx=6,compute=no", routing="minimal")
    text = repr(r)
    assert text.startswith("SimulationResult(engine='flow', routing='minimal', seed=1")
    assert "halo3d26-0: 8 ranks" in text and "rank-iterations/s" in text
    assert "\n" not in text


def test_the_old_name_warns_and_gives_the_same_result():
    with pytest.warns(DeprecationWarning, match="fray.simulate"):
        old = fray.links.simulate(SMALL, "halo3d26:nx=6", None, None, "load", 4)
    new = fray.simulate(SMALL, "halo3d26:nx=6", engine="load", seed=4)
    assert old.iteration_s == new.iteration_s
    with pytest.warns(DeprecationWarning, match=r"job.bytes now"):
        assert new.jobs[0]["bytes"] == new.jobs[0].bytes
    with pytest.raises(KeyError):
        new.jobs[0]["size"]


@pytest.mark.parametrize("engine", ["flow", "packet"])
def test_one_cell_of_a_links_table_is_one_simulate_call(engine, tmp_path):
    # The study's 20 % cell for 2 jobs with one seed: its throughput is the throughput of
    # the case, which fray.simulate reruns from the case's faults (as save_faults writes
    # them) and the seed the study gave that seed number, bit for bit.
    fabric = fray.Fabric.parse(SMALL)
    workload = "halo3d26:nx=6,compute=no"
    table = fray.links.study(fabric, workload, jobs=[2], failed_pct=[20], seeds=1, seed=7,
                             engine=engine, save_faults=str(tmp_path / "f{failed}-r{replica}"))
    cell = table.set_index(["jobs", "failed_pct"]).loc[(2, 20.0)]
    faults = fray.Faults(fabric)
    assert faults.fail_file(str(tmp_path / "f20-r0")) > 0
    seed = table.attrs["replica_seeds"][0]
    kwargs = {"engine": engine, "seed": seed,
              "time_tolerance": fray.links.DEFAULT_TIME_TOLERANCE,
              "time_resolution": fray.links.DEFAULT_TIME_RESOLUTION_S}
    r = fray.simulate(fabric, workload + ",jobs=2", faults=faults, **kwargs)
    base = fray.simulate(fabric, workload + ",jobs=2", **kwargs)
    assert r.throughput == cell["throughput"]
    assert base.throughput == cell["baseline_throughput"]
    assert 100 * (1 - r.throughput / base.throughput) == cell["degradation_pct"]
    # Another seed is another layout and routing: the cell's bytes go elsewhere.
    other = fray.simulate(fabric, workload + ",jobs=2", faults=faults,
                          **(kwargs | {"seed": seed + 1}))
    assert other.channel_bytes.tolist() != r.channel_bytes.tolist()


STUDY = """
import json, fray
t = fray.links.study("dragonfly:p=2,a=4,h=2,g=5", "halo3d26:nx=6,compute=no", jobs=[1, 2],
                     failed_pct=[10, 30], seeds=3, seed=5)
s = fray._fray.LinksStudy(fray.Fabric.parse("torus:4x4"), "halo3d26", "dor", "router", [1],
                          [5.0], 1, 1, 1e-3)
print(json.dumps({"chunk": s.chunk_len, "table": t.to_dict("list")}))
"""


def test_a_study_gives_the_same_table_on_one_thread_and_on_two():
    out = {}
    for threads in (1, 2):
        env = os.environ | {"RAYON_NUM_THREADS": str(threads)}
        run = subprocess.run([sys.executable, "-c", STUDY], env=env, capture_output=True,
                             text=True, check=True)
        out[threads] = json.loads(run.stdout)
    # A chunk holds four cases per thread, so every core has work in every call.
    assert (out[1]["chunk"], out[2]["chunk"]) == (4, 8)
    assert out[1]["table"] == out[2]["table"]
    assert len(out[1]["table"]["jobs"]) == 6


def test_a_profile_sets_what_a_phase_of_messages_does_not_name():
    sst = fray.profiles.SST
    messages = [(0, 9, 1e5), (9, 0, 1e5)]
    r = fray.simulate(SMALL, messages, profile="sst")
    assert (r.engine, r.routing) == (str(sst.engine), str(sst.routing))
    # The profile's host costs are charged: the same run without them is faster.
    bare = fray.simulate(fray.Fabric.parse(SMALL, bandwidth_bytes_s=sst.link_bandwidth_bytes_s),
                         messages, routing=sst.routing, engine=sst.engine)
    assert bare.iteration_s[0] < r.iteration_s[0]
    with pytest.raises(SpecError, match="workload: give"):
        fray.simulate(SMALL, None)


def test_the_load_engine_reports_where_a_phase_goes_through_simulate():
    # static_load is simulate on the load engine: the same report, and the phase's time
    # (no host costs) is the job's iteration time; the other engines report no loads.
    fabric = fray.Fabric.parse("dragonfly:p=2,a=4,h=2,g=9")
    faults = fray.Faults.fail_links(fabric, cls="global", fraction=0.3, seed=1)
    messages = [(src, (src + 17) % 72, 65536.0) for src in range(72)]
    run = fray.simulate(fabric, messages, faults=faults, routing="ugal", engine="load", seed=4)
    report = fray.static_load(fabric, messages, routing="ugal", faults=faults, seed=4)
    (load,) = run.loads
    assert load.routes.tolist() == report.routes.tolist()
    assert load.bytes.tolist() == report.bytes.tolist() == run.channel_bytes.tolist()
    assert run.jobs[0].iteration_s == load.phase_time_s == report["phase_time_s"]
    assert load.max_routes == load.routes.max()
    assert load.max_network_routes == load.routes[:fabric.num_router_channels].max()
    assert sum(load.histogram) == fabric.num_router_channels
    # Every message crosses its injection and ejection channel once.
    host = load.routes[fabric.num_router_channels:]
    assert host.sum() == 2 * len(messages)
    assert fray.simulate(fabric, messages, faults=faults, routing="ugal").loads == ()
    stencil = fray.stencil_load("torus:4x4", "5P", False, 1e6)
    assert stencil.total_hops == 48 and stencil.max_network_routes == 1
