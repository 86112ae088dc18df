"""Scenario files: good files parse to what they say, bad ones fail naming the file and key."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from pathlib import Path

import pytest
from fray.campaign import ScenarioError, load_scenario, make_plan, parse_scenario, studies
from fray.campaign.schema import REQUIRED
from fray.campaign.studies.spares import SECTIONS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.toml"))
SOURCE = "study.toml"

# -- a small TOML writer (values the scenario format uses) ------------------------------------


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        out = []
        for ch in v:
            if ch in '"\\' or ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{ord(ch):04X}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def toml(doc: dict, comments: bool = False, rng: random.Random | None = None) -> str:
    """``{section: {key: value}}`` as TOML; ``rng`` shuffles sections and keys."""
    lines = []
    sections = list(doc.items())
    if rng:
        rng.shuffle(sections)
    for section, keys in sections:
        lines.append(f"[{section}]")
        items = list(keys.items())
        if rng:
            rng.shuffle(items)
        for k, v in items:
            key = f'"{k}"' if "." in k else k
            lines.append(f"{key} = {toml_value(v)}" + ("  # a comment" if comments else ""))
        if comments:
            lines.append("# between sections")
    return "\n".join(lines) + "\n"


# -- strategies -------------------------------------------------------------------------------

texts = st.text(min_size=1, max_size=12).filter(lambda s: s.strip())
VALUES = {
    ("fabric", "topology"): texts,
    ("jobs", "spare_allocation"): texts,
    ("workload", "stencil"): texts,
    ("workload", "periodic"): st.booleans(),
    ("faults", "mode"): st.sampled_from(["samples", "exhaustive"]),
    ("faults", "samples"): st.integers(1, 10**9),
    ("faults", "max_failures"): st.integers(1, 10**6),
    ("mitigation", "substitution"): texts,
    ("routing", "algorithm"): st.just("dimension-order"),
    ("engine", "name"): st.just("load"),
    ("metrics", "curves"): st.lists(st.sampled_from(["best", "mean", "worst"]), min_size=1,
                                    max_size=3, unique=True),
    ("metrics", "selection_rates"): st.booleans(),
    ("tasks", "cases"): st.integers(1, 10**9),
}
ALL_KEYS = [(s, k) for s, keys in SECTIONS.items() for k in keys]
REQUIRED_KEYS = [(s, k) for s, k in ALL_KEYS if SECTIONS[s][k].default is REQUIRED]


def test_every_key_of_the_kind_has_a_strategy():
    assert sorted(VALUES) == sorted(ALL_KEYS)


@st.composite
def configs(draw) -> dict:
    """A valid spares config: every required key, and any subset of the others."""
    chosen = set(REQUIRED_KEYS) | set(draw(st.sets(st.sampled_from(ALL_KEYS))))
    doc: dict = {"study": {"kind": "spares", "name": "s"}}
    for s, k in ALL_KEYS:
        if (s, k) in chosen:
            doc.setdefault(s, {})[k] = draw(VALUES[(s, k)])
    if draw(st.booleans()):
        doc["replications"] = {"count": draw(st.integers(1, 50)),
                               "seed": draw(st.integers(0, 2**63 - 1))}
    return doc


def expected_value(doc: dict, s: str, k: str):
    if k in doc.get(s, {}):
        v = doc[s][k]
        return tuple(v) if isinstance(v, list) else v
    f = SECTIONS[s][k]
    return None if f.default is REQUIRED else f.default


# -- properties -------------------------------------------------------------------------------


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_a_valid_file_parses_to_its_values_and_defaults(doc):
    sc = parse_scenario(toml(doc), SOURCE)
    for s, k in ALL_KEYS:
        assert sc.config[s][k] == expected_value(doc, s, k), (s, k)
    assert sc.replications == doc.get("replications", {}).get("count", 1)
    assert sc.seed == doc.get("replications", {}).get("seed", 0)
    assert sc.name == "s" and sc.kind == "spares"


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(configs(), st.randoms(use_true_random=False))
def test_the_hash_ignores_key_order_comments_and_written_defaults(doc, rng):
    h = parse_scenario(toml(doc), SOURCE).hash
    assert parse_scenario(toml(doc, comments=True, rng=rng), SOURCE).hash == h
    with_defaults = {s: dict(keys) for s, keys in doc.items()}
    for s, k in ALL_KEYS:
        f = SECTIONS[s][k]
        if k not in doc.get(s, {}) and f.default not in (None, REQUIRED):
            d = f.default
            with_defaults.setdefault(s, {})[k] = list(d) if isinstance(d, tuple) else d
    with_defaults["study"]["description"] = "a description does not change results"
    assert parse_scenario(toml(with_defaults, rng=rng), SOURCE).hash == h


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(configs(), st.data())
def test_the_hash_changes_with_any_value(doc, data):
    s, k = data.draw(st.sampled_from(sorted((s, k) for s, keys in doc.items() for k in keys
                                            if s != "study")))
    new = data.draw(VALUES.get((s, k), st.integers(1, 50)))
    assume(new != doc[s][k])
    changed = {sec: dict(keys) for sec, keys in doc.items()}
    changed[s][k] = new
    assert parse_scenario(toml(changed), SOURCE).hash != parse_scenario(toml(doc), SOURCE).hash


names = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(configs(), st.sampled_from(sorted(SECTIONS) + ["study", "replications"]), names)
def test_an_unknown_key_is_an_error_naming_it(doc, section, key):
    known = set(SECTIONS.get(section, {})) | {"kind", "name", "description", "count", "seed"}
    assume(key not in known)
    doc.setdefault(section, {})[key] = 1
    with pytest.raises(ScenarioError) as err:
        parse_scenario(toml(doc), SOURCE)
    assert err.value.key == f"{section}.{key}"
    assert str(err.value).startswith(f"{SOURCE}: {section}.{key}: unknown key")


WRONG = {
    "text": st.one_of(st.integers(), st.booleans(), st.just([1]), st.just("  ")),
    "whole": st.one_of(st.text(max_size=3), st.floats(allow_nan=False, allow_infinity=False),
                       st.booleans(), st.integers(max_value=0)),
    "bool": st.one_of(st.integers(), st.text(max_size=3)),
    "fixed": st.one_of(st.integers(), st.text(max_size=5).filter(
        lambda t: t not in ("samples", "exhaustive", "dimension-order", "load"))),
    "curves": st.one_of(st.just([]), st.just(["best", "best"]), st.just(["median"]),
                        st.text(max_size=3)),
}
KEY_TYPE = {("workload", "periodic"): "bool", ("metrics", "selection_rates"): "bool",
            ("metrics", "curves"): "curves", ("faults", "mode"): "fixed",
            ("routing", "algorithm"): "fixed", ("engine", "name"): "fixed",
            ("faults", "samples"): "whole", ("faults", "max_failures"): "whole",
            ("tasks", "cases"): "whole"}


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(configs(), st.sampled_from(ALL_KEYS), st.data())
def test_a_value_of_the_wrong_type_is_an_error_naming_its_key(doc, where, data):
    s, k = where
    bad = data.draw(WRONG[KEY_TYPE.get(where, "text")])
    doc.setdefault(s, {})[k] = bad
    with pytest.raises(ScenarioError) as err:
        parse_scenario(toml(doc), SOURCE)
    assert err.value.key == f"{s}.{k}"
    assert str(err.value).startswith(f"{SOURCE}: {s}.{k}: expected ")


@settings(max_examples=300)
@given(st.text(max_size=200))
def test_any_text_parses_or_fails_with_a_scenario_error(text):
    try:
        parse_scenario(text, SOURCE)
    except ScenarioError as exc:
        assert str(exc).startswith(f"{SOURCE}: ")


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, min_size=1, max_size=4, unique=True),
       st.lists(st.sampled_from(["5P", "9P", "7P", "27P"]), min_size=1, max_size=4, unique=True),
       st.lists(st.integers(1, 9), min_size=1, max_size=3, unique=True))
def test_grid_points_are_the_product_in_a_fixed_order(methods, stencils, failures):
    grid = {"mitigation.substitution": methods, "workload.stencil": stencils,
            "faults.max_failures": failures}
    docs = []
    for order in (list(grid), list(reversed(grid))):
        doc = base_doc()
        doc["sweep.grid"] = {k: grid[k] for k in order}
        docs.append(parse_scenario(toml(doc), SOURCE))
    a, b = (sc.points() for sc in docs)
    assert docs[0].hash == docs[1].hash
    assert [p.values for p in a] == [p.values for p in b]
    want = {tuple(sorted(zip(grid, combo))) for combo in itertools.product(*grid.values())}
    assert {tuple(sorted(p.values.items())) for p in a} == want
    assert len(a) == len(want)
    for p in a:
        assert p.config["mitigation"]["substitution"] == p.values["mitigation.substitution"]
        assert p.config["faults"]["max_failures"] == p.values["faults.max_failures"]


@settings(max_examples=60)
@given(st.integers(0, 2**63 - 1), st.integers(1, 20), st.integers(1, 50), st.integers(0, 50))
def test_random_draws_stay_in_range_and_repeat_with_the_seed(seed, draws, low, span):
    doc = base_doc()
    doc["replications"] = {"seed": seed}
    doc["sweep.random"] = {"draws": draws,
                           "faults.max_failures": {"int": [low, low + span]},
                           "workload.stencil": {"choice": ["5P", "9P"]}}
    text = toml(doc)
    a = parse_scenario(text, SOURCE).points()
    assert len(a) == draws
    assert all(low <= p.values["faults.max_failures"] <= low + span for p in a)
    assert all(p.values["workload.stencil"] in ("5P", "9P") for p in a)
    assert [p.values for p in parse_scenario(text, SOURCE).points()] == [p.values for p in a]


def base_doc() -> dict:
    return {"study": {"kind": "spares", "name": "s"}, "fabric": {"topology": "mesh:8x8"},
            "jobs": {"spare_allocation": "2D(1,1)"}, "faults": {"samples": 10},
            "mitigation": {"substitution": "0D"}}


def test_points_times_grid_times_draws():
    doc = base_doc()
    text = toml(doc) + """
