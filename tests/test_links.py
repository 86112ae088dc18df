"""The failed-links study and ``fray.simulate`` as a user runs them."""

import math
from pathlib import Path

import fray
import pytest
from fray import Fabric, Faults, SpecError, UnroutableError, links
from fray._fray import host_costs
from fray.cli import main
from fray.store import read_table

SMALL = "dragonfly:p=2,a=4,h=2,g=9"


@pytest.mark.parametrize("engine", ["flow", "packet"])
def test_simulate_one_message_matches_the_closed_form(engine):
    # Uniform traffic of one 1 MB message per rank on 2 ranks of a 4x4 torus: each message
    # has its own host links, so it takes latency + bytes over the host bandwidth (the
    # packet engine adds per-packet pipelining, well under 1 %).
    fabric = Fabric.parse("torus:4x4")
    r = fray.simulate(fabric, "uniform:budget=2,size=1000000", seed=3, engine=engine)
    assert r.engine == engine and r.routing == "dor-retry"
    host = fabric.channel(fabric.num_router_channels)
    t = r.iteration_s[0]
    assert 1e6 / host["bandwidth_bytes_s"] < t < 1e6 / host["bandwidth_bytes_s"] * 1.01


def test_load_engine_is_an_estimate_on_the_same_inputs():
    flow = fray.simulate(SMALL, "halo3d26:jobs=2,nx=8,compute=no", engine="flow")
    load = fray.simulate(SMALL, "halo3d26:jobs=2,nx=8,compute=no", engine="load")
    assert load.engine == "load"
    assert [j.ranks for j in flow.jobs] == [j.ranks for j in load.jobs] == [27, 27]
    assert [j.bytes for j in flow.jobs] == [j.bytes for j in load.jobs]
    # Both put each message's bytes on its endpoints' host channels once.
    fabric = Fabric.parse(SMALL)
    host = slice(fabric.num_router_channels, fabric.num_channels)
    assert len(flow.channel_bytes) == len(load.channel_bytes) == fabric.num_channels
    assert (flow.channel_bytes[host] == load.channel_bytes[host]).all()
    assert flow.channel_bytes[host].sum() > 0
    for f, s in zip(flow.iteration_s, load.iteration_s, strict=True):
        assert 0.5 * f < s < 2 * f


def test_lqcd_rendezvous_sends_wait_for_their_receivers():
    # Ember's LQCD sends one message after another and, above the eager limit, each waits
    # for its receiver: the + sends unwind one rank at a time, so with no compute the
    # iteration takes longer than with every send eager; the bytes are the same.
    ember = fray.simulate(SMALL, "lqcd:compute=no", seed=2)
    eager = fray.simulate(SMALL, "lqcd:compute=no,short_msg_length=1e12", seed=2)
    assert ember.jobs[0].bytes == eager.jobs[0].bytes
    assert ember.iteration_s[0] > 1.2 * eager.iteration_s[0]
    with pytest.raises(SpecError, match="short_msg_length"):
        fray.simulate(SMALL, "lqcd:short_msg_length=-1")


