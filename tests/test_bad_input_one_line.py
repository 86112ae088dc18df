"""Every case of the hardening issue: bad input ends in one line naming it and exit status 2
(or a SpecError from the API), good input that was refused is read, and nothing hangs.

Each test fails on the behaviour before the fix (a traceback, a panic, a hang, a silently
wrong value, or a refusal of good input)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import duckdb
import fray
import pytest
from fray import SpecError
from fray.cli import main
from fray.links import workload_spec
from sample_inputs import EXAMPLES, FIG6


def one_line(capsys, *argv: str, needle: str) -> str:
    """Runs ``fray argv`` in this process; asserts exit 2 and one stderr line holding
    ``needle``; returns the line."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse refuses an option value itself
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and needle in err[-1], err
    assert "Traceback" not in "\n".join(err)
    return err[-1]


# -- crashes, hangs, silently wrong ----------------------------------------------------------

def test_static_load_names_an_endpoint_that_does_not_exist():
    fabric = fray.Fabric.parse("torus:4x4")
    with pytest.raises(SpecError, match="destination 1000000000 does not exist"):
        fray.static_load(fabric, [(0, 10**9, 100.0)])


def test_topobw_study_with_more_faults_than_fit_ends(capsys):
    one_line(capsys, "topobw", "study", "--simulate", "gemini:2x2x2", "--cases", "2",
             "--faults", "5", needle="faults per case 5")


def test_dry_run_of_2_to_the_64_samples_is_refused_not_planned(tmp_path, capsys):
    text = (EXAMPLES / "spares_quick.toml").read_text()
    scenario = tmp_path / "huge.toml"
    scenario.write_text(text.replace("samples = 1000 ", "samples = 18446744073709551616 "))
    one_line(capsys, "run", str(scenario), "--dry-run", needle="faults.samples")
    scenario.write_text(text.replace("samples = 1000 ", "samples = 9000000000000 "))
    one_line(capsys, "run", str(scenario), "--dry-run", needle="more than the 1000000")


def test_dry_run_refuses_more_jobs_than_the_machine_has_endpoints(tmp_path, capsys):
    text = (EXAMPLES / "links_quick.toml").read_text()
    scenario = tmp_path / "many_jobs.toml"
    scenario.write_text(text.replace("counts = [1, 4]", "counts = [100000]"))
    one_line(capsys, "run", str(scenario), "--dry-run",
             needle="jobs.counts: links study: jobs: workload jobs count: 100000 jobs cannot "
                    "share 544 endpoints")


def test_packet_times_beyond_the_engine_clock_are_refused(capsys):
    for option in ("nic_setup=2e7s", "input_latency=300d", "output_latency=1e30s"):
        one_line(capsys, "links", "--fabric", "torus:4x4", "--jobs", "1", "--failed", "5",
                 "--engine", f"packet:{option}", needle="the packet engine's clock holds")


def test_temporal_replication_is_bounded(capsys):
    one_line(capsys, "collective", "--fabric", "xgft:2;4,4;1,4", "--replication",
             "temporal:1000000", needle="at most 64 copies")


def test_a_fabric_larger_than_memory_is_refused_before_allocating(capsys):
    one_line(capsys, "fabric", "info", "torus:8192x8192", needle="GiB")


def test_host_costs_beyond_the_packet_clock_are_refused():
    with pytest.raises(SpecError, match="clock"):
        fray.simulate(fray.Fabric.parse("torus:4x4"), "halo3d26:nx=2,host=ember*1e30",
                      engine="packet")


def test_a_cable_listed_in_both_directions_is_named(tmp_path):
    down = tmp_path / "down.txt"
    down.write_text("(0,0)->(1,0)\n(1,0)->(0,0)\n")
    with pytest.raises(SpecError, match="cable of line 1 again"):
        fray.links.study("torus:4x4", "halo3d26:nx=2", jobs=[1], failed_pct=[5], seeds=1,
                         down=down)


@pytest.mark.parametrize("text, line, needle", [
    ("(0,0)->(1,0)[3]\n", 1, "the cables between (0,0) and (1,0) are numbered [1] to [2]"),
    ("(0,0)->(1,0)[2]\n# again\n(1,0)->(0,0)[2]\n", 3, "cable of line 1 again"),
])
def test_a_parallel_cable_out_of_range_or_listed_twice_is_named(tmp_path, capsys, text, line,
                                                                 needle):
    down = tmp_path / "down.txt"
    down.write_text(text)
    err = one_line(capsys, "route", "hyperx:3x3,k=2", "--from", "0", "--to", "8",
                   "--fail-file", str(down), needle=needle)
    assert f"down.txt:{line}: " in err


