"""``fray collective``: fabric-based allreduce under soft errors, its table, figure and
one-line errors."""

import pytest
from fray import SpecError, packet
from fray.cli import main
from fray.store import read_table

TREE = "xgft:3;24,12,6;1,12,6"
# A 256 B packet at 1 GB/s serialises in S; every switch and HCA adds L.
S, L = 256e-9, 100e-9


def test_no_error_times_match_the_closed_form_and_temporal_beats_spatial(tmp_path, capsys):
    out, fig = tmp_path / "r.csv", tmp_path / "p.png"
    rc = main(
        ["collective", "--fabric", TREE, "--replication", "temporal:2,spatial:2",
         "--errors", "none", "--ops", "20", "--seed", "1", "--out", str(out), "--plot", str(fig)]
    )
    assert rc == 0
    assert fig.stat().st_size > 0
    table = read_table(out)
    assert list(table.columns[:7]) == [
        "replication", "copies", "errors", "ops", "mean_s", "p50_s", "p99_s"
    ]
    t = table.set_index("replication")
    # Reduction: s + L per level; multicast: L per level and s once (cut-through).
    assert t.loc["temporal", "mean_s"] == pytest.approx(3 * (S + L) + 3 * L + S, rel=1e-12)
    # Spatial halves the endpoint ports' bandwidth: 2s on the first and last hop.
    spatial = (2 * S + L) + 2 * (S + L) + 3 * L + 2 * S
    assert t.loc["spatial", "mean_s"] == pytest.approx(spatial, rel=1e-12)
    assert t.loc["temporal", "mean_s"] < 0.8 * t.loc["spatial", "mean_s"]
    assert (t["copies"] == 2).all() and (t["ops"] == 20).all()
    assert "temporal" in capsys.readouterr().out


def test_random_errors_spread_the_times_and_more_copies_help():
    table, times = packet.collective(
        TREE, ["temporal:2", "temporal:6"], ["exp:10us"], ops=200, seed=3
    )
    t = table.set_index("copies")
    assert (t["retransmissions"] > 0).all()
    assert (t["p99_s"] >= t["p50_s"]).all()
    assert t.loc[6, "mean_s"] < t.loc[2, "mean_s"]
    assert len(times[("temporal:2", "exp:10us")]) == 200
    again, _ = packet.collective(TREE, ["temporal:2"], ["exp:10us"], ops=200, seed=3)
    assert again.loc[0, "mean_s"] == t.loc[2, "mean_s"]


def test_every_link_once_hurts_spatial_more():
    table, _ = packet.collective(TREE, ["temporal:2", "spatial:2"], ["every-link-once"], ops=5)
    t = table.set_index("replication")["mean_s"]
    assert t["spatial"] > 1.5 * t["temporal"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--replication", "mirror:2"], "replication"),
        (["--replication", "spatial:13"], "replication"),
        (["--errors", "exp:soon"], "errors"),
        (["--errors", "channels:S0->S1"], "S0->S1"),
        (["--ops", "0"], "ops"),
        (["--link-bandwidth", "fast"], "link_bandwidth"),
        (["--link-latency", "soon"], "link_latency"),
        (["--ops", "5000000000"], "argument --ops: must be from 1 to 10000000"),
        (["--replication", "temporal:2,temporal:2"], "--replication: temporal:2 given twice"),
        (["--errors", "every-link-once;every-link-once"],
         "--errors: every-link-once given twice"),
        (["--nak", "-1ns"], 'nak: cannot read "-1ns"'),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle, capsys):
    rc = main(["collective", "--fabric", TREE, "--ops", "2", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and needle in err


def test_not_a_fat_tree_names_the_fabric(capsys):
    assert main(["collective", "--fabric", "torus:4x4", "--ops", "1"]) == 2
    assert "fabric" in capsys.readouterr().err


def test_spec_error_is_raised_from_the_api():
    with pytest.raises(SpecError, match="errors"):
        packet.collective(TREE, ["none"], ["sometimes"], ops=1)


def test_nak_time_adds_to_each_retry():
    both = "channels:S0->S72,S0->S73"
    table, _ = packet.collective(TREE, ["spatial:2"], ["none", both], ops=2, nak="1us")
    clean, hit = table["mean_s"]
    assert hit - clean == pytest.approx(S + 2 * L + 1e-6, rel=1e-9)