def test_packet_engine_options_and_adaptive_ugal_are_read_back():
    # The packet engine's options change what runs (bigger packets pay fewer per-packet
    # hops, so the time moves) and come back in the result as given; merlin's UGAL routes
    # the same bytes.
    spec = "halo3d26:nx=8,compute=no"
    small = fray.simulate(SMALL, spec, engine="packet", seed=4)
    big = fray.simulate(SMALL, spec, engine="packet:mtu=2048,buffer=16384", seed=4)
    assert big.engine == "packet:mtu=2048,buffer=16384"
    assert big.jobs[0].bytes == small.jobs[0].bytes
    assert big.iteration_s[0] != small.iteration_s[0]
    merlin = fray.simulate(SMALL, spec, engine="packet:route=packet",
                           routing="ugal:links=adaptive,threshold=800", seed=4)
    assert merlin.routing == "ugal:links=adaptive,threshold=800"
    assert merlin.jobs[0].bytes == small.jobs[0].bytes
    capped = fray.simulate(SMALL, spec, engine="packet:route=packet,queue=output,queue_cap=512",
                           routing="ugal:links=adaptive,threshold=800", seed=4)
    assert capped.engine == "packet:route=packet,queue=output,queue_cap=512"
    assert capped.jobs[0].bytes == small.jobs[0].bytes
    credits = fray.simulate(SMALL, spec, engine="packet:route=packet,queue=output",
                            routing="ugal:credits=32768", seed=4)
    assert credits.routing == "ugal:credits=32768"
    assert credits.jobs[0].bytes == small.jobs[0].bytes
    # A NIC that sets up each message in turn makes the same exchange slower.
    nic = fray.simulate(SMALL, spec, engine="packet:nic_setup=545ns", seed=4)
    assert nic.engine == "packet:nic_setup=545ns"
    assert nic.jobs[0].bytes == small.jobs[0].bytes
    assert nic.iteration_s[0] > small.iteration_s[0] + 545e-9
    with pytest.raises(SpecError, match="nic_setup"):
        fray.simulate(SMALL, spec, engine="packet:nic_setup=fast")
    with pytest.raises(SpecError, match="takes factor=F, not threshold="):
        fray.simulate(SMALL, spec, routing="ugal:credits=32768,threshold=800")
    with pytest.raises(SpecError, match="queue must be downstream or output"):
        fray.simulate(SMALL, spec, engine="packet:queue=remote")
    with pytest.raises(SpecError, match="mtu must be a whole number"):
        fray.simulate(SMALL, spec, engine="packet:mtu=2k")
    with pytest.raises(SpecError, match="must hold at least one packet"):
        fray.simulate(SMALL, spec, engine="packet:mtu=8192")
    with pytest.raises(SpecError, match="links must be random or adaptive"):
        fray.simulate(SMALL, spec, routing="ugal:links=best")


def test_failures_and_unroutable_pairs_surface():
    fabric = Fabric.parse("hyperx:4x4,t=2")
    faults = Faults(fabric)
    faults.fail_random("router", 0.9, 1)
    with pytest.raises(UnroutableError):
        fray.simulate(fabric, "uniform", faults=faults, routing="doal")
    with pytest.raises(SpecError, match="unknown engine"):
        fray.simulate(fabric, "uniform", engine="packets")
    with pytest.raises(SpecError, match="unknown option \"kba\""):
        fray.simulate(fabric, "halo3d26:kba=2")


def test_study_table_is_reproducible_and_baselines_are_zero():
    kw = {"jobs": [1, 4], "failed_pct": [0, 20], "seeds": 3, "seed": 5}
    a = links.study(SMALL, "halo3d26:nx=8", **kw)
    b = links.study(SMALL, "halo3d26:nx=8", **kw)
    assert a.equals(b)
    assert list(a.columns[:6]) == [
        "jobs",
        "failed_pct",
        "degradation_pct",
        "degradation_ci_pct",
        "unroutable",
        "seeds",
    ]
    base = a[a["failed_pct"] == 0]
    assert (base["degradation_pct"] == 0).all()
    assert a.attrs["fail"] == "global" and a.attrs["routing"] == "ugal"
    failed = a[a["failed_pct"] == 20]
    # Degradation is the loss of throughput: 1 - sum(ranks / failed time) / same at baseline;
    # with equal jobs that is 1 - mean(1/t) / mean(1/t0), close to the ratio of mean times.
    for _, row in failed.iterrows():
        approx = 100 * (1 - row["baseline_iteration_s"] / row["iteration_s"])
        assert math.isclose(row["degradation_pct"], approx, abs_tol=0.5)