def test_a_routing_option_given_twice_is_refused(capsys):
    one_line(capsys, "route", "dragonfly:p=2,a=4,h=2,g=5", "--from", "0", "--to",
             "9", "--routing", "ugal:threshold=5,threshold=6", needle="threshold given twice")


@pytest.mark.parametrize("text, needle", [
    ("", "no transfer line"),
    (FIG6.splitlines()[0] + "\n", "cut short"),
    (FIG6.splitlines()[-1] + "\n", "no transfer line"),
    ("\n".join(FIG6.splitlines()[:2]) + "\n", "cut short"),
    (FIG6 + FIG6, "repeats the transfer of line 1"),
])
def test_locate_refuses_a_report_it_cannot_read_whole(tmp_path, capsys, text, needle):
    report = tmp_path / "r.txt"
    report.write_text(text)
    one_line(capsys, "topobw", "locate", str(report), needle=needle)


def test_locate_flags_a_transfer_that_moved_nothing(tmp_path, capsys):
    healthy = fray.diag.topobw_simulate("gemini:2x4x4", [], 1e6, 4, "both")
    lines = healthy.splitlines()
    first = lines[0].rsplit("=", 1)[0] + "= 0.00 MB/sec"
    report = tmp_path / "r.txt"
    report.write_text("\n".join([first, *lines[1:]]) + "\n")
    assert main(["topobw", "locate", str(report)]) == 0
    out = capsys.readouterr().out
    assert "no suspect" not in out and "slower" in out


def test_gemini_y_must_be_even(capsys):
    one_line(capsys, "fabric", "info", "gemini:4x3x4", needle="y must be even")


def test_links_failed_zero_alone_prints_its_rows(capsys):
    assert main(["links", "--fabric", "torus:4x4", "--failed", "0", "--jobs", "1", "--seeds",
                 "1", "--quiet", "--no-compute", "--nx", "2"]) == 0
    out = capsys.readouterr().out
    assert "Empty DataFrame" not in out and "0%" in out


def test_links_failed_given_twice_is_refused_before_the_run(capsys):
    one_line(capsys, "links", "--fabric", "torus:4x4", "--failed", "5,5", "--jobs", "1",
             needle="5 given twice")


# -- numbers at the boundary -----------------------------------------------------------------

@pytest.mark.parametrize("argv, needle", [
    (("route", "torus:4x4", "--from", "0", "--to", "18446744073709551616"),
     "--to: endpoint 18446744073709551616 does not exist"),
    (("links", "--fabric", "torus:4x4", "--jobs", "-1", "--failed", "5"), "jobs"),
    (("route", "torus:4x4", "--from", "0", "--to", "1", "--seed",
      "18446744073709551616"), "--seed"),
    (("spares", "--fabric", "mesh:8x8", "--alloc", "2D(2,1)", "--method", "0D", "--samples",
      "2", "--max-failures", "-1"), "--max-failures"),
    # a 400-digit number is not echoed whole
    (("route", "torus:4x4", "--from", "0", "--to", "1", "--seed", "9" * 400),
     "got 9999999999...999999 (400 characters)"),
])
def test_numbers_out_of_range_name_the_option(capsys, argv, needle):
    one_line(capsys, *argv, needle=needle)


@pytest.mark.parametrize("size", ["1e400B", "1e30B", "-1B"])
@pytest.mark.parametrize("action", [(), ("study", "--cases", "1", "--faults", "1")],
                         ids=["simulate", "study"])
def test_topobw_size_out_of_range_is_one_line(capsys, action, size):
    one_line(capsys, "topobw", *action, "--simulate", "gemini:2x2x2", "--size", size,
             needle="size")


@pytest.mark.parametrize("kwargs, needle", [
    ({"failed_pct": "10"}, "failed_pct: expected a list"),
    ({"jobs": [1.5]}, "jobs: expected whole numbers"),
    ({"jobs": [True]}, "jobs: expected whole numbers"),
    ({"seed": 2**64}, "seed"),
    ({"time_tolerance": math.nan}, "time_tolerance: must be in"),
    ({"time_resolution": -1e-9}, "time_resolution: must be in"),
    ({"seeds": 2**32}, "seeds: must be from 1 to 100000"),
    ({"time_tolerance": "x"}, "time_tolerance: expected a number, got 'x'"),
    ({"fail": 123}, "fail: expected a string, got 123"),
    ({"down": 123}, "down: expected the path of a fault file"),
    ({"profile": 123}, "profile: expected a fray.profiles.Profile or a profile name"),
])
def test_links_study_checks_its_numbers(kwargs, needle):
    args = {"jobs": [1], "failed_pct": [5], "seeds": 1} | kwargs
    with pytest.raises(SpecError, match=needle):
        fray.links.study("torus:4x4", "halo3d26:nx=2", **args)


