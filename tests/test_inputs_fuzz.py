"""The promise itself, on generated input: every command either succeeds or prints one line
naming what is wrong and exits 2; never a traceback, never another exit status, never a hang
(hypothesis fails an example that runs past its deadline).

One test per reader or grammar: fabric specs, routing names, fault specs and fault files,
TopoBW reports, netwatch logs, scenario files and results files. Inputs are valid examples
with a few characters inserted or cut, and arbitrary text."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from fray.cli import main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sample_inputs import EXAMPLES, FIG6

NETWATCH = ("2012-01-09 03:14:15 c0-0c0s1g0l27 lane degrade: lanes 3 -> 2\n"
            "2012-01-09 03:20:00 c0-0c0s1g0l27 link failed\n")
FABRICS = ["torus:4x4", "mesh:3x3,t=2", "hyperx:3x3,t=2", "dragonfly:p=2,a=4,h=2,g=5",
           "xgft:2;4,4;1,4", "gemini:2x2x2"]
ROUTINGS = ["ugal:threshold=5,links=adaptive", "doal:weights=merlin", "dor-retry", "table"]

FUZZ = settings(max_examples=120, deadline=20_000,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
SPEC_JUNK = st.text(alphabet="0123456789abcxyz:;,=.*+%-#", max_size=3)


def mutated(base: str, data: st.DataObject, junk=SPEC_JUNK) -> str:
    """``base`` with a few characters inserted at one place and maybe a tail cut."""
    at = data.draw(st.integers(0, len(base)))
    text = base[:at] + data.draw(junk) + base[at:]
    return text[: data.draw(st.integers(len(text) // 2, len(text)))]


def promise(capsys, *argv: str, ok: tuple[int, ...] = (0,)) -> None:
    """``fray argv`` exits with a status in ``ok``, or with 2 and one line of error."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own refusals (one error line)
        code = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    if code in ok:
        return
    assert code == 2, (argv, code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[-1].startswith(("fray ", "fray:")), err
    assert lines[-1].split(": error: ", 1)[-1].strip(), err


def write(tmp: Path, name: str, data: str | bytes) -> str:
    path = tmp / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


@FUZZ
@given(data=st.data())
def test_fabric_specs(capsys, data):
    spec = mutated(data.draw(st.sampled_from(FABRICS)), data)
    if ":" in spec:  # a name without a colon is a file name
        promise(capsys, "fabric", "info", spec)


@FUZZ
@given(data=st.data(), text=st.text(max_size=40))
def test_fabric_specs_of_any_text(capsys, data, text):
    if ":" in text and "\x00" not in text:
        promise(capsys, "fabric", "info", text)


@FUZZ
@given(data=st.data())
def test_routing_names_and_endpoints(capsys, data):
    fabric = data.draw(st.sampled_from(FABRICS[:4]))
    routing = mutated(data.draw(st.sampled_from(ROUTINGS)), data)
    dst = data.draw(st.sampled_from(["1", "7", "99999", "18446744073709551616", "r0/0", "x"]))
    promise(capsys, "route", fabric, "--from", "0", "--to", dst, "--routing", routing,
            ok=(0, 1))


@FUZZ
@given(data=st.data())
def test_fault_specs_and_fault_files(capsys, data):
    spec = mutated("router:10%", data)
    lines = data.draw(st.lists(st.sampled_from(["(0,0)->(1,0)", "(1,0)->(0,0)", "(1,1)->(1,2)",
                                                "# note", "", "(0,0)->(2,2)", "\ufeff(0,1)->(0,2)",
                                                "(9,9)->(0,0)", "junk"]), max_size=5))
    with tempfile.TemporaryDirectory() as tmp:
        down = write(Path(tmp), "down.txt", "\n".join(lines))
        promise(capsys, "route", "mesh:3x3", "--from", "0", "--to", "8", "--fail", spec,
                "--fail-file", down, ok=(0, 1))


@FUZZ
@given(data=st.data())
def test_topobw_reports(capsys, data):
    text = data.draw(st.one_of(
        st.builds(lambda t: t, st.text(max_size=200)),
        st.just(FIG6).map(lambda t: t),
    ))
    if text == FIG6:
        text = mutated(FIG6, data, junk=st.text(max_size=4))
    with tempfile.TemporaryDirectory() as tmp:
        promise(capsys, "topobw", "locate", write(Path(tmp), "r.txt", text))


@FUZZ
@given(data=st.data())
def test_netwatch_logs(capsys, data):
    text = mutated(NETWATCH, data, junk=st.text(max_size=6))
    with tempfile.TemporaryDirectory() as tmp:
        promise(capsys, "netwatch", "parse", write(Path(tmp), "n.log", text))


@FUZZ
@given(data=st.data())
def test_scenario_files(capsys, data):
    base = (EXAMPLES / "spares_quick.toml").read_text()
    text = mutated(base, data, junk=st.text(alphabet="0123456789[]=\"\n.#abc ", max_size=4))
    with tempfile.TemporaryDirectory() as tmp:
        promise(capsys, "run", write(Path(tmp), "s.toml", text), "--dry-run")


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz_results")
    text = (EXAMPLES / "spares_quick.toml").read_text()
    scenario = folder / "s.toml"
    scenario.write_text(text.replace("samples = 1000 ", "samples = 4 ")
                        .replace("cases = 250 ", "cases = 4 ").replace("count = 3", "count = 1"))
    db = folder / "r.duckdb"
    assert main(["run", str(scenario), "--db", str(db), "--workers", "1", "--quiet"]) == 0
    return db


@settings(max_examples=25, deadline=60_000,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cut=st.floats(0.0, 1.0), command=st.sampled_from(["report", "export"]))
def test_results_files_cut_anywhere(capsys, results, cut, command):
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "r.duckdb"
        data = results.read_bytes()
        db.write_bytes(data[: int(cut * len(data))])
        promise(capsys, command, str(db), "--out", str(Path(tmp) / "out"))
    shutil.rmtree(Path(tmp), ignore_errors=True)
