"""Diagnostics from Python and the CLI: netwatch logs, modelled TopoBW, localisation."""

import json
import subprocess
import sys

import pytest
from fray import SpecError
from fray.diag import TopoBwPlan, localisation_study, netwatch_parse, topobw_locate, topobw_simulate

FIGURE_4 = """\
130325 15:51:00 c0-0c1s0g0127 c0-0c1s1g0117 1 Mode Exchanges
130325 15:51:00 c0-0c1s0g0127 c0-0c1s1g0117 1 RX lanemask=3
130325 15:51:00 c0-0c1s0g0127 ***ERROR*** Gemini LCB lane(s) reinit failed
not a netwatch line
130325 15:52:00 c0-0c1s1g0117 c0-0c1s0g0127 1 TX lanemask=3
"""


def fray(*args):
    return subprocess.run([sys.executable, "-m", "fray", *args], capture_output=True,
                          text=True, check=False, timeout=300)


def test_netwatch_events_and_bad_lines():
    events, malformed = netwatch_parse(FIGURE_4)
    assert [e["kind"] for e in events] == ["mode-exchange", "lanemask", "error", "lanemask"]
    assert [e.get("degrade") for e in events if e["kind"] == "lanemask"] == [
        "c0-0c1s1g0l17:3", "c0-0c1s1g0l17:3"]
    assert events[1]["lanemask"] == 3 and events[1]["side"] == "RX"
    assert [m[0] for m in malformed] == [4]


def test_netwatch_cli_json(tmp_path):
    log = tmp_path / "netwatch.log"
    log.write_text(FIGURE_4)
    r = fray("netwatch", "parse", str(log), "--json")
    assert r.returncode == 0
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(rows) == 4 and rows[1]["lanemask"] == 3
    assert f"{log}:4: skipped" in r.stderr
    missing = fray("netwatch", "parse", str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and len(missing.stderr.splitlines()) == 1


def test_plan_phases_and_report():
    plan = TopoBwPlan("builtin:2x2x1", 4)
    phases = plan.phases
    assert sum(len(p) for p in phases) == plan.num_transfers == 8
    for phase in phases:
        senders = {s for s, _ in phase}
        assert not senders & {d for _, d in phase}
    text = plan.report([0.5] * 8, 1e9)
    assert "2000.00 MB/sec" in text and text.count("Bandwidth") == 2
    with pytest.raises(SpecError, match="durations"):
        plan.report([0.5], 1e9)
    with pytest.raises(SpecError, match="layout.txt:1"):
        TopoBwPlan("layout.txt", 2, "0 c0-0c0s0n0\n")


def test_simulated_report_locates_each_kind(tmp_path):
    out = tmp_path / "out.txt"
    r = fray("topobw", "--simulate", "gemini:4x4x4", "--degrade",
             "c0-0c0s1g0l27:3,gemini:c2-1c0s2g1", "--degrade", "node:c1-0c0s3n2",
             "--report", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text().count("Bandwidth") == 3
    r = fray("topobw", "locate", str(out), "--json")
    found = [(s["kind"], s["name"]) for s in map(json.loads, r.stdout.splitlines())]
    assert found == [("gemini", "c2-1c0s2g1"), ("node", "c1-0c0s3n2"),
                     ("link", "c0-0c0s1g0->c0-0c0s2g0")]


def test_netwatch_log_feeds_the_model(tmp_path):
    log = tmp_path / "netwatch.log"
    log.write_text(FIGURE_4)
    text = topobw_simulate("gemini:2x2x16", [netwatch_parse(FIGURE_4)[0][1]["degrade"]],
                           4e6, 4, "shared")
    suspects = topobw_locate("model", text)
    assert [(s["kind"], s["name"], s["direction"]) for s in suspects] == [
        ("link", "c0-0c1s1g0->c0-0c1s0g0", "Z-")]
    r = fray("topobw", "--simulate", "gemini:2x2x16", "--log", str(log), "--sharing", "shared")
    assert r.returncode == 0 and r.stdout.count("MB/sec") > 0


def test_study_is_perfect_without_noise_and_not_with_it():
    clean = localisation_study("gemini:4x4x4", 5, 2, 0.0, 7)
    assert clean["total"]["precision"] == clean["total"]["recall"] == 1.0
    noisy = localisation_study("gemini:4x4x4", 5, 2, 0.2, 7)
    assert noisy["total"]["recall"] < 1.0 or noisy["total"]["precision"] < 1.0


@pytest.mark.parametrize("args,needle", [
    (["--simulate", "gemini:4x4x4", "--degrade", "c0-0c0s1g0l27:9"], "lane mask is 0 to 7"),
    (["--simulate", "gemini:4x4x4", "--degrade", "c9-0c0s1g0l27:3"], "c9-0c0s1g0"),
    (["--simulate", "torus:4x4x4"], "gemini:XxYxZ"),
    (["--simulate", "gemini:4x4x4", "--size", "4 parsecs"], "size"),
    (["locate"], "report file"),
    (["--simulate", "gemini:4x4x4", "--simulate-file", "x5.txt"], "--simulate-file"),
    # the option is --report (it was named --output)
    (["--simulate", "gemini:2x2x2", "--report", "x.csv"], "--report: 'x.csv' must end in .txt"),
    # whole numbers checked against the range the core takes (an OverflowError before)
    (["--simulate", "gemini:2x2x2", "--count", "5000000000"], "argument --count"),
    (["study", "--simulate", "gemini:2x2x2", "--cases", "5000000000"], "argument --cases"),
    (["study", "--simulate", "gemini:2x2x2", "--faults", "99999999999999999999"],
     "argument --faults"),
    # inf is not negative: it is not finite
    (["study", "--simulate", "gemini:2x2x2", "--noise", "inf"],
     "argument --noise: must be a finite number >= 0, got inf"),
    (["study", "--simulate", "gemini:2x2x2", "--noise", "-inf"], "argument --noise"),
])
def test_bad_input_is_one_line_and_exit_2(args, needle):
    r = fray("topobw", *args)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and needle in r.stderr, r.stderr


def test_bad_report_names_the_line(tmp_path):
    report = tmp_path / "r.txt"
    report.write_text("c0-0c0s5n1 X+CE c0-0c1s5n1 (nid00011 to nid00053): 5 seconds = 1 MB/sec\n"
                      "c0-0c0s5n1 Q+CE c0-0c1s5n1 (nid00011 to nid00053): 5 seconds = 1 MB/sec\n")
    r = fray("topobw", "locate", str(report))
    assert r.returncode == 2 and f"{report}:2:" in r.stderr


def test_peers_on_the_x5_dump():
    x5 = "crates/fray-core/tests/data/psmn_X5_ibnetdiscover.topofile"
    r = fray("topobw", "peers", x5, "--json")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["name"].split("->")[0] for x in rows] == ["H-003048c74e4a0000",
                                                        "H-003048c7488b0000"]
    assert all(x["lane_bits_s"] < x["peer_lane_bits_s"] for x in rows)


def test_hosts_of_the_x5_dump_flag_exactly_the_ddr_hcas(tmp_path):
    x5 = "crates/fray-core/tests/data/psmn_X5_ibnetdiscover.topofile"
    out = tmp_path / "x5.txt"
    r = fray("topobw", "--simulate-file", x5, "--format", "ibnetdiscover", "--size", "1MiB",
             "--count", "4", "--report", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert " -> " in text and text.count("Bandwidth hosts") == 1
    r = fray("topobw", "locate", str(out), "--fabric", x5, "--json")
    assert r.returncode == 0, r.stderr
    flagged = [json.loads(x) for x in r.stdout.splitlines()]
    peers = fray("topobw", "peers", x5, "--json")
    ddr = [json.loads(x)["name"] for x in peers.stdout.splitlines()]
    assert sorted(s["name"] for s in flagged) == sorted(ddr)
    assert {(s["kind"], s["direction"]) for s in flagged} == {("link", "host")}
    r = fray("topobw", "locate", str(out))
    assert r.returncode == 2 and "needs the fabric" in r.stderr


def test_netwatch_cost_of_a_log(tmp_path):
    log = tmp_path / "netwatch.log"
    log.write_text(FIGURE_4)
    r = fray("netwatch", "cost", str(log), "--machine", "gemini:2x2x16", "--cells", "8",
             "--json")
    assert r.returncode == 0, r.stderr
    cost = json.loads(r.stdout)
    assert cost["degrades"] == ["c0-0c1s1g0l17:3", "c0-0c1s1g0l17:3"]
    assert cost["degraded_iteration_s"] >= cost["healthy_iteration_s"] > 0
    r = fray("netwatch", "cost", str(log))
    assert r.returncode == 2 and "--machine" in r.stderr


def _one_line(capsys, *argv):
    from fray.cli import main

    rc = main(list(argv))
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv", [("topobw", "locate", "{}"),
                                  ("topobw", "--simulate", "gemini:2x2x2", "--log", "{}")])
