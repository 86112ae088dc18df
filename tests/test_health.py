"""Cable health from the X5 dump and hand-written counters with planted faults, and the Edison
Aries wiring read by ``fray fabric info``."""

import base64
import json
import math
import re
from pathlib import Path

import fray
import pandas as pd
import pytest
from fray import Fabric, links
from fray.cli import main
from fray.health import DEFAULT_WORKLOADS, VERDICTS, classify_cables, cost_now
from hypothesis import given, settings
from hypothesis import strategies as st

DATA = Path(__file__).parent.parent / "examples/data"
X5 = DATA / "x5.topofile"
EDISON = DATA / "edison_aries_links.txt"


def test_planted_faults_are_found_most_suspect_first():
    df = classify_cables(X5, [DATA / "x5_counters.csv"])
    assert len(df) == 159
    counts = df["verdict"].value_counts()
    assert (counts["flapping"], counts["erroring"], counts["congested"]) == (1, 1, 1)
    assert list(df["verdict"]) == sorted(df["verdict"], key=VERDICTS.index)
    erroring = df[df["verdict"] == "erroring"].iloc[0]
    assert (erroring["errors"], erroring["bits"], erroring["ber"]) == (100, 1e13, 1e-11)
    # Garwood's 95 % interval for 100 counts is 81.36 to 121.63.
    assert erroring["ber_low"] * 1e13 == pytest.approx(81.36, abs=0.01)
    assert erroring["ber_high"] * 1e13 == pytest.approx(121.63, abs=0.01)
    clean = df[df["bits"] == 1e14].iloc[0]
    assert clean["verdict"] == "healthy"
    assert clean["ber_high"] == pytest.approx(-math.log(0.025) / 1e14)


def test_thresholds_and_down_file(tmp_path):
    loose = classify_cables(X5, [DATA / "x5_perfquery.txt"], ber=1e-10)
    assert "erroring" not in set(loose["verdict"])
    # A fault file takes the text after # for a comment: pick a cable named without one.
    healthy = loose[(loose["verdict"] == "healthy") & ~loose["name"].str.contains("#")]
    name = healthy.iloc[0]["name"]
    down = tmp_path / "down.txt"
    down.write_text(f"{name}\n")
    df = classify_cables(X5, [DATA / "x5_ibqueryerrors.txt"], down=down)
    assert (df.iloc[0]["name"], df.iloc[0]["verdict"]) == (name, "down")
    assert (df["verdict"] == "down").sum() == 1
    # The X5 switches are joined by parallel cables, so one down cuts no one off unless it
    # is an HCA's.
    assert bool(df.iloc[0]["critical"]) == (df.iloc[0]["link_class"] == "host")
    assert df["critical"].sum() == int(df.iloc[0]["critical"])
    with pytest.raises(fray.SpecError, match="confidence"):
        classify_cables(X5, confidence=1.5)


@settings(max_examples=30, deadline=None)
@given(line=st.integers(2, 17), junk=st.text(alphabet="0123456789,.x -abc", max_size=30))
def test_a_bad_counter_line_is_named(tmp_path_factory, line, junk):
    lines = (DATA / "x5_counters.csv").read_text().splitlines()
    lines[line - 1] = junk
    bad = tmp_path_factory.mktemp("c") / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    try:
        classify_cables(X5, [bad])
    except fray.SpecError as e:
        assert f"bad.csv:{line}:" in str(e)


def test_fabric_info_summarises_edison(capsys):
    f = Fabric.read(str(EDISON))
    assert (f.num_routers, f.num_endpoints) == (1440, 5760)
    assert f.default_routing == "ugal"
    assert main(["fabric", "info", str(EDISON)]) == 0
    out = capsys.readouterr().out
    assert "switches   1440" in out and "endpoints  5760" in out
    for row in (
        "green         10800      3      5.25",
        "black         10800      3      5.25",
        "blue           2520      3      4.69",
        "host           5760     16        16",
    ):
        assert row in out, out
    assert main(["fabric", "info", str(EDISON), "--format", "aries", "--json"]) == 0