def test_spares_samples_true_is_not_one():
    with pytest.raises(SpecError, match="samples"):
        fray.spares.study("mesh:8x8", "2D(2,1)", "0D", samples=True)


@pytest.mark.parametrize("kwargs, field", [({"time_tolerance": 0.5}, "time_tolerance"),
                                           ({"time_resolution": -1.0}, "time_resolution")])
def test_simulate_checks_the_flow_settings_as_the_study_does(kwargs, field):
    with pytest.raises(SpecError, match=f"{field}: must be in") as err:
        fray.simulate(fray.Fabric.parse("torus:4x4"), "halo3d26:nx=2", **kwargs)
    assert err.value.field == field


# -- outputs checked before any work ---------------------------------------------------------

@pytest.mark.parametrize("argv, needle", [
    (("links", "--fabric", "torus:4x4", "--out", "/proc/x.csv"), "--out: cannot write"),
    (("links", "--fabric", "torus:4x4", "--plot", "/proc/x.png"), "--plot: cannot write"),
    (("links", "--fabric", "torus:4x4", "--out", "r.xlsx"), ".csv or .parquet"),
])
def test_outputs_are_checked_first(capsys, argv, needle):
    one_line(capsys, *argv, needle=needle)


def test_spares_plot_to_a_folder_is_refused(tmp_path, capsys):
    one_line(capsys, "spares", "--fabric", "mesh:8x8", "--alloc", "2D(2,1)", "--method", "0D",
             "--samples", "2", "--plot", str(tmp_path), needle="is a folder")
    assert not tmp_path.with_suffix(".png").exists()


def test_topobw_report_to_a_folder_is_refused(tmp_path, capsys):
    one_line(capsys, "topobw", "--simulate", "gemini:2x2x2", "--report", str(tmp_path),
             needle="is a folder")


@pytest.mark.parametrize("command", ["report", "export"])
def test_report_and_export_out_to_a_file_is_refused(tmp_path, capsys, command):
    taken = tmp_path / "taken"
    taken.write_text("x")
    one_line(capsys, command, str(tmp_path / "r.duckdb"), "--out", str(taken),
             needle="is a file, expected a folder")


# -- results files ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A small finished spares campaign."""
    folder = tmp_path_factory.mktemp("results")
    scenario = folder / "s.toml"
    text = (EXAMPLES / "spares_quick.toml").read_text()
    scenario.write_text(text.replace("samples = 1000 ", "samples = 4 ")
                        .replace("cases = 250 ", "cases = 4 ")
                        .replace("count = 3", "count = 1")
                        .replace('"0D", "hybrid(all)"', '"0D"'))
    db = folder / "r.duckdb"
    assert main(["run", str(scenario), "--db", str(db), "--workers", "1", "--quiet"]) == 0
    return db


def damaged(results: Path, tmp_path: Path, sql: str) -> Path:
    copy = tmp_path / "copy.duckdb"
    shutil.copy(results, copy)
    con = duckdb.connect(str(copy))
    con.execute(sql)
    con.close()
    return copy


@pytest.mark.parametrize("sql, needle", [
    ('DROP TABLE "spares_quick"', "its table is missing"),
    ('ALTER TABLE "spares_quick" DROP COLUMN collisions_worst', "no column 'collisions_worst'"),
    ("UPDATE fray_studies SET kind = 'nosuch'", "kind 'nosuch'"),
    ("UPDATE fray_studies SET planned_tasks = 0", "tasks done of 0 planned"),
    ("DELETE FROM fray_studies", "holds no study"),
    ("ALTER TABLE fray_studies DROP COLUMN source_path",
     "fray_studies has no column 'source_path'"),
])
@pytest.mark.parametrize("command", ["report", "export"])
def test_damaged_results_files_are_named(results, tmp_path, capsys, sql, needle, command):
    db = damaged(results, tmp_path, sql)
    one_line(capsys, command, str(db), "--out", str(tmp_path / "out"), needle=needle)


def test_a_truncated_results_file_is_named(results, tmp_path, capsys):
    cut = tmp_path / "cut.duckdb"
    data = results.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    one_line(capsys, "report", str(cut), "--out", str(tmp_path / "out"), needle=str(cut))


# -- good input that was refused -------------------------------------------------------------

def test_motif_options_in_the_workload_are_kept():
    assert workload_spec("halo3d26:nx=20") == "halo3d26:nx=20,iterations=1"
    with pytest.raises(SpecError, match="iterations given twice"):
        workload_spec("halo3d26:iterations=3", iterations=2)


def test_workload_numbers_keep_every_digit():
    assert workload_spec(nx=123456789) == "halo3d26:iterations=1,nx=123456789"
    assert workload_spec(peflops=1.5e9, compute_s=1 / 3) == (
        "halo3d26:iterations=1,compute_s=0.3333333333333333,peflops=1.5e+09")


