"""Typed options: the classes of ``fray.options`` are the core's routing, engine, host-cost and
workload values. ``str()`` is the canonical spec, which reads back to the same object;
``repr()`` is a constructor call that builds it again; a bad value raises ``SpecError`` naming
the option in ``err.field``."""

from __future__ import annotations

import dataclasses
import pickle

import fray
import pytest
from fray import SpecError, profiles
from hypothesis import given, settings
from hypothesis import strategies as st

SMALL = "dragonfly:p=2,a=4,h=2,g=5"


def test_the_classes_print_the_canonical_spec_and_their_constructor_call():
    ugal = fray.Ugal(threshold=800, links="adaptive")
    assert str(ugal) == "ugal:threshold=800,links=adaptive"
    assert repr(ugal) == "Ugal(threshold=800, links='adaptive')"
    assert ugal.options == {"threshold": "800", "links": "adaptive"}
    # Defaults are left out, so equal values print alike whichever way they were written.
    assert str(fray.Ugal(threshold=0, links="random", queues="port")) == "ugal"
    assert fray.parse_routing("ugal:links=adaptive,threshold=800") == ugal
    assert [str(c()) for c in (fray.Minimal, fray.Valiant, fray.Dor, fray.DorRetry,
                               fray.Table, fray.UpDown, fray.UpDownFt)] == [
        "minimal", "valiant", "dor", "dor-retry", "table", "updown", "updown-ft"]
    assert str(fray.Doal(weights="merlin")) == "doal:weights=merlin"
    assert repr(fray.Doal()) == "Doal()"
    packet = fray.PacketEngine(mtu="2KiB", buffer="16KiB", router="merlin")
    assert isinstance(packet, fray.PacketEngine)
    assert str(packet).startswith("packet:route=packet,mtu=2048,buffer=16384,queue=output")
    assert str(fray.LoadEngine()) == "load" and str(fray.FlowEngine()) == "flow"
    exact = fray.FlowEngine(time_tolerance=0, time_resolution="0s")
    assert str(exact) == "flow:time_tolerance=0,time_resolution=0s"
    assert fray.parse_engine(str(exact)) == exact
    assert repr(exact) == "FlowEngine(time_tolerance=0, time_resolution='0s')"
    assert repr(fray.parse_engine("packet:nic_setup=0.545us")) == "PacketEngine(nic_setup='545ns')"
    halo = fray.Halo3D26(nx=30, jobs=4, compute=False)
    assert str(halo) == "halo3d26:nx=30,jobs=4,compute=no"
    assert repr(halo) == "Halo3D26(nx=30, jobs=4, compute='no')"
    assert str(fray.Ember(send="190ns")) == "ember"
    assert repr(fray.Ember(scale=0.5, send="1us")) == "Ember(scale=0.5, send='1us')"


def test_a_value_takes_the_class_of_its_kind():
    # Ember's costs written one by one are Ember's costs.
    spelled = fray.HostCosts(send="190ns", recv="160ns", match="150ns", register="3us",
                             page="100ns", eager=12000)
    assert type(spelled) is fray.Ember and spelled == fray.Ember()
    assert type(fray.parse_host("none")) is fray.HostCosts