[[sweep.points]]
jobs.spare_allocation = "2D(1,1)"
[[sweep.points]]
jobs.spare_allocation = "2D(2,1)"
[sweep.grid]
mitigation.substitution = ["0D", "1D", "hybrid(all)"]
[sweep.random]
draws = 2
faults.max_failures = { int = [1, 8] }
"""
    points = parse_scenario(text, SOURCE).points()
    assert len(points) == 2 * 3 * 2
    assert [p.index for p in points] == list(range(12))
    assert [p.values["jobs.spare_allocation"] for p in points] == ["2D(1,1)"] * 6 + ["2D(2,1)"] * 6


# -- example files and hand-written bad files ---------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_checks_and_plans(path):
    scenario = load_scenario(path)
    plan = make_plan(scenario)  # builds every point in Rust: a bad spec would raise here
    assert scenario.kind in studies.names()
    assert plan.tasks and {t.point for t in plan.tasks} == {p.index for p in plan.points}


def test_the_examples_include_the_papers_figures():
    names = {p.stem for p in EXAMPLES}
    for fig in ("fig08", "fig10", "fig11", "fig12_15", "fig18_19"):
        assert any(fig in n for n in names), fig


BASE = toml(base_doc())


@pytest.mark.parametrize(
    ("extra", "key", "needle"),
    [
        ("[faults2]\nx = 1", "faults2", 'did you mean "faults"'),
        ("[workload]\nstensil = \"5P\"", "workload.stensil", 'did you mean "stencil"'),
        ("[replications]\ncount = 0", "replications.count", "positive whole number"),
        ("[replications]\ncount = 5000000000", "replications.count", "at most 100,000"),
        ("[tasks]\ncases = 9223372036854775808", "tasks.cases", "at most"),
        ("[tasks]\ncases = 1.5", "tasks.cases", "got 1.5"),
        ("[sweep.grid]\nmitigation.substitute = [\"0D\"]", "sweep.grid.mitigation.substitute",
         "not a key this study can sweep"),
        ("[sweep.grid]\nmitigation.substitution = [\"0D\", \"4D\"]", "mitigation.substitution",
         "sweep point 1"),
        ("[sweep.grid]\nmitigation.substitution = []", "sweep.grid.mitigation.substitution",
         "non-empty list"),
        ("[sweep.random]\ndraws = 2\nfaults.max_failures = { integer = [1, 3] }",
         "sweep.random.faults.max_failures", "{ integer = [1, 3] }"),
        ("[sweep.random]\ndraws = 2\nfaults.max_failures = { int = [5, 3] }",
         "sweep.random.faults.max_failures.int", "low <= high"),
        (("[sweep.grid]\nfaults.max_failures = [2]\n[sweep.random]\ndraws = 1\n"
         "faults.max_failures = { int = [1, 3] }"), "sweep.random.faults.max_failures",
         "already swept"),
        ("[sweep.grid]\nfaults.max_failures = [2, 99]", "faults.max_failures", "spare nodes"),
        ("[workload]\nstencil = \"8P\"", "workload.stencil", "unknown stencil"),
        ("[study]\nx = 1", None, None),  # a second [study] table: not valid TOML
    ],
)
def test_bad_files_name_the_file_and_key(tmp_path, extra, key, needle):
    path = tmp_path / "bad.toml"
    path.write_text(BASE + extra + "\n")
    with pytest.raises(ScenarioError) as err:
        make_plan(load_scenario(path))
    if key is None:
        assert "not valid TOML" in str(err.value)
        return
    assert err.value.key == key
    assert str(err.value).startswith(f"{path}: {key}: ")
    assert needle in str(err.value)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[study]\nkind = "spare"\n', ('study.kind: expected one of "spares", "links", "plan", '
                                      'got "spare" (did you mean "spares"?)')),
        ('[study]\nkind = "spares"\n', "fabric.topology: missing: expected"),
        ("", "study: missing"),
        ('[study]\nkind = "spares"\nname = "Fray Study"\n', "study.name: expected a table name"),
    ],
)
def test_bad_files_from_the_command_line_one_line_exit_2(tmp_path, text, needle):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "fray", "run", str(path), "--dry-run"],
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"fray run: error: {path}: ") and needle in lines[0]


def test_exhaustive_with_replications_or_samples_is_refused():
    text = toml(base_doc() | {"faults": {"mode": "exhaustive", "max_failures": 2},
                              "replications": {"count": 2}})
    with pytest.raises(ScenarioError, match=r"replications\.count: expected 1"):
        make_plan(parse_scenario(text, SOURCE))
    text = toml(base_doc() | {"faults": {"mode": "exhaustive", "max_failures": 2,
                                         "samples": 5}})
    with pytest.raises(ScenarioError, match=r"faults\.samples: not used"):
        make_plan(parse_scenario(text, SOURCE))