def test_a_file_that_is_not_utf8_is_named(tmp_path, capsys, argv):
    binary = tmp_path / "c_bin.csv"
    binary.write_bytes(b"\xd4\xff\xfe garbage \x80\n")
    err = _one_line(capsys, *(a.format(binary) for a in argv))
    assert f"{binary}: not UTF-8 text" in err


def test_peers_reads_the_file_as_the_format_given(capsys):
    x5 = "crates/fray-core/tests/data/psmn_X5_ibnetdiscover.topofile"
    _one_line(capsys, "topobw", "peers", x5, "--format", "json")
    from fray.cli import main

    assert main(["topobw", "peers", x5, "--format", "ibnetdiscover", "--json"]) == 0


def test_topobw_report_goes_into_a_folder_it_makes(tmp_path):
    from fray.cli import main

    out = tmp_path / "new" / "x.txt"
    assert main(["topobw", "--simulate", "gemini:2x2x2", "--report", str(out)]) == 0
    assert out.read_text()


@pytest.mark.parametrize("args", [["--cells", "5000000000"], ["--iterations", "5000000000"],
                                  ["--iterations", "0"]])
def test_netwatch_cost_numbers_name_the_option(tmp_path, capsys, args):
    log = tmp_path / "netwatch.log"
    log.write_text(FIGURE_4)
    err = _one_line(capsys, "netwatch", "cost", str(log), "--machine", "gemini:2x2x16", *args)
    assert f"argument {args[0]}" in err


@pytest.mark.parametrize("args", [["--cells", "5"], ["--iterations", "2"],
                                  ["--machine", "gemini:2x2x16"]])
def test_netwatch_parse_refuses_the_options_of_cost(tmp_path, capsys, args):
    log = tmp_path / "netwatch.log"
    log.write_text(FIGURE_4)
    err = _one_line(capsys, "netwatch", "parse", str(log), *args)
    assert f"{args[0]}: options of 'netwatch cost', not of 'parse'" in err


@pytest.mark.parametrize("args", [["--cases", "5"], ["--faults", "1"], ["--noise", "0.01"],
                                  ["--seed", "3"]])
def test_topobw_study_options_are_refused_outside_the_study(capsys, args):
    err = _one_line(capsys, "topobw", "--simulate", "gemini:2x2x2", *args)
    assert f"{args[0]}: options of 'topobw study' only" in err
