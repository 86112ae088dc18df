"""``fray plan``, greedy repairs and ``--save-faults``: known values and one-line errors."""

import json

import pytest
from fray import SpecError, links, plan
from fray.cli import main
from fray.store import read_table

SMALL = "dragonfly:p=2,a=4,h=1,g=5"
WORKLOAD = "halo3d26:nx=8,compute=no"


def test_plan_rows_add_up_and_the_best_window_is_the_least_total():
    table = plan.plan(SMALL, {"global": "exp:mtbf=60d"},
                      plan.policies(immediate="2d", every=["7d", "30d", "90d"], length="8h"),
                      workload=WORKLOAD, replications=12, points=4, samples=2)
    assert list(table["kind"]) == ["immediate", "windows", "windows", "windows"]
    assert (table["degraded_share"] + table["downtime_share"] - table["total_share"]).abs().max() < 1e-12
    windows = table[table["kind"] == "windows"]
    assert table.attrs["best_window"] == windows["total_share"].idxmin()
    # A window every 7 days of 8 hours: 52 windows, 52 x 8 h of a year down.
    assert windows["windows"].iloc[0] == 52
    assert abs(windows["downtime_share"].iloc[0] - 52 * 8 / (365 * 24)) < 1e-12
    assert table["mean_down_global"].gt(0).all()
    model = table.attrs["model"]
    assert model["count"].iloc[0] == 0 and model["mean_loss"].iloc[0] == 0


def test_a_fitted_exponential_is_cable_time_over_failures(tmp_path):
    log = tmp_path / "failures.txt"
    log.write_text("# when, which\n10d g0r0->g1r0\n20d g2r0->g0r1\n35d g0r0->g1r0\n")
    fit = plan.fit_failures(SMALL, log, "global", span="40d")
    assert fit["cables"] == 10 and fit["failures"] == 3
    assert fit["exposure_s"] == pytest.approx(10 * 40 * 86400)
    mtbf = fit["model"].removeprefix("exp:mtbf=").removesuffix("s")
    assert float(mtbf) == pytest.approx(10 * 40 * 86400 / 3, rel=1e-12)
    bad = tmp_path / "bad.txt"
    bad.write_text("10d g0r0->g1r0\n3 g0r0->g1r0\n")
    with pytest.raises(SpecError, match="bad.txt:2:"):
        plan.fit_failures(SMALL, bad, "global")


def test_saved_faults_read_back_to_the_same_cell(tmp_path):
    template = str(tmp_path / "f{failed}-r{replica}.txt")
    table = links.study(SMALL, WORKLOAD, jobs=[1], failed_pct=[30], seeds=2, save_faults=template)
    for replica in range(2):
        saved = tmp_path / f"f30-r{replica}.txt"
        text = saved.read_text()
        assert len([line for line in text.splitlines() if not line.startswith("#")]) == 3  # 30 % of 10
        again = links.case_loads(SMALL, WORKLOAD, replica=replica, down=saved)
        cell = links.case_loads(SMALL, WORKLOAD, failed_pct=30, replica=replica)
        assert (again["down"] == cell["down"]).all()
    assert table["degradation_pct"].notna().all()
    with pytest.raises(SpecError, match="put {failed} and {replica} in it"):
        links.study(SMALL, WORKLOAD, jobs=[1], failed_pct=[30], seeds=2,
                    save_faults=str(tmp_path / "one.txt"))


def test_greedy_repairs_end_at_the_healthy_machine_and_the_cli_prints_them(tmp_path, capsys):
    down = tmp_path / "down.txt"
    down.write_text("g0r0->g1r0\ng2r0->g0r1\ng3r1->g1r2\n")
    table = links.greedy_repairs(SMALL, WORKLOAD, down=down, seeds=2)
    assert list(table["step"]) == [0, 1, 2, 3]
    assert table["throughput_pct"].iloc[-1] == pytest.approx(100.0, abs=1e-9)
    assert table["throughput_pct"].iloc[0] + table["gain_pct"].sum() == pytest.approx(100.0)
    rc = main(["links", "--fabric", SMALL, "--nx", "8", "--no-compute", "--jobs", "1",
               "--seeds", "2", "--down", str(down), "--repairs", "--greedy", "2",
               "--out", str(tmp_path / "g.csv")])
    text = capsys.readouterr().out
    assert rc == 0 and "as it is" in text and "  1. " in text and "  3. " not in text
    assert len(read_table(tmp_path / "g.csv")) == 3