def test_case_loads_is_the_study_case_channel_by_channel():
    kw = {"routing": "ugal", "seed": 5}
    table = links.study(SMALL, "halo3d26:nx=8", jobs=[1], failed_pct=[0, 30], seeds=2, **kw)
    cell = table[table["failed_pct"] == 30].iloc[0]
    cases = [links.case_loads(SMALL, "halo3d26:nx=8", jobs=1, failed_pct=30, replica=r, **kw)
             for r in (0, 1)]
    # The same cases as the study's: the table's means are the means of these two seeds.
    mean = sum(c.attrs["iteration_s"][0] for c in cases) / 2
    base = sum(c.attrs["baseline_iteration_s"][0] for c in cases) / 2
    assert math.isclose(cell["iteration_s"], mean, rel_tol=1e-12)
    assert math.isclose(cell["baseline_iteration_s"], base, rel_tol=1e-12)
    # Throughput is the one job's ranks over its time per iteration, averaged over the seeds.
    rate = sum(1 / c.attrs["iteration_s"][0] for c in cases) / 2
    base_rate = sum(1 / c.attrs["baseline_iteration_s"][0] for c in cases) / 2
    ranks = round(cell["baseline_throughput"] / base_rate)
    assert ranks > 1 and round(ranks ** (1 / 3)) ** 3 == ranks
    assert math.isclose(cell["baseline_throughput"], ranks * base_rate, rel_tol=1e-12)
    assert math.isclose(cell["throughput"], ranks * rate, rel_tol=1e-12)
    loads = cases[0]
    fabric = Fabric.parse(SMALL)
    assert len(loads) == fabric.num_channels
    # Failures move bytes between cables but every message still leaves and enters its
    # endpoints once: the host channels carry the same bytes.
    host = loads[loads["cls"] == "host"]
    assert host["bytes"].sum() == host["baseline_bytes"].sum() > 0
    assert (loads["busy_s"] == loads["bytes"] / loads["bandwidth_bytes_s"]).all()
    # 30 % of the global cables are down, both directions: they carry nothing in the case.
    glob = loads[loads["cls"] == "global"]
    assert glob["down"].sum() == 2 * round(0.3 * len(glob) / 2)
    assert (glob.loc[glob["down"], "bytes"] == 0).all()
    assert (glob.loc[glob["down"], "baseline_bytes"] > 0).any()
    assert not loads.loc[loads["cls"] != "global", "down"].any()
    top = links.busiest_cables(loads, fabric, top=4, cls="global")
    assert list(top["bytes"]) == sorted(glob["bytes"], reverse=True)[:4]
    assert all(top["name"].str.match(r"g\d+r\d+->g\d+r\d+")) and set(top["cls"]) == {"global"}
    by_class = links.loads_by_class(loads)
    assert by_class.loc["global", "busiest_bytes"] == glob["bytes"].max()
    assert by_class.loc["host", "total_bytes"] == host["bytes"].sum()
    with pytest.raises(SpecError, match="unknown channel class 'optical'"):
        links.busiest_cables(loads, fabric, cls="optical")
    healthy = links.case_loads(SMALL, "halo3d26:nx=8", jobs=1, failed_pct=0, **kw)
    assert (healthy["bytes"] == healthy["baseline_bytes"]).all() and not healthy["down"].any()


