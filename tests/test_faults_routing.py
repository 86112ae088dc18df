"""Faults and routes from Python: seeded failures, named parts, unroutable pairs, and the
``fray fabric info`` / ``fray route`` commands."""

import fray
import pytest
from fray import Fabric, Faults
from fray.cli import main
from hypothesis import given, settings
from hypothesis import strategies as st


def test_same_seed_same_failed_cables_and_fraction_is_rounded():
    f = Fabric.parse("torus:6x6")  # 72 router cables
    a = Faults.fail_links(f, "router", 0.25, seed=3)
    b = Faults.fail_links(f, "router", 0.25, seed=3)
    c = Faults.fail_links(f, "router", 0.25, seed=4)
    assert a.num_channels_down == 2 * 18
    down = [a.channel_is_down(ch) for ch in range(f.num_channels)]
    assert down == [b.channel_is_down(ch) for ch in range(f.num_channels)]
    assert down != [c.channel_is_down(ch) for ch in range(f.num_channels)]
    x_only = Faults.fail_links(f, "x", 0.5, seed=1)
    assert all(
        f.channel(ch)["cls"] == "x" for ch in range(f.num_channels) if x_only.channel_is_down(ch)
    )


def test_a_cable_fails_both_ways_and_lanes_scale_bandwidth():
    f = Fabric.parse("mesh:3x1", lanes=4, bandwidth_bytes_s=8e9)
    faults = Faults(f).fail_cables(["(0,0)->(1,0)"])
    names = {f.channel(c)["name"] for c in range(f.num_channels) if faults.channel_is_down(c)}
    assert names == {"(0,0)->(1,0)", "(1,0)->(0,0)"}
    ch = next(c for c in range(f.num_channels) if f.channel(c)["name"] == "(1,0)->(2,0)")
    faults.lose_lanes(ch, 1)
    assert faults.bandwidth_bytes_s(ch) == pytest.approx(6e9)
    assert not faults.channel_is_down(ch)


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(2, 6), min_size=2, max_size=3),
    fraction=st.floats(0, 0.6),
    seed=st.integers(0, 2**32),
    pair=st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)),
)
def test_dor_retry_never_uses_a_failed_channel(sizes, fraction, seed, pair):
    f = Fabric.parse("torus:" + "x".join(map(str, sizes)))
    faults = Faults.fail_links(f, "router", fraction, seed)
    src, dst = pair[0] % f.num_endpoints, pair[1] % f.num_endpoints
    try:
        path = f.route(src, dst, "dor-retry", faults)
    except fray.UnroutableError as exc:
        assert f.endpoint_name(src) in str(exc) or "(" in str(exc)
        return
    assert not any(faults.channel_is_down(c) for c in path)
    hops = len(path) - (2 if src != dst else 0)
    # Minimal when a minimal dimension order is whole, else the long way round a ring.
    assert hops >= f.hop_count(f.router_of(src), f.router_of(dst))


def test_retry_finds_a_path_plain_dimension_order_cannot():
    f = Fabric.parse("mesh:4x4")
    faults = Faults(f).fail_cables(["(1,0)->(2,0)"])
    with pytest.raises(fray.UnroutableError, match=r"\(1,0\)->\(2,0\)"):
        f.route("(0,0)/0", "(3,3)/0", "dor", faults)
    path = f.route("(0,0)/0", "(3,3)/0", "dor-retry", faults)
    assert f.channel(path[1])["cls"] == "y"  # went y first, then x
    assert len(path) == 2 + 6


def test_failed_endpoint_is_unroutable_and_bad_names_are_spec_errors():
    f = Fabric.parse("torus:4x4,t=2")
    faults = Faults(f).fail_endpoint("(1,1)/1")
    with pytest.raises(fray.UnroutableError, match="endpoint"):
        f.route(0, "(1,1)/1", faults=faults)
    with pytest.raises(fray.SpecError, match="endpoint"):
        f.route(0, "nowhere")
    with pytest.raises(fray.SpecError, match="class"):
        Faults.fail_links(f, "global", 0.1)
    with pytest.raises(fray.SpecError, match="another fabric"):
        Fabric.parse("torus:3x3").route(0, 1, faults=faults)


def test_fabric_info_prints_counts_per_class(capsys):
    assert main(["fabric", "info", "torus:4x4x4,t=2"]) == 0
    out = capsys.readouterr().out
    assert "routers    64" in out
    assert "endpoints  128" in out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["x"][1] == "64" and lines["host"][1] == "128"


def test_route_prints_each_channel_or_the_unroutable_pair(capsys):
    assert main(["route", "mesh:4x4", "--from", "0", "--to", "15", "--routing", "dor"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "8 channels, 6 between routers" in out[0]
    assert len(out) == 1 + 8
    rc = main(["route", "mesh:4x4", "--from", "0", "--to", "15", "--routing", "dor",
               "--fail", "router:100%"])
    assert rc == 1
    assert "unroutable" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["fabric", "info", "torus:4x0"], "at least 1"),
        (["route", "torus:4x4", "--from", "0", "--to", "99"], "endpoint"),
        (["route", "torus:4x4", "--from", "0", "--to", "1", "--fail", "global:10%"], "class"),
        (["route", "torus:4x4", "--from", "0", "--to", "1", "--fail", "x:200%"], "between"),
        (["route", "torus:4x4", "--from", "0", "--to", "1", "--routing", "zigzag"], "zigzag"),
        # the last one silently won, routing through cables the first file failed
        (["route", "torus:4x4", "--from", "0", "--to", "1", "--fail-file", "a.txt",
          "--fail-file", "b.txt"], "argument --fail-file: given twice (a.txt and b.txt)"),
        # argparse's own refusals are one line too (a usage block came first before)
        (["route", "torus:4x4", "--from", "0", "--to", "1", "--seed", "-1"], "argument --seed"),
        (["route", "torus:4x4", "--from", "0"], "required: --to"),
        (["rout"], "invalid choice: 'rout'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, needle, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_fault_file_fails_listed_cables_and_bad_lines_are_named(tmp_path, capsys):
    good = tmp_path / "down.txt"
    good.write_text("# cables seen down\n(1,0)->(2,0)\n")
    rc = main(["route", "mesh:4x4", "--from", "0", "--to", "15", "--routing", "dor",
               "--fail-file", str(good)])
    assert rc == 1 and "unroutable" in capsys.readouterr().out
    bad = tmp_path / "bad.txt"
    bad.write_text("(1,0)->(2,0)\n(1,0)->(3,3)\n")
    assert main(["route", "mesh:4x4", "--from", "0", "--to", "15", "--fail-file", str(bad)]) == 2
    assert "bad.txt:2:" in capsys.readouterr().err
