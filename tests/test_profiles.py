"""Named profiles: ``--profile sst`` is the spelled-out SST set-up, explicit options win
over it, and without a profile every option keeps its default."""

import dataclasses

import fray
import pytest
from fray import Fabric, SpecError, links, profiles, simulate
from fray.cli import main
from fray.store import read_table
from pandas.testing import assert_frame_equal

FABRIC = "dragonfly:p=4,a=8,h=2,g=17"
SPELLED = {
    "--routing": "ugal:links=adaptive,threshold=800B",
    "--engine": "packet:router=merlin,mtu=2048,nic_setup=50ns",
    "--host": "firefly+nic=100ns",
    "--link-bandwidth": "50GB/s",
}


def table(tmp_path, name, *options):
    """The table of a small study (nx = 8, one job, 30 % failed, one seed) with ``options``."""
    out = tmp_path / f"{name}.csv"
    argv = ["links", "--fabric", FABRIC, "--nx", "8", "--jobs", "1", "--failed", "0,30",
            "--seeds", "1", "--quiet", "--out", str(out), *options]
    assert main(argv) == 0
    return read_table(out)


def spelled(**overrides):
    """The SST options spelled out, with ``overrides`` (option to value) in their place."""
    options = {**SPELLED, **overrides}
    return [item for pair in options.items() for item in pair]


def test_sst_holds_the_spelled_out_settings():
    sst = profiles.SST
    assert (sst.name, sst.routing, sst.host) == ("sst", fray.parse_routing(SPELLED["--routing"]),
                                                 fray.Firefly(nic="100ns"))
    assert sst.link_bandwidth_bytes_s == 50e9
    assert "router" not in str(sst.engine)  # the preset written out value by value
    for part in ("route=packet", "mtu=2048", "buffer=32000", "queue=output", "speedup=1.5",
                 "out_buffer=32000", "input_latency=20ns", "output_latency=20ns", "nic_setup=50ns"):
        assert part in str(sst.engine).split(":", 1)[1].split(",")
    assert profiles.parse(str(sst)) == sst
    assert repr(sst).startswith("Profile(name='sst', routing=Ugal(threshold='800B', links='adaptive')")
    with pytest.raises(dataclasses.FrozenInstanceError):
        sst.host = "none"


def test_an_unknown_profile_names_its_field_and_the_cli_exits_2(capsys):
    with pytest.raises(SpecError, match='unknown profile "merlin"') as e:
        profiles.parse("merlin")
    assert e.value.field == "profile"
    assert main(["links", "--fabric", FABRIC, "--profile", "merlin"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "known: sst" in err[0]


def test_profile_sst_gives_the_table_of_its_spelled_out_options(tmp_path):
    by_name = table(tmp_path, "profile", "--profile", "sst")
    assert_frame_equal(by_name, table(tmp_path, "spelled", *spelled()), check_exact=True)
    # The profile is not the defaults: the same study without it gives another table.
    assert not by_name.equals(table(tmp_path, "plain"))


@pytest.mark.parametrize(
    ("option", "value"),
    [("--engine", "packet"), ("--routing", "valiant"), ("--host", "none"),
     ("--link-bandwidth", "10GB/s")],
)
def test_an_explicit_option_wins_over_the_profile(tmp_path, option, value):
    overridden = table(tmp_path, "overridden", "--profile", "sst", option, value)
    assert_frame_equal(overridden, table(tmp_path, "spelled", *spelled(**{option: value})),
                       check_exact=True)
    assert not overridden.equals(table(tmp_path, "profile", "--profile", "sst"))


def test_without_a_profile_the_defaults_are_the_options_own(tmp_path):
    plain = links.study(FABRIC, "halo3d26:nx=8", jobs=[1], failed_pct=[0, 30], seeds=1)
    explicit = links.study(Fabric.parse(FABRIC), "halo3d26:nx=8,host=none", jobs=[1],
                           failed_pct=[0, 30], seeds=1, routing="ugal", engine="flow")
    assert_frame_equal(plain, explicit, check_exact=True)
    assert plain.attrs["engine"] == links.DEFAULT_ENGINE == "flow"
    by_cli = table(tmp_path, "plain")
    assert_frame_equal(by_cli.reset_index(drop=True), plain.reset_index(drop=True),
                       check_exact=True, check_dtype=False)


def test_simulate_takes_a_profile_and_explicit_values_win():
    workload = "halo3d26:nx=8,compute=no"
    sst = profiles.SST
    by_name = simulate(FABRIC, workload, profile="sst")
    fabric = Fabric.parse(FABRIC, bandwidth_bytes_s=50e9)
    by_hand = simulate(fabric, workload + ",host=firefly+nic=100ns", routing=sst.routing,
                       engine=sst.engine)
    assert by_name.iteration_s == by_hand.iteration_s
    assert by_name.engine == by_hand.engine
    # The workload's own host= and an explicit engine win over the profile's.
    bare = simulate(FABRIC, workload + ",host=none", engine="packet", profile=sst)
    assert bare.iteration_s == simulate(fabric, workload, routing=sst.routing,
                                        engine="packet").iteration_s
    assert bare.iteration_s != by_name.iteration_s


def test_the_flow_engine_refuses_the_profiles_threshold_in_bytes(tmp_path, capsys):
    # merlin's bias is 800 bytes queued: the flow engine counts flows, and says so.
    assert main(["links", "--fabric", FABRIC, "--nx", "8", "--jobs", "1", "--failed", "0,30",
                 "--seeds", "1", "--quiet", "--out", str(tmp_path / "flow.csv"),
                 "--profile", "sst", "--engine", "flow"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "threshold=800B" in err[0] and "run the packet engine" in err[0]
    assert not (tmp_path / "flow.csv").exists()
    with pytest.raises(SpecError, match="threshold=800B") as e:
        simulate(FABRIC, "halo3d26:nx=8,compute=no", engine="flow", profile="sst")
    assert e.value.field == "routing"
    # Given a routing in the flow engine's own unit, the profile's other settings stand.
    flows = table(tmp_path, "flows", "--profile", "sst", "--engine", "flow",
                  "--routing", "ugal:links=adaptive")
    assert_frame_equal(flows, table(tmp_path, "spelled-flows", *spelled(
        **{"--engine": "flow", "--routing": "ugal:links=adaptive"})), check_exact=True)
