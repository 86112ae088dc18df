"""Every fabric family from Python: counts against closed forms, fabric files, routes that
avoid failed parts, and the load engine on each family."""

from itertools import pairwise
from pathlib import Path

import fray
import pytest
from fray import Fabric, Faults, static_load
from fray.cli import main
from hypothesis import given, settings
from hypothesis import strategies as st

X5 = Path(__file__).parent.parent / "crates/fray-core/tests/data/psmn_X5_ibnetdiscover.topofile"

FAMILIES = {
    # spec: (routers, endpoints, router cables, routings to try)
    "dragonfly:p=2,a=4,h=2,g=5": (20, 40, 5 * 6 + 10 * 2, ["minimal", "valiant", "ugal", "table"]),
    "hyperx:4x3,k=1x2,t=2": (12, 24, 3 * 6 + 2 * 4 * 3, ["dor", "doal", "table"]),
    "xgft:3;4,4,2;1,4,2": (24, 32, 8 * 4 + 8 * 2, ["updown", "updown-ft", "table"]),
    "torus:4x4x3,t=2": (48, 96, 48 * 3, ["dor", "dor-retry", "table"]),
    "gemini:4x4x3": (48, 96, 48 * 3, ["dor", "dor-retry", "table"]),
}


def cables(fabric, cls=None):
    return sum(g["cables"] for g in fabric.summary() if (g["cls"] != "host") if cls in (None, g["cls"]))


@pytest.mark.parametrize("spec", FAMILIES)
def test_counts_match_closed_forms(spec):
    routers, endpoints, router_cables, _ = FAMILIES[spec]
    f = Fabric.parse(spec)
    assert (f.num_routers, f.num_endpoints) == (routers, endpoints)
    assert cables(f) == router_cables
    assert f.num_router_channels == 2 * router_cables
    assert f.num_channels == 2 * router_cables + 2 * endpoints


def test_paper_dragonfly_has_32_global_links_per_group_pair():
    f = Fabric.parse("dragonfly:p=16,a=32,h=16,g=17")
    assert f.num_endpoints == 8704
    assert cables(f, "global") == 4352 == 17 * 16 // 2 * 32


def test_x5_dump_loads_whole_with_lanes_and_rates():
    f = Fabric.read(str(X5), "ibnetdiscover")
    assert (f.num_routers, f.num_endpoints) == (11, 89)
    rates = {(g["cls"], g["bandwidth_bytes_s"]): g["cables"] for g in f.summary()}
    # 4xQDR = 4 lanes x 8 Gb/s of data = 4 GB/s; 4xDDR = 2 GB/s.
    assert rates == {("switch", 4e9): 70, ("host", 4e9): 66, ("host", 2e9): 23}
    path = f.route(0, 88)
    assert not any(f.channel(c)["host"] for c in path[1:-1])


def test_bad_fabric_files_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.topofile"
    bad.write_text(X5.read_text().replace("4xQDR", "4xQQR", 1))
    with pytest.raises(fray.SpecError, match=r"bad\.topofile:\d+"):
        Fabric.read(str(bad), "ibnetdiscover")
    js = tmp_path / "f.json"
    js.write_text('{"routers": ["a", "b"],\n "links": [{"a": "a", "b": "c"}]}')
    with pytest.raises(fray.SpecError, match=r"f\.json:2"):
        Fabric.read(str(js), "json")
    with pytest.raises(fray.SpecError, match="format"):
        Fabric.read(str(js), "yaml")


@settings(max_examples=25, deadline=None)
@given(
    spec=st.sampled_from(sorted(FAMILIES)),
    fraction=st.floats(0, 0.5),
    seed=st.integers(0, 1000),
    pairs=st.lists(st.tuples(st.integers(0, 10**4), st.integers(0, 10**4)), min_size=1, max_size=8),
)
def test_no_route_uses_a_failed_channel(spec, fraction, seed, pairs):
    f = Fabric.parse(spec)
    faults = Faults.fail_links(f, "router", fraction, seed)
    for routing in FAMILIES[spec][3]:
        for a, b in pairs:
            src, dst = a % f.num_endpoints, b % f.num_endpoints
            try:
                path = f.route(src, dst, routing, faults, seed)
            except fray.UnroutableError:
                continue
            assert not any(faults.channel_is_down(c) for c in path)
            for c, d in pairwise(path):  # contiguous
                assert f.channel(c)["name"].split("->")[1] == f.channel(d)["name"].split("->")[0]


@pytest.mark.parametrize("spec", FAMILIES)
def test_load_engine_counts_host_channels_and_conserves_bytes(spec):
    f = Fabric.parse(spec)
    n = f.num_endpoints
    messages = [(i, (i + 5) % n, 1000.0) for i in range(n)]
    r = static_load(f, messages, seed=3)
    assert r["max_routes"] >= 1
    for i in range(n):  # every endpoint injects one message and receives one
        assert r["routes"][f.num_router_channels + 2 * i] == 1
        assert r["routes"][f.num_router_channels + 2 * i + 1] == 1
    hops = sum(r["routes"][: f.num_router_channels])
    assert hops == r["total_hops"]
    assert sum(r["bytes"]) == pytest.approx(1000.0 * (hops + 2 * n))


def test_global_links_fail_by_class_and_ugal_serves_cut_group_pairs(capsys):
    f = Fabric.parse("dragonfly:p=1,a=2,h=1,g=3")  # one global cable per group pair
    faults = Faults(f).fail_cables(["g0r0->g1r0"])
    with pytest.raises(fray.UnroutableError):
        f.route("g0r0/0", "g1r0/0", "minimal", faults)
    path = f.route("g0r0/0", "g1r0/0", "ugal", faults)
    assert sum(f.channel(c)["cls"] == "global" for c in path) == 2  # through group 2
    assert main(["fabric", "info", str(X5)]) == 0
    out = capsys.readouterr().out
    assert "switches   11" in out and "endpoints  89" in out
