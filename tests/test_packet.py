"""``fray traffic`` on the packet engine: accepted load follows offered load below
saturation, latency grows with load, and bad input is one line with exit 2."""

import pytest
from fray import packet
from fray.cli import main
from fray.options import PacketEngine
from fray.store import read_table


def test_low_load_is_accepted_and_latency_grows(tmp_path, capsys):
    out = tmp_path / "r.csv"
    rc = main(
        ["traffic", "--fabric", "torus:4x4x4", "--pattern", "uniform", "--load", "0.1,0.3",
         "--engine", "packet:vcs=2", "--measure", "30us", "--out", str(out)]
    )
    assert rc == 0
    table = read_table(out)
    for col in ["offered", "accepted", "latency_mean_s", "packets", "wall_s"]:
        assert col in table.columns
    for _, row in table.iterrows():
        assert row["accepted"] == pytest.approx(row["offered"], rel=0.1)
        assert row["offered"] == pytest.approx(row["offered_load"], rel=0.15)
    # Zero-load latency on a 4x4x4 torus: about 3 hops + 2 host channels of 100 ns, plus
    # one 25.6 ns serialisation; queueing only adds to it.
    assert 0.4e-6 < table["latency_mean_s"][0] < 0.6e-6
    assert table["latency_mean_s"][1] > table["latency_mean_s"][0]
    assert (table["packets"] > 0).all()
    assert "accepted" in capsys.readouterr().out


def test_saturation_caps_accepted_load():
    # Each endpoint offers its whole injection bandwidth, far beyond what a 4x4 mesh carries
    # under uniform traffic: accepted stays well below (a load above 1 is refused).
    table = packet.traffic("mesh:4x4", [1.0], measure_s=20e-6)
    assert table["accepted"][0] < 0.9 * table["offered"][0]


def test_virtual_channels_default_to_what_the_routing_needs():
    # UGAL on a dragonfly needs 3 classes (one per global hop), the table router one per hop
    # of its longest route; a run without `vcs` takes that many.
    table = packet.traffic("dragonfly:p=2,a=4,h=2,g=9", [0.1], measure_s=10e-6)
    assert table.attrs["vcs"] == 3 and table["accepted"][0] > 0
    table = packet.traffic("torus:4x4x4", [0.1], routing="table", measure_s=10e-6)
    assert table.attrs["vcs"] == 6  # the 4x4x4 torus's diameter
    # Too few is raised to what the routing needs, as on every packet-engine run; more stay.
    table = packet.traffic("dragonfly:p=2,a=4,h=2,g=9", [0.1], engine="packet:vcs=2",
                           measure_s=10e-6)
    assert table.attrs["vcs"] == 3
    table = packet.traffic("dragonfly:p=2,a=4,h=2,g=9", [0.1], engine=PacketEngine(vcs=5),
                           measure_s=10e-6)
    assert table.attrs["vcs"] == 5


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--load", "0.1,x"], "load"),
        (["--load", "-1"], "load"),
        (["--pattern", "tornado"], "pattern"),
        (["--engine", "flow"], "engine"),
        (["--engine", "packet:vcs=0"], "vcs"),
        (["--engine", "packet:packet_bytes=256"], "packet_bytes"),
        (["--measure", "long"], "measure"),
        (["--routing", "updown"], "updown"),
        (["--measure", "0s"], "measure: the measured time must be positive"),
        (["--measure", "-1us"], 'measure: cannot read "-1us"'),
        (["--load", "0.1,0.1"], "load: 0.1 given twice"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle, capsys):
    rc = main(["traffic", "--fabric", "torus:4x4", "--load", "0.1", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and needle in err