def test_objects_nest_hash_pickle_and_do_not_change():
    ember = fray.Ember(send_copy="344ps/B")
    uniform = fray.Uniform(size=4096, host=ember)
    assert str(uniform) == "uniform:size=4096,host=ember+send_copy=344ps/B"
    assert fray.parse_workload(str(uniform)) == uniform
    assert pickle.loads(pickle.dumps(uniform)) == uniform
    assert len({fray.Ugal(), fray.parse_routing("ugal"), fray.Minimal()}) == 2
    assert fray.Ugal() != fray.parse_engine("flow")
    with pytest.raises(AttributeError):
        uniform.size = 1


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: fray.Ugal(threshold=-1), "threshold"),
        (lambda: fray.Ugal(links="fast"), "links"),
        (lambda: fray.Ugal(factor=3), "factor"),
        (lambda: fray.Ugal(speed=3), "speed"),
        (lambda: fray.Ugal(links="adaptive,threshold=5"), "links"),
        (lambda: fray.Doal(weights="even"), "weights"),
        (lambda: fray.Table(fast=True), "table"),
        (lambda: fray.PacketEngine(mtu="big"), "mtu"),
        (lambda: fray.PacketEngine(mtu=8192), "buffer"),
        (lambda: fray.FlowEngine(tolerance=1), "tolerance"),
        (lambda: fray.FlowEngine(time_tolerance=0.5), "time_tolerance"),
        (lambda: fray.FlowEngine(time_resolution="1ms"), "time_resolution"),
        (lambda: fray.LoadEngine(seed=2), "load"),
        (lambda: fray.Ember(send="fast"), "send"),
        (lambda: fray.Ember(scale=-1), "scale"),
        (lambda: fray.HostCosts(scale=2), "scale"),
        (lambda: fray.Halo3D26(kba=3), "kba"),
        (lambda: fray.Halo3D26(jobs=0), "jobs"),
        (lambda: fray.Halo3D26(host="sst"), "host"),
        (lambda: fray.Halo3D26(nx=0), "nx"),  # accepted, refused only by simulate
        (lambda: fray.Halo3D26(nx=1.5), "nx"),  # accepted, refused only by simulate
        (lambda: fray.Sweep3D(kba=0), "kba"),  # accepted, refused only by simulate
        (lambda: fray.Halo3D26(peflops=0), "peflops"),  # refused by simulate as compute_s
        (lambda: fray.Sweep3D(nodeflops=0), "nodeflops"),  # refused by simulate as compute_s
        (lambda: fray.parse_routing("dijkstra"), "routing"),
        (lambda: fray.parse_engine("packets"), "engine"),
        (lambda: fray.parse_workload("halo3d27"), "workload"),
        (lambda: fray.parse_host("fast"), "host"),
    ],
)
def test_a_bad_value_names_its_field(build, field):
    with pytest.raises(SpecError) as e:
        build()
    assert e.value.field == field
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("options", [{"nx": 0}, {"nx": 1.5}, {"peflops": 0}])
def test_a_class_refuses_as_the_spec_parser_does(options):
    # The class is built through the core's parser: the same one-line message, word for word.
    (key, value), = options.items()
    with pytest.raises(SpecError) as built:
        fray.Halo3D26(**options)
    with pytest.raises(SpecError) as parsed:
        fray.parse_workload(f"halo3d26:{key}={value}")
    assert str(built.value).split(": ", 1)[1] == str(parsed.value).split(": ", 1)[1]


numbers = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False))
ugals = st.one_of(
    st.builds(lambda t, links, vc: fray.Ugal(threshold=t, links=links,
                                              queues="vc" if vc else "port"),
              numbers, st.sampled_from(["random", "adaptive"]), st.booleans()),
    st.builds(lambda b, f: fray.Ugal(credits=b, factor=f),
              st.floats(1e-3, 1e6), st.floats(1e-3, 100)),
)
sizes = st.integers(1, 64).map(lambda k: f"{k}KiB")
times = st.integers(0, 10**6).map(lambda ps: f"{ps}ps")
packets = st.builds(
    lambda mtu, extra, nic, route: fray.PacketEngine(mtu=mtu, buffer=mtu * (1 + extra),
                                                     nic_setup=nic, route=route),
    st.integers(1, 4096), st.integers(0, 32), times, st.sampled_from(["message", "packet"]))
hosts = st.builds(
    lambda scale, send, copy: fray.Ember(scale=scale, send=send, copy=copy),
    st.floats(0, 10), times, times.map(lambda t: f"{t}/B"))
workloads = st.builds(
    lambda motif, jobs, iterations, compute, host: motif(jobs=jobs, iterations=iterations,
                                                        compute=compute, host=host),
    st.sampled_from([fray.Halo3D26, fray.Sweep3D, fray.Lqcd, fray.Uniform]),
    st.integers(1, 64), st.integers(1, 10), st.booleans(), hosts)