def test_cli_plan_writes_json_and_a_figure(tmp_path, capsys):
    out, fig = tmp_path / "plan.json", tmp_path / "plan.png"
    rc = main(["plan", "--fabric", SMALL, "--fail", "global=exp:mtbf=60d", "--every", "14d,60d",
               "--length", "4h,12h", "--threshold", "5%", "--replications", "4",
               "--workload", WORKLOAD, "--points", "3", "--samples", "2", "--quiet",
               "--out", str(out), "--plot", str(fig)])
    text = capsys.readouterr().out
    assert rc == 0 and "best window interval" in text and "threshold:loss=5%" in text
    doc = json.loads(out.read_text())
    assert len(doc["policies"]) == 1 + 2 + 1 + 2 and doc["model"]
    assert fig.stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail", "global"], "--fail: expected CLASS=MODEL"),
        (["--fail", "global=exp:mtbf=3"], "mtbf: cannot read \"3\" as a duration"),
        (["--fail", "optical=exp:mtbf=3d"], "no such link class"),
        (["--fail", "global=exp:mtbf=3d", "--policy", "windows:every=1h,length=2h"], "length"),
        (["--fail", "global=exp:mtbf=3d", "--replications", "1"], "replications"),
        (["--fail", "global=exp:mtbf=3d", "--out", "x.txt"],
         "must end in .csv, .parquet or .json"),
        ([], "give --fail CLASS=MODEL or --log FILE"),
        # whole numbers checked against the range the core takes (an OverflowError before)
        (["--fail", "global=exp:mtbf=3d", "--points", "-1"], "argument --points: must be from 2"),
        (["--fail", "global=exp:mtbf=3d", "--points", "99999999999999999999"], "--points"),
        (["--fail", "global=exp:mtbf=3d", "--samples", "-2"], "argument --samples"),
        (["--fail", "global=exp:mtbf=3d", "--samples", "99999999999999999999"], "--samples"),
        (["--fail", "global=exp:mtbf=3d", "--replications", "99999999999999999999"],
         "argument --replications"),
        (["--fail", "global=exp:mtbf=3d", "--replications", "100001"],
         "argument --replications: must be from 2 to 100000"),
        (["--fail", "global=exp:mtbf=3d", "--samples", "10001"],
         "argument --samples: must be from 1 to 10000"),
        (["--fail", "global=exp:mtbf=3d", "--replications", "abc"],
         "argument --replications: expected a whole number"),
        (["--fail", "global=exp:mtbf=3d", "--jobs", "99999999999999999999"], "argument --jobs"),
        (["--fail", "global=exp:mtbf=3d", "--seeds", "5000000000"], "argument --seeds"),
        (["--fail", "global=exp:mtbf=3d", "--seed", "-1"], "argument --seed"),
        # outputs checked before the run
        (["--fail", "global=exp:mtbf=3d", "--out", "/proc/x.json"], "--out: cannot write in /proc"),
        (["--fail", "global=exp:mtbf=3d", "--plot", "/proc/x.png"], "--plot: cannot write in /proc"),
        (["--fail", "global=exp:mtbf=3d", "--plot", "x.gif"], "--plot: 'x.gif' must end in .png"),
        (["--fail", "global=exp:mtbf=3d", "--plot", "/tmp"], "--plot: /tmp is a folder"),
        (["--fail", "global=exp:mtbf=3d", "--out", "/tmp/"], "--out: /tmp is a folder"),
        # options given twice, or that nothing would use
        (["--fail", "global=exp:mtbf=3d", "--fail", "global=exp:mtbf=1d"],
         "--fail: class global given twice"),
        (["--fail", "global=exp:mtbf=3d", "--log-span", "5d"], "--log-span sets how --log FILE"),
        (["--fail", "global=exp:mtbf=3d", "--fit", "weibull"], "--fit sets how --log FILE"),
        (["--fail", "global=exp:mtbf=3d", "--log-class", "local"], "--log-class sets how --log"),
        (["--log", "a.txt", "--log", "b.txt"], "argument --log: given twice (a.txt and b.txt)"),
        (["--fail", "global=exp:mtbf=3d", "--policy", "immediate:repair=1d", "--every", "30d"],
         "--every sets the sweep of policies, which --policy replaces"),
        (["--fail", "global=exp:mtbf=3d", "--policy", "immediate:repair=1d", "--length", "4h"],
         "--length sets the sweep"),
        (["--fail", "global=exp:mtbf=3d", "--policy", "immediate:repair=1d", "--immediate",
          "none"], "--immediate sets the sweep"),
        (["--fail", "global=exp:mtbf=3d", "--policy", "immediate:repair=1d", "--threshold",
          "2%"], "--threshold sets the sweep"),
        (["--fail", "global=exp:mtbf=3d", "--every", ""], "--every: give at least one"),
        (["--fail", "global=exp:mtbf=3d", "--every", ","], "--every: give at least one"),
        (["--fail", "global=exp:mtbf=3d", "--every", "30d,30d"], "--every: 30d given twice"),
        (["--fail", "global=exp:mtbf=3d", "--every", "30d,720h"],
         "policies: windows:every=30d,length=8h given twice"),
        (["--fail", "global=exp:mtbf=3d", "--policy", "immediate:repair=24h", "--policy",
          "immediate:repair=1d"], "policies: immediate:repair=1d given twice"),
        # a value with a minus sign reaches its option (argparse read it as an option before)
        (["--fail", "global=exp:mtbf=3d", "--every", "-1d"], 'every: cannot read "-1d"'),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(args, message, capsys):
    rc = main(["plan", "--fabric", SMALL, "--quiet", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1, err


def test_cli_log_that_observes_no_time_is_refused_before_a_fit_is_printed(tmp_path, capsys):
    log = tmp_path / "log_zero.txt"
    log.write_text("0s g0r0->g1r0\n")
    rc = main(["plan", "--fabric", SMALL, "--log", str(log), "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "", out
    assert err.count("\n") == 1 and "log_zero.txt:1: a failure at 0s has no time observed before it" in err, err
    assert "nan" not in err


def test_cli_log_and_fail_for_one_class_is_refused(tmp_path, capsys):
    log = tmp_path / "log.txt"
    log.write_text("10d g0r0->g1r0\n50d g0r0->g2r0\n")
    rc = main(["plan", "--fabric", SMALL, "--log", str(log), "--fail", "global=exp:mtbf=10d",
               "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "--log fits class global, which --fail global" in err, err


def test_cli_sweep_options_make_the_policies_they_say():
    """--every, --length, --immediate and --threshold each reach the sweep (they now default
    to None, the planner's defaults filling what is not given)."""
    from fray.cli import build_parser
    from fray.cli.plan import _policies

    def policies(*argv):
        return _policies(build_parser().parse_args(["plan", "--fabric", SMALL, *argv]))

    assert policies() == plan.policies()
    assert policies("--every", "30d", "--length", "8h,4h", "--immediate", "none",
                    "--threshold", "2%") == [
        "windows:every=30d,length=8h", "threshold:loss=2%,repair=1d",
        "windows:every=30d,length=4h"]


def test_policies_are_printed_as_the_core_reads_them():
    assert plan.policies(immediate=None, every=["30d"], length="8h") == [
        "windows:every=30d,length=8h"]
    assert plan.policies(immediate="1d", every=[], threshold="2%") == [
        "immediate:repair=1d", "threshold:loss=2%,repair=1d"]