def test_cli_cables_shows_the_busiest_channels_and_writes_them(tmp_path, capsys):
    out = tmp_path / "loads.csv"
    rc = main(["links", "--fabric", SMALL, "--nx", "8", "--jobs", "1", "--failed", "30",
               "--cables", "3", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "30 % of the global cables failed (11 cables)" in text
    assert "the 3 busiest channels:" in text
    table = read_table(out)
    assert len(table) == Fabric.parse(SMALL).num_channels
    assert {"channel", "cls", "bytes", "baseline_bytes", "busy_s", "down"} <= set(table.columns)
    assert table["down"].sum() == 22


def test_cables_already_down_cost_the_zero_row_against_a_healthy_baseline(tmp_path, capsys):
    # Two global cables of group 0 are down on the machine as it is.
    down = tmp_path / "down.txt"
    down.write_text("# down since Monday\ng0r0->g1r0\ng2r0->g0r0  # either direction\n")
    kw = {"jobs": [1], "failed_pct": [0, 20], "seeds": 2, "seed": 5}
    healthy = links.study(SMALL, "halo3d26:nx=8", **kw)
    now = links.study(SMALL, "halo3d26:nx=8", down=down, **kw)
    assert now.attrs["down"] == str(down)
    assert list(now["baseline_iteration_s"]) == list(healthy["baseline_iteration_s"])
    zero = now[now["failed_pct"] == 0].iloc[0]
    assert zero["degradation_pct"] > 0 and zero["iteration_s"] > zero["baseline_iteration_s"]
    loads = links.case_loads(SMALL, "halo3d26:nx=8", jobs=1, failed_pct=20, seed=5, down=down)
    fabric = Fabric.parse(SMALL)
    named = {fabric.channel(int(c))["name"] for c in loads.index[loads["down"]]}
    assert {"g0r0->g1r0", "g1r0->g0r0", "g0r0->g2r0", "g2r0->g0r0"} <= named
    # 20 % of the other 34 global cables (7) on top of the 2 listed.
    assert loads["down"].sum() == 2 * (2 + 7)
    rc = main(["links", "--fabric", SMALL, "--nx", "8", "--jobs", "1", "--failed", "0,20",
               "--seeds", "2", "--seed", "5", "--down", str(down), "--quiet"])
    text = capsys.readouterr().out
    assert rc == 0 and "0%" in text.splitlines()[0] and "20%" in text.splitlines()[0]
    bad = tmp_path / "bad.txt"
    bad.write_text("g0r0->g1r0\ng0r0->g7r7\n")
    with pytest.raises(SpecError, match="bad.txt:2:"):
        links.study(SMALL, "halo3d26:nx=8", down=bad, **kw)


def test_cli_writes_table_and_heat_map_and_reports_unroutable(tmp_path, capsys):
    out, fig = tmp_path / "t.csv", tmp_path / "t.png"
    rc = main(
        [
            "links",
            "--fabric",
            "hyperx:4x4,t=2",
            "--routing",
            "doal",
            "--workload",
            "uniform",
            "--size",
            "4096",
            "--jobs",
            "1,2",
            "--failed",
            "0,10,90",
            "--seeds",
            "2",
            "--out",
            str(out),
            "--plot",
            str(fig),
            "--quiet",
        ]
    )
    assert rc == 0
    table = read_table(out)
    assert len(table) == 2 * 3
    high = table[table["failed_pct"] == 90]
    assert high["unroutable"].all() and high["degradation_pct"].isna().all()
    assert fig.stat().st_size > 0
    assert "unroutable" in capsys.readouterr().out


def test_cli_link_bandwidth_is_the_fabric_parsed_with_it(tmp_path):
    # The same study on the fabric parsed at 20 GB/s, from the command line and from Python:
    # the same table; and without compute twice the bandwidth nearly halves the iteration.
    out = tmp_path / "t.csv"
    args = ["--jobs", "1", "--failed", "0,20", "--seeds", "2", "--no-compute", "--nx", "30"]
    assert main(["links", "--fabric", SMALL, "--link-bandwidth", "20GB/s", "--quiet",
                 "--out", str(out), *args]) == 0
    fast = links.study(Fabric.parse(SMALL, bandwidth_bytes_s=20e9), "halo3d26:nx=30,compute=no",
                       jobs=[1], failed_pct=[0, 20], seeds=2)
    slow = links.study(SMALL, "halo3d26:nx=30,compute=no", jobs=[1], failed_pct=[0, 20], seeds=2)
    cli = read_table(out)
    assert list(cli["iteration_s"]) == list(fast["iteration_s"])
    ratio = fast["baseline_iteration_s"][0] / slow["baseline_iteration_s"][0]
    assert 0.5 < ratio < 0.6


def test_cli_link_bandwidth_reads_bits_per_second_as_the_paper_states_it(tmp_path):
    # The paper's links are 400 Gb/s: --link-bandwidth 400Gb/s (or "400 Gb/s") is 50 GB/s,
    # the same table as --link-bandwidth 50GB/s and as Python's fabric at 50e9 bytes/s.
    args = ["--jobs", "1", "--failed", "0,20", "--seeds", "1", "--no-compute", "--nx", "8",
            "--quiet"]
    tables = []
    for rate in ("400Gb/s", "400 Gb/s", "50GB/s"):
        out = tmp_path / f"{len(tables)}.csv"
        assert main(["links", "--fabric", SMALL, "--link-bandwidth", rate, "--out", str(out),
                     *args]) == 0
        tables.append(list(read_table(out)["iteration_s"]))
    python = links.study(Fabric.parse(SMALL, bandwidth_bytes_s=50e9), "halo3d26:nx=8,compute=no",
                         jobs=[1], failed_pct=[0, 20], seeds=1)
    assert tables[0] == tables[1] == tables[2] == list(python["iteration_s"])


def test_cli_time_resolution_reaches_the_study(tmp_path):
    # --time-tolerance 0 --time-resolution 0s is the exact simulation, as from Python; the
    # study's default (20 ns) gives other iteration times on the same cases.
    out = tmp_path / "t.csv"
    args = ["--jobs", "1", "--failed", "0,20", "--seeds", "2", "--no-compute", "--nx", "30"]
    assert main(["links", "--fabric", SMALL, "--quiet", "--out", str(out),
                 "--time-tolerance", "0", "--time-resolution", "0s", *args]) == 0
    kw = {"jobs": [1], "failed_pct": [0, 20], "seeds": 2}
    exact = links.study(SMALL, "halo3d26:nx=30,compute=no", time_tolerance=0,
                        time_resolution=0, **kw)
    default = links.study(SMALL, "halo3d26:nx=30,compute=no", **kw)
    assert list(read_table(out)["iteration_s"]) == list(exact["iteration_s"])
    assert exact.attrs["time_resolution"] == 0
    assert default.attrs["time_resolution"] == links.DEFAULT_TIME_RESOLUTION_S == 2e-8
    assert list(default["iteration_s"]) != list(exact["iteration_s"])


def test_the_flow_settings_have_one_default_and_one_place(tmp_path):
    # The engine spec carries the flow engine's settings: a study given them there runs the
    # same cases as one given them as the study's options, a study and a single run share
    # one default, and two different values for one setting are refused, naming it.
    kw = {"jobs": [1], "failed_pct": [20], "seeds": 1}
    spec = links.study(SMALL, "halo3d26:nx=30,compute=no",
                       engine="flow:time_tolerance=0,time_resolution=0s", **kw)
    options = links.study(SMALL, "halo3d26:nx=30,compute=no", time_tolerance=0,
                          time_resolution=0, **kw)
    assert list(spec["iteration_s"]) == list(options["iteration_s"])
    assert spec.attrs["time_tolerance"] == 0 and spec.attrs["time_resolution"] == 0
    default = links.study(SMALL, "halo3d26:nx=30,compute=no", **kw)
    replica = default.attrs["replica_seeds"][0]
    single = fray.simulate(SMALL, "halo3d26:nx=30,compute=no", seed=replica)
    assert single.iteration_s == default["baseline_iteration_s"].iloc[0]
    with pytest.raises(SpecError) as e:
        links.study(SMALL, "halo3d26:nx=30,compute=no", engine="flow:time_tolerance=0",
                    time_tolerance=0.01, **kw)
    assert e.value.field == "time_tolerance"
    assert main(["links", "--fabric", SMALL, "--engine", "flow:time_resolution=0s",
                 "--time-resolution", "20ns", "--quiet", "--jobs", "1", "--failed", "20",
                 "--seeds", "1"]) == 2


def test_cli_host_bandwidth_slows_only_the_endpoints_channels(tmp_path):
    # --host-bandwidth sets the injection and ejection channels and nothing else: the same
    # table as Python's fabric with that host class, and with hosts at a twentieth of the
    # links' 10 GB/s the endpoints' channels bound the exchange (each rank sends and
    # receives its ~46 KB through them: at least 92 us at 0.5 GB/s).
    out = tmp_path / "t.csv"
    args = ["--jobs", "1", "--failed", "0", "--seeds", "1", "--no-compute", "--nx", "30"]
    assert main(["links", "--fabric", SMALL, "--host-bandwidth", "0.5GB/s", "--quiet",
                 "--out", str(out), *args]) == 0
    fabric = Fabric.parse(SMALL).with_class_link("host", 0.5e9, 100e-9)
    hosts = [fabric.channel(c) for c in range(fabric.num_router_channels, fabric.num_channels)]
    assert {c["bandwidth_bytes_s"] for c in hosts} == {0.5e9}
    routers = [fabric.channel(c) for c in range(fabric.num_router_channels)]
    assert {c["bandwidth_bytes_s"] for c in routers} == {10e9}
    slow = links.study(fabric, "halo3d26:nx=30,compute=no", jobs=[1], failed_pct=[0], seeds=1)
    cli = read_table(out)
    assert list(cli["iteration_s"]) == list(slow["iteration_s"])
    assert cli["baseline_iteration_s"][0] > 46_000 / 0.5e9


def test_host_costs_add_ember_per_message_costs_to_every_engine():
    # Halo3D26 with nx=8 on 27 ranks: every message is eager (a face is 512 B), and the
    # centre rank posts 26 sends (190 ns each) and completes 26 receives (310 ns each) on
    # its own core; Ember's copies cost nothing (344 ps given as a fixed latency, rounded to
    # 0 ns). With no compute the iteration is at least that core's 13 us on every engine,
    # and the load engine's bound adds exactly that to the network's share.
    per_rank = 26 * (190e-9 + 310e-9)
    for engine in ["flow", "packet", "packet:route=packet", "load"]:
        plain = fray.simulate(SMALL, "halo3d26:nx=8,compute=no", engine=engine, seed=4)
        host = fray.simulate(SMALL, "halo3d26:nx=8,compute=no,host=ember", engine=engine, seed=4)
        assert host.engine == engine
        assert host.iteration_s[0] >= per_rank * (1 - 1e-12), engine  # sums round
        assert host.iteration_s[0] > plain.iteration_s[0], engine
        if engine == "load":
            added = host.iteration_s[0] - plain.iteration_s[0]
            assert added == pytest.approx(per_rank, rel=1e-9)
    with pytest.raises(SpecError, match="host: unknown host costs"):
        fray.simulate(SMALL, "halo3d26:host=sst")


def _load_bound(host: str) -> float:
    """The load engine's bound on an iteration of ``halo3d26:nx=8`` without compute on
    ``SMALL`` with the host costs ``host`` (seconds)."""
    return fray.simulate(SMALL, f"halo3d26:nx=8,compute=no,host={host}",
                         engine="load").iteration_s[0]


def test_host_cost_overrides_charge_the_copies_per_byte():
    # The centre rank of 27 (nx=8) sends and receives 6 faces of 512 B, 12 edges of 64 B and
    # 8 corners of 8 B: 3,904 B. A copy of 1 ns per byte on one side adds exactly 3.904 us to
    # the load engine's bound (the busiest core's host time), on both sides twice that.
    ember = _load_bound("ember")
    for host, copies in [("ember+send_copy=1ns/B", 1), ("ember+recv_copy=1ns/B", 1),
                         ("ember+copy=1ns/B", 2), ("ember+copy=1ns/B+recv_copy=0ps/B", 1)]:
        assert _load_bound(host) - ember == pytest.approx(copies * 3904e-9, rel=1e-9), host
    assert host_costs("ember+send_copy=344ps/B+nic=150ns") == {
        "send_s": 190e-9, "recv_s": 160e-9, "match_s": 150e-9,
        "send_copy_s_per_byte": 344e-12, "recv_copy_s_per_byte": 0.0,
        "eager_limit_bytes": 12000.0, "register_s": 3e-6, "register_s_per_page": 100e-9,
        "nic_latency_s": 150e-9}
    # The NIC's latency, core to NIC and back, adds to the load engine's bound twice.
    assert _load_bound("ember+nic=1us") - ember == pytest.approx(2e-6, rel=1e-9)
    with pytest.raises(SpecError, match=r'unknown cost "speed"'):
        host_costs("ember+speed=1ns")
    with pytest.raises(SpecError, match="copy: expected a time per byte"):
        fray.simulate(SMALL, "halo3d26:host=ember+copy=344ps")


def test_scaled_host_costs_scale_the_cores_share_of_the_bound():
    # The load engine's bound is the network's share plus the busiest core's host time, so
    # Ember's costs times K move it by K times the host share: ember*0 leaves the network.
    network, ember = _load_bound("ember*0"), _load_bound("ember")
    assert network == _load_bound("none")
    for k in (0.5, 2.0):
        assert _load_bound(f"ember*{k}") - network == pytest.approx(k * (ember - network),
                                                                     rel=1e-12)
    with pytest.raises(SpecError, match=r"host: .*must be a number at least 0, got \"-1\""):
        fray.simulate(SMALL, "halo3d26:host=ember*-1")


def test_cli_runs_the_study_on_the_packet_engine_with_host_costs(tmp_path):
    out = tmp_path / "t.csv"
    args = ["links", "--fabric", SMALL, "--jobs", "1", "--failed", "0,20", "--seeds", "2",
            "--nx", "8", "--engine", "packet:route=packet", "--host", "ember", "--quiet",
            "--out", str(out)]
    assert main(args) == 0
    cli = read_table(out)
    same = links.study(SMALL, "halo3d26:iterations=1,host=ember,nx=8", jobs=[1],
                       failed_pct=[0, 20], seeds=2, engine="packet:route=packet")
    assert same.attrs["engine"] == "packet:route=packet"
    assert list(cli["iteration_s"]) == list(same["iteration_s"])
    flow = links.study(SMALL, "halo3d26:nx=8", jobs=[1], failed_pct=[0, 20], seeds=2)
    assert not cli["baseline_iteration_s"].equals(flow["baseline_iteration_s"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--jobs", "1,x"], "--jobs: expected comma-separated numbers"),
        (["--failed", "120"], "failed: percentages are 0 to 100"),
        (["--fail", "optical"], "no such link class"),
        (["--fail", "global:20%"], "give a class name alone (router, host, local, global); the share"),
        # Three iterations of 1e7 s pass the packet clock's 213 days: it used to wrap round
        # and give 3.3e6 s per iteration.
        (["--engine", "packet", "--compute-s", "1e7", "--iterations", "3", "--nx", "2",
          "--jobs", "1", "--failed", "0"], "the run passed the 18446744 s the packet engine's"),
        (["--engine", "packet", "--host", "ember", "--compute-s", "1e7", "--iterations", "3",
          "--nx", "2", "--jobs", "1", "--failed", "0"],
         "the run passed the 18446744 s the packet engine's"),
        (["--routing", "doal"], "DOAL routing needs a HyperX"),
        (["--seeds", "0"], "seeds"),
        (["--link-bandwidth", "fast"], "--link-bandwidth"),
        (["--host-bandwidth", "0GB/s"], "--host-bandwidth"),
        (["--routing", "ugal:threshold=-2"], "threshold must be a finite number >= 0"),
        (["--host", "sst"], "host: unknown host costs \"sst\" (known: none, ember, firefly, ember*K,"),
        (["--engine", "packets"], "unknown engine \"packets\""),
        (["--cables", "5", "--jobs", "1,4", "--failed", "20"], "give one value of --jobs"),
        (["--cables", "0", "--jobs", "1", "--failed", "20"], "--cables: must be a positive"),
        (["--down", "no-such-file.txt"], "down: cannot read 'no-such-file.txt'"),
        (["--repairs", "--jobs", "1"], "--repairs ranks the cables of --down FILE"),
        (["--time-resolution", "10"], "--time-resolution: cannot read \"10\" as a duration"),
        (["--time-resolution", "2ms"], "time_resolution: must be in [0, 1 ms), got 0.002 s"),
        # whole numbers checked against the range the core takes (an OverflowError before)
        (["--seeds", "5000000000"], "argument --seeds: must be from 1 to 100000"),
        (["--cables", "3", "--jobs", "1", "--failed", "10", "--replica",
          "99999999999999999999"], "argument --replica: must be from 0"),
        (["--repairs", "--down", "d.txt", "--greedy", "99999999999999999999"],
         "argument --greedy: must be from 1"),
        (["--seed", "-1"], "argument --seed: must be from 0"),
        # outputs checked before the run
        (["--save-faults", "/proc/f{failed}-{replica}.txt"], "--save-faults: cannot write in /proc"),
        (["--save-faults", "/dev/null/f{failed}-{replica}.txt"], "--save-faults: /dev/null is not a folder"),
        (["--save-faults", "{failed!r}{replica:>999}.txt"], "--save-faults: the file name is"),
        (["--save-faults", "{other}.txt"], "may hold only {failed} and {replica}"),
        # given twice, or ignored by the mode or engine asked
        (["--down", "a.txt", "--down", "b.txt"], "argument --down: given twice (a.txt and b.txt)"),
        (["--engine", "load", "--time-tolerance", "0.2"],
         "--time-tolerance is a setting of the flow engine; --engine load does not use it"),
        (["--engine", "packet", "--time-resolution", "5ns"],
         "--time-resolution is a setting of the flow engine; --engine packet"),
        (["--cables", "3", "--jobs", "1", "--failed", "10", "--save-faults", "f{failed}{replica}"],
         "--save-faults writes the failure draws of the table; --cables makes none"),
        (["--repairs", "--down", "d.txt", "--save-faults", "f{failed}{replica}"],
         "--repairs makes none"),
        (["--replica", "1"], "--replica picks the seed of --cables: give --cables too"),
        (["--exact"], "--exact is a setting of --greedy: give --greedy too"),
        (["--repairs", "--down", "d.txt", "--exact"], "--exact is a setting of --greedy"),
        (["--cables", "3", "--repairs", "--down", "d.txt"], "--cables and --repairs each replace"),
        (["--greedy", "2"], "--greedy plans the repairs of --repairs: give --repairs too"),
        # the option named, not what the core derives from it
        (["--peflops", "0"], "argument --peflops: must be a finite number > 0, got 0"),
        (["--nodeflops", "inf"], "argument --nodeflops"),
        # a value the core writes out in full is shortened to one readable line
        (["--jobs", "1", "--failed", "10", "--time-resolution", "1e308s"],
         "got 1.000000e+308 s"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(args, message, capsys):
    rc = main(["links", "--fabric", SMALL, "--quiet", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1, err


def test_the_documented_down_file_fits_the_documented_machine():
    example = Path(__file__).parent.parent / "examples" / "links_down_cables.txt"
    loads = links.case_loads("dragonfly:p=4,a=8,h=2,g=17", "halo3d26:nx=6", down=example)
    assert loads["down"].sum() == 2 * 3 and loads.attrs["down"] == str(example)
    big = Path(__file__).parent.parent / "examples" / "links_down_8704.txt"
    assert Faults(Fabric.parse("dragonfly:p=16,a=32,h=4,g=17")).fail_file(str(big)) == 10


@pytest.mark.parametrize("fabric, last", [("hyperx:3x3,k=2", 8), ("dragonfly:p=1,a=2,h=4,g=3", 5)])
def test_saved_faults_of_parallel_cables_read_back_to_the_same_cables(fabric, last, tmp_path,
                                                                       capsys):
    # Two or more cables join some pairs of routers: the saved files number them
    # (FROM->TO[2]), where they named each by its routers alone, which reads as the first
    # of them, and fray route refused the second line naming it.
    template = str(tmp_path / "sf" / "f{failed}-{replica}.txt")
    assert main(["links", "--fabric", fabric, "--nx", "4", "--jobs", "1", "--seeds", "3",
                 "--quiet", "--failed", "60", "--save-faults", template]) == 0
    numbered = 0
    for replica in range(3):
        saved = tmp_path / "sf" / f"f60-{replica}.txt"
        numbered += saved.read_text().count("[")
        capsys.readouterr()
        rc = main(["route", fabric, "--from", "0", "--to", str(last), "--fail-file",
                   str(saved)])
        assert rc in (0, 1), capsys.readouterr().err
        cell = links.case_loads(fabric, "halo3d26:nx=4", failed_pct=60, replica=replica)
        again = links.case_loads(fabric, "halo3d26:nx=4", replica=replica, down=saved)
        assert cell["down"].sum() > 0 and (again["down"] == cell["down"]).all()
        faults = Faults(Fabric.parse(fabric))
        assert 2 * faults.fail_file(str(saved)) == faults.num_channels_down == cell["down"].sum()
    assert numbered > 0


def test_repairs_rank_the_down_cables_and_the_cli_prints_them(tmp_path, capsys):
    down = tmp_path / "down.txt"
    down.write_text("g0r0->g1r0\n# and\ng2r0->g0r0\n")
    table = links.repair_gains(SMALL, "halo3d26:nx=8,compute=no", down=down, jobs=1, seeds=2)
    assert list(table.columns) == ["cable", "line", "gain_pct", "gain_ci_pct", "unroutable"]
    assert sorted(table["cable"]) == ["g0r0->g1r0", "g2r0->g0r0"]
    assert dict(zip(table["cable"], table["line"])) == {"g0r0->g1r0": 1, "g2r0->g0r0": 3}
    assert list(table["gain_pct"]) == sorted(table["gain_pct"], reverse=True)
    assert not table["unroutable"].any() and table["gain_pct"].notna().all()
    assert table.attrs["down"] == str(down) and table.attrs["jobs"] == 1
    out = tmp_path / "repairs.csv"
    rc = main(["links", "--fabric", SMALL, "--nx", "8", "--no-compute", "--jobs", "1",
               "--seeds", "2", "--down", str(down), "--repairs", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0 and "best first" in text and "g0r0->g1r0" in text and "(line 3)" in text
    assert read_table(out)["cable"].tolist() == table["cable"].tolist()
    with pytest.raises(SpecError, match="repair gains need a fault file that lists cables"):
        empty = tmp_path / "empty.txt"
        empty.write_text("# nothing down\n")
        links.repair_gains(SMALL, down=empty)


def test_cli_runs_the_study_on_a_fabric_file(tmp_path, capsys):
    # A real machine's wiring (Cray Aries, NERSC Edison) takes a spec's place: a random share
    # of its blue (global) cables fails, as on a generated dragonfly.
    edison = str(Path(__file__).parent.parent / "examples/data/edison_aries_links.txt")
    out = tmp_path / "edison.csv"
    assert main(["links", "--fabric", edison, "--nx", "4", "--jobs", "1", "--failed", "0,10",
                 "--seeds", "1", "--quiet", "--out", str(out)]) == 0
    table = read_table(out)
    assert list(table["failed_pct"]) == [0.0, 10.0]
    assert not table["unroutable"].any() and (table["baseline_iteration_s"] > 0).all()
    capsys.readouterr()
    assert main(["links", "--fabric", edison, "--link-bandwidth", "5GB/s", "--quiet"]) == 2
    assert "gives its own link rates" in capsys.readouterr().err