@settings(max_examples=60, deadline=None)
@given(st.one_of(ugals, packets, hosts, workloads))
def test_str_reads_back_and_repr_rebuilds(obj):
    parse = {"routing": fray.parse_routing, "engine": fray.parse_engine,
             "host": fray.parse_host, "workload": fray.parse_workload}[obj.family]
    again = parse(str(obj))
    assert again == obj and type(again) is type(obj)
    assert str(again) == str(obj)
    assert eval(repr(obj), vars(fray)) == obj


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=30), st.sampled_from(["routing", "engine", "host", "workload"]))
def test_any_text_reads_or_names_a_field(text, family):
    parse = getattr(fray, f"parse_{family}")
    try:
        obj = parse(text)
    except SpecError as e:
        assert isinstance(e.field, str) and e.field
    else:
        assert parse(str(obj)) == obj


def test_the_entry_points_take_the_objects_as_their_specs():
    by_text = fray.simulate(SMALL, "halo3d26:nx=4", routing="ugal:threshold=8", engine="load",
                            host="ember", seed=2)
    by_object = fray.simulate(SMALL, fray.Halo3D26(nx=4), routing=fray.Ugal(threshold=8),
                              engine=fray.LoadEngine(), host=fray.Ember(), seed=2)
    assert (by_object.engine, by_object.routing) == ("load", "ugal:threshold=8")
    assert by_object.jobs == by_text.jobs
    with pytest.raises(SpecError) as e:
        fray.simulate(SMALL, fray.Halo3D26(nx=4), engine="packet:mtu=big")
    assert e.value.field == "mtu"
    with pytest.raises(SpecError) as e:
        fray.simulate(SMALL, fray.Halo3D26(nx=4), host="ember+send=fast")
    assert e.value.field == "send"
    assert by_object.channel_bytes.tolist() == by_text.channel_bytes.tolist()
    sst = profiles.SST
    assert sst.routing == fray.Ugal(threshold="800B", links="adaptive")
    assert sst.engine == fray.PacketEngine(router="merlin", mtu="2KiB", nic_setup="50ns")
    assert sst.host == fray.Firefly(nic="100ns")
    _, workload, routing, engine = profiles.apply(
        sst, SMALL, fray.Halo3D26(nx=4), fray.Minimal(), None)
    assert (workload, routing, engine) == ("halo3d26:nx=4,host=firefly+nic=100ns", "minimal",
                                           str(sst.engine))
    # A profile's fields may be the objects too.
    mine = dataclasses.replace(sst, routing=fray.Minimal(), engine=fray.LoadEngine(),
                               host=fray.Ember(scale=2))
    _, workload, routing, engine = profiles.apply(mine, SMALL, fray.Uniform(host=fray.Ember()),
                                                  None, None)
    assert (workload, routing, engine) == ("uniform:host=ember", "minimal", "load")
    _, workload, _, _ = profiles.apply(mine, SMALL, "uniform", None, None)
    assert workload == "uniform:host=ember*2"


@pytest.mark.parametrize(
    ("spec", "field"),
    [("torus:4x4,t=0", "t"), ("torus:4x4,p=2", "p"), ("mesh:4xq", "dimension 1"),
     ("dragonfly:p=4,a=8,h=4", "g"), ("hyperx:4x4x4,k=1x2", "k"), ("ring:4", "fabric")],
)
def test_a_bad_fabric_spec_names_its_field(spec, field):
    with pytest.raises(SpecError) as e:
        fray.Fabric.parse(spec)
    assert e.value.field == field


def test_the_all_to_all_motif_is_a_class_too():
    a = fray.AllToAll(bytes=1024, iterations=2)
    assert str(a) == "alltoall:bytes=1024,iterations=2"
    assert fray.parse_workload(str(a)) == a and type(fray.parse_workload("alltoall")) is fray.AllToAll


def test_firefly_host_costs_are_embers_charged_call_by_call():
    spelled = fray.parse_host("ember+recv=100ns+nic=150ns+post=60ns+progress=calls")
    assert type(spelled) is fray.Firefly and spelled == fray.Firefly()
    assert str(fray.Firefly(nic="100ns")) == "firefly+nic=100ns"
    assert str(fray.Ember(progress="calls")) == "ember+progress=calls"