def test_fray_health_prints_the_classes_and_the_suspect_cables(capsys):
    assert main(["health", str(X5), "--counters", str(DATA / "x5_counters.csv")]) == 0
    out = capsys.readouterr().out
    assert "flapping          1" in out and "healthy         154" in out
    assert "critical          0 (down cables that cut endpoints off)" in out
    assert "100 errors in 1.000e13 bits: rate 1.000e-11 (8.136e-12 to 1.216e-11)" in out
    assert main(["health", str(X5), "--counters", str(EDISON)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "edison_aries_links.txt:1: expected the header" in err


def _health(tmp_path, *extra):
    """Runs ``fray health`` on X5 with its sample counters; returns the JSON it wrote and the
    HTML page."""
    out, page = tmp_path / "report.json", tmp_path / "report.html"
    argv = ["health", str(X5), "--counters", str(DATA / "x5_counters.csv"), "--seeds", "2",
            "--out", str(out), "--report", str(page), *extra]
    assert main(argv) == 0
    return json.loads(out.read_text()), page.read_text()


def test_health_report_json_has_the_classes_the_loss_and_the_repair_order(tmp_path, capsys):
    # Three switch-to-switch cables between different pairs of switches, named as the
    # classification names them (a name with # in it would read as a comment).
    df = classify_cables(X5)
    switch = df[(df["link_class"] == "switch") & ~df["name"].str.contains("#")]
    names = list(dict.fromkeys(switch["name"]))[:3]
    down = tmp_path / "down.txt"
    down.write_text("# three cables\n" + "\n".join(names) + "\n")
    result, _ = _health(tmp_path, "--down", str(down))
    assert result["classes"] == {"down": 3, "flapping": 1, "below-peers": 2, "erroring": 1,
                                 "congested": 1, "healthy": 151}
    assert sorted(result["down"]) == sorted(names)
    assert [row["workload"] for row in result["loss"]] == list(DEFAULT_WORKLOADS)
    for row in result["loss"]:
        assert math.isfinite(row["loss_pct"]) and math.isfinite(row["loss_ci_pct"])
        assert row["loss_ci_pct"] >= 0
    for workload, steps in result["repairs"].items():
        assert [s["step"] for s in steps] == list(range(len(names) + 1)), workload
        assert sorted(s["cable"] for s in steps[1:]) == sorted(names)
        # Step 0 is the machine as it is: its throughput is what the loss row says is left.
        loss = next(r for r in result["loss"] if r["workload"] == workload)
        assert steps[0]["throughput_pct"] == pytest.approx(100 - loss["loss_pct"])
    assert "repair order for uniform" in capsys.readouterr().out


def test_health_report_html_embeds_one_png_per_figure(tmp_path):
    _, page = _health(tmp_path, "--down", str(DATA / "x5_down.txt"), "--workload", "uniform")
    images = re.findall(r'<img [^>]*src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == page.count("<img") == 2  # the loss bars and the repair curve
    for data in images:
        assert base64.b64decode(data, validate=True)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<h2>Cable classes</h2>" in page and "<h2>Critical failures</h2>" in page


def test_health_without_down_cables_costs_nothing_and_outputs_are_checked_first(tmp_path,
                                                                                capsys):
    result, page = _health(tmp_path)
    assert result["down"] == [] and result["loss"] == [] and result["repairs"] == {}
    assert "<img" not in page
    capsys.readouterr()
    bad = tmp_path / "report.txt"
    assert main(["health", str(X5), "--down", str(DATA / "x5_down.txt"), "--report",
                 str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--report" in err and ".html" in err
    assert not bad.exists()


def test_health_on_edison_costs_cray_named_cables(tmp_path):
    down = DATA / "edison_down.txt"
    out = tmp_path / "edison.json"
    assert main(["health", str(EDISON), "--down", str(down), "--workload", "uniform",
                 "--seeds", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["classes"]["down"] == 3 and result["critical"] == []
    listed = [line for line in down.read_text().splitlines() if not line.startswith("#")]
    steps = result["repairs"]["uniform"]
    assert sorted(s["cable"] for s in steps[1:]) == sorted(listed)
    assert math.isfinite(result["loss"][0]["loss_pct"])


def test_cost_now_runs_the_workloads_at_once_with_the_tables_each_gives_alone(tmp_path):
    df = classify_cables(X5)
    switch = df[(df["link_class"] == "switch") & ~df["name"].str.contains("#")]
    down = tmp_path / "down.txt"
    down.write_text("\n".join(list(dict.fromkeys(switch["name"]))[:3]) + "\n")
    workloads = ["uniform:size=4096", "alltoall:bytes=4096,budget=16"]
    costs = cost_now(X5, down, workloads, seeds=2)
    assert list(costs) == workloads
    fab = Fabric.read(str(X5))
    for w in workloads:
        alone = links.greedy_repairs(fab, links.workload_spec(w), down=down, engine="flow",
                                     seeds=2, seed=1)
        pd.testing.assert_frame_equal(costs[w], alone)
        # Every cable repaired is the healthy machine, exactly.
        assert (alone.iloc[-1]["throughput_pct"], alone.iloc[-1]["throughput_ci_pct"]) == (100, 0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # checked whether or not a cable is down (with none down, nothing ran them before)
        (["--engine", "bogus"], 'unknown engine "bogus"'),
        (["--workload", "bogus"], 'unknown workload "bogus"'),
        (["--seeds", "-3"], "argument --seeds: must be from 1 to 100000, got -3"),
        (["--workload", "uniform", "--workload", "uniform"], "--workload: uniform given twice"),
        (["--counters", str(DATA / "x5_counters.csv"), str(DATA / "x5_counters.csv")],
         "--counters: " + str(DATA / "x5_counters.csv") + " given twice"),
        # an OverflowError in the bindings before
        (["--down", str(DATA / "x5_down.txt"), "--seeds", "5000000000"], "argument --seeds"),
        # a bit-error rate is below 1
        (["--ber", "1.5"], "argument --ber: must be a finite number from 0 (not included) to 1"),
        (["--ber", "1e308"], "argument --ber"),
        # the last one silently won before
        (["--down", "a.txt", "--down", "b.txt"], "argument --down: given twice (a.txt and b.txt)"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(args, message, capsys):
    rc = main(["health", str(X5), *args])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1, err


def test_health_writes_its_outputs_into_a_folder_it_makes(tmp_path, capsys):
    out, page = tmp_path / "new" / "sub" / "x.json", tmp_path / "new2" / "r.html"
    assert main(["health", str(X5), "--out", str(out), "--report", str(page)]) == 0
    assert json.loads(out.read_text())["down"] == [] and "<h1>" in page.read_text()