def test_a_byte_order_mark_is_skipped_in_fault_and_scenario_files(tmp_path):
    fabric = fray.Fabric.parse("mesh:3x3")
    down = tmp_path / "down.txt"
    down.write_bytes("\ufeff(0,0)->(1,0)\n".encode())
    faults = fray.Faults(fabric)
    faults.fail_file(str(down))
    scenario = tmp_path / "s.toml"
    scenario.write_bytes(b"\xef\xbb\xbf" + (EXAMPLES / "spares_quick.toml").read_bytes())
    assert fray.campaign.load_scenario(scenario).name == "spares_quick"


def test_a_missing_fabric_file_says_so(capsys):
    one_line(capsys, "fabric", "info", "nosuch.topofile", needle="no such file")


@pytest.mark.parametrize("argv", [["fabric", "info"], ["links", "--quiet", "--fabric"]])
def test_a_directory_given_as_a_fabric_file_says_so(tmp_path, capsys, argv):
    # It was read as a spec: "no such file", or "expected FAMILY:PARAMETERS".
    folder = tmp_path / "fabric.json"
    folder.mkdir()
    one_line(capsys, *argv, str(folder), needle="Is a directory")


@pytest.fixture
def fig6_report(tmp_path) -> Path:
    """The Figure 6 report (``FIG6``) written to ``r.txt``."""
    report = tmp_path / "r.txt"
    report.write_text(FIG6)
    return report


def test_locate_refuses_a_report_with_nodes_not_on_the_machine(fig6_report, capsys):
    one_line(capsys, "topobw", "locate", str(fig6_report), "--simulate", "gemini:2x2x8",
             needle="r.txt:1: node c0-0c1s5n1 is not on the machine gemini:2x2x8")
    fig6_report.write_text(FIG6.replace("nid00007", "nid00009"))
    one_line(capsys, "topobw", "locate", str(fig6_report), "--simulate", "gemini:2x2x16",
             needle="r.txt:2: node c0-0c0s3n1 is nid00007 on gemini:2x2x16")


def test_locate_reads_a_report_of_the_machine_it_is_given(fig6_report, capsys):
    assert main(["topobw", "locate", str(fig6_report), "--simulate", "gemini:2x2x16"]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_locate_refuses_a_fabric_for_a_gemini_report(fig6_report, capsys):
    one_line(capsys, "topobw", "locate", str(fig6_report), "--fabric", "torus:4x4",
             needle="only for a host report")


# -- argparse's refusals: one line, and values with a minus sign reach their option ---------

@pytest.mark.parametrize("argv, needle", [
    (("spares", "--fabric", "mesh:8x8", "--alloc", "2D(2,1)", "--method", "0D", "--samples",
      "0"), "fray spares: error: argument --samples: must be from 1"),
    (("links", "--fabric", "torus:4x4", "--seeds", "x"),
     "fray links: error: argument --seeds: expected a whole number, got 'x'"),
    (("checksum", "tune", "--trials", "x"), "fray checksum tune: error: argument --trials"),
    (("plan", "--fabric", "torus:4x4", "--fail", "router=exp:mtbf=9d", "--every", "-1d"),
     'every: cannot read "-1d"'),
    (("traffic", "--fabric", "torus:4x4", "--load", "0.1", "--measure", "-1us"),
     'measure: cannot read "-1us"'),
    (("topobw", "study", "--simulate", "gemini:2x2x2", "--noise", "-inf"), "argument --noise"),
    (("links", "--fabric", "torus:4x4", "--bogus"), "unrecognized arguments: --bogus"),
    ((), "fray: error: the following arguments are required: COMMAND"),
])
def test_argparse_refusals_are_one_line(capsys, argv, needle):
    one_line(capsys, *argv, needle=needle)


def test_help_still_prints_the_usage(capsys):
    assert main(["links", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: fray links")


@pytest.mark.parametrize(("workload", "needle"), [
    ("halo3d26:peflops=0", "peflops: expected a rate in flop/s > 0"),  # named compute_s
    ("halo3d26:nx=1.5", "nx: expected a whole number >= 1, got 1.5"),
])
def test_a_workload_option_is_named_by_the_cli(capsys, workload, needle):
    one_line(capsys, "links", "--fabric", "torus:4x4", "--workload", workload, "--jobs", "1",
             "--failed", "0", needle=needle)


def test_a_bit_error_rate_of_one_is_refused_by_the_cli(capsys):
    # 1 once passed the flag's own check (the core refused it); no cable could ever be
    # erroring. The flag's range now ends below 1, as the core's does.
    one_line(capsys, "health", str(EXAMPLES / "data" / "x5.topofile"), "--ber", "1",
             needle="argument --ber: must be a finite number from 0 (not included) to 1 "
                    "(not included), got 1")
