"""Fabric specs and the static load engine from Python, with property tests on the parser."""

import math

import fray
import pytest
from fray import stencil_load
from fray._fray import Fabric
from hypothesis import given
from hypothesis import strategies as st

dims = st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=4)


@given(family=st.sampled_from(["mesh", "torus"]), sizes=dims)
def test_valid_specs_build_the_right_fabric(family, sizes):
    f = Fabric.parse(f"{family}:{'x'.join(map(str, sizes))}")
    assert f.dims == sizes
    assert f.num_routers == math.prod(sizes)
    links = 0
    for n in sizes:
        per_ring = (n if n > 2 else n - 1) if family == "torus" else n - 1
        links += per_ring * (math.prod(sizes) // n)
    assert f.num_router_channels == 2 * links  # every cable, both directions
    assert f.num_endpoints == f.num_routers  # one endpoint per router unless t= says more
    assert f.num_channels == 2 * links + 2 * f.num_endpoints  # plus injection and ejection


@given(st.text(max_size=30))
def test_any_text_parses_or_raises_spec_error(text):
    try:
        Fabric.parse(text)
    except fray.SpecError as e:
        assert str(e)
    # Any other exception type fails the test.


@given(sizes=dims, data=st.data())
def test_route_length_is_hop_count(sizes, data):
    f = Fabric.parse("torus:" + "x".join(map(str, sizes)))
    n = f.num_routers
    a = data.draw(st.integers(0, n - 1))
    b = data.draw(st.integers(0, n - 1))
    host = 0 if a == b else 2  # injection and ejection
    assert len(f.route(a, b, routing="dor")) == f.hop_count(a, b) + host
    ring = [min(abs(x - y), s - abs(x - y)) for x, y, s in zip(f.coords(a), f.coords(b), sizes)]
    assert f.hop_count(a, b) == sum(ring)


def test_stencil_load_closed_forms():
    f = Fabric.parse("mesh:6x5", bandwidth_bytes_s=2e9, latency_s=1e-7)
    r = stencil_load(f, "5P", False, 4e6)
    assert r["max_network_routes"] == 1
    assert r["max_routes"] == 4  # an inner rank injects its four messages through one host link
    assert r["total_hops"] == 2 * (2 * 30 - 6 - 5)
    # The host link carries 4 messages of 4 MB at 2 GB/s; a path is host + 1 hop + host.
    assert r["phase_time_s"] == pytest.approx(4 * 4e6 / 2e9 + 3e-7)
    assert sum(r["histogram"]) == f.num_router_channels
    fast_hosts = f.with_class_link("host", 1e15, 1e-7)
    r = stencil_load(fast_hosts, "5P", False, 4e6)
    assert r["phase_time_s"] == pytest.approx(4e6 / 2e9 + 3e-7)


def test_builders_match_specs():
    assert Fabric.torus([4, 3]).num_channels == Fabric.parse("torus:4x3").num_channels
    assert Fabric.mesh([5]).num_router_channels == 8
    with pytest.raises(fray.SpecError, match="at least 1"):
        Fabric.mesh([4, 0])


def test_bad_parameters_are_spec_errors():
    with pytest.raises(fray.SpecError, match="bandwidth"):
        Fabric.parse("mesh:4x4", bandwidth_bytes_s=0)
    with pytest.raises(fray.SpecError, match="stencil"):
        stencil_load(Fabric.parse("mesh:4x4"), "11P", False, 1.0)
