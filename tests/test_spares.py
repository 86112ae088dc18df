"""The spare-node study from Python: tables, closed forms, reproducibility, bad input."""

from math import comb

import fray
import pandas as pd
import pytest
from fray import spares
from fray._fray import SpareStudy
from hypothesis import given
from hypothesis import strategies as st


def test_allocation_matches_paper_counts():
    a = spares.allocation("torus:24x24x24", "3D(2,1)")
    assert a["num_spares"] == 1128  # the paper's "1128 which is the number of spare nodes"
    assert a["compute_extents"] == [23, 23, 24]
    assert a["spare_fraction"] == pytest.approx(a["paper_fraction"], abs=1e-12)
    b = spares.allocation("mesh:100x100", "2D(2,2)")
    assert b["spare_fraction"] == pytest.approx(1 - 98**2 / 100**2)
    # On a non-cube the paper's formula is only an approximation.
    c = spares.allocation("torus:16x8x8", "3D(2,1)")
    assert c["num_spares"] == 16 * 8 * 8 - 15 * 7 * 8
    assert c["spare_fraction"] != pytest.approx(c["paper_fraction"], abs=1e-3)


def test_exhaustive_table_columns_and_case_counts():
    t = spares.study("mesh:8x8", "2D(1,1)", "0D", exhaustive=True, max_failures=3)
    assert list(t.columns[:6]) == ["failures", "cases", "unrecoverable", "best", "mean", "worst"]
    assert {"rate_0D", "rate_1D", "rate_2D"} <= set(t.columns)
    ranks = 7 * 8
    assert list(t["cases"]) == [1] + [comb(ranks, f) for f in (1, 2, 3)]
    assert (t["rate_0D"][1:] == 1.0).all()  # pure 0D only ever uses 0D
    assert (t["best"] <= t["mean"]).all() and (t["mean"] <= t["worst"]).all()
    assert t.attrs["num_spares"] == 8


def test_same_seed_same_table():
    kwargs = {"samples": 300, "seed": 11}
    a = spares.study("torus:6x6x6", "3D(2,1)", "hybrid(all)", **kwargs)
    b = spares.study("torus:6x6x6", "3D(2,1)", "hybrid(all)", **kwargs)
    assert a.equals(b)
    c = spares.study("torus:6x6x6", "3D(2,1)", "hybrid(all)", samples=300, seed=12)
    assert not a.equals(c)


def test_rates_sum_to_one_and_hybrid_never_fails_within_spares():
    t = spares.study("torus:6x6x6", "3D(2,1)", "hybrid(all)", samples=50, seed=1)
    rates = t[[c for c in t.columns if c.startswith("rate_")]].iloc[1:]
    assert rates.sum(axis=1).to_numpy() == pytest.approx(1.0)
    assert (t["unrecoverable"] == 0).all()
    assert len(t) == t.attrs["num_spares"] + 1
    # The first r = 2 failures are taken by 3D sliding, without a collision.
    assert list(t["rate_3D"][1:3]) == [1.0, 1.0]
    assert list(t["worst"][:3]) == [1, 1, 1]


def test_one_d_alone_reports_unrecoverable_cases():
    t = spares.study("mesh:7x7", "2D(2,1)", "1D", exhaustive=True, max_failures=4)
    assert list(t["unrecoverable"][:4]) == [0, 0, 0, 0]
    assert t["unrecoverable"].iloc[4] > 0


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"fabric": "mesh:8x8", "alloc": "3D(2,1)", "method": "0D", "samples": 1}, "3 dimensions"),
        ({"fabric": "mesh:8", "alloc": "1D(1,8)", "method": "0D", "samples": 1}, "does not fit"),
        (
            {"fabric": "mesh:8x8", "alloc": "2D(1,1)", "method": "sideways", "samples": 1},
            "sideways",
        ),
        (
            {
                "fabric": "mesh:8x8",
                "alloc": "2D(1,1)",
                "method": "0D",
                "samples": 1,
                "max_failures": 9,
            },
            "only 8 spare",
        ),
        ({"fabric": "ring:8", "alloc": "2D(1,1)", "method": "0D", "samples": 1}, "unknown family"),
        ({"fabric": "mesh:8x8", "alloc": "2D(1,1)", "method": "0D"}, "either samples"),
        (
            {"fabric": "mesh:8x8", "alloc": "2D(1,1)", "method": "0D", "exhaustive": True},
            "max_failures",
        ),
        ({"fabric": "mesh:8x8", "alloc": "2D(1,1)", "method": "0D", "samples": 0}, "samples"),
        (
            {
                "fabric": "mesh:8x8",
                "alloc": "2D(1,1)",
                "method": "0D",
                "samples": 1,
                "stencil": "7P",
            },
            "3-dimensional",
        ),
    ],
)
def test_bad_input_raises_spec_error(kwargs, needle):
    with pytest.raises(fray.SpecError, match=needle):
        spares.study(**kwargs)


def test_exhaustive_refuses_astronomical_enumerations():
    with pytest.raises(fray.SpecError, match="too many"):
        spares.study("mesh:100x100", "2D(2,1)", "0D", exhaustive=True, max_failures=20)


@given(st.text(max_size=20))
def test_any_allocation_text_is_accepted_or_a_spec_error(text):
    try:
        a = spares.allocation("torus:6x6x6", text)
    except fray.SpecError as e:
        assert str(e)
    else:
        assert 0 < a["num_spares"] < a["num_nodes"]


@given(q=st.integers(1, 3), r=st.integers(1, 3), s=st.integers(1, 3), size=st.integers(2, 6))
def test_allocation_counts_closed_form(q, r, s, size):
    spec = f"{q}D({r},{s})"
    fabric = "mesh:" + "x".join([str(size)] * q)
    if r > q or s >= size:
        with pytest.raises(fray.SpecError):
            spares.allocation(fabric, spec)
        return
    a = spares.allocation(fabric, spec)
    assert a["num_spares"] == size**q - (size - s) ** r * size ** (q - r)
    assert a["spare_fraction"] == pytest.approx(a["paper_fraction"])


@given(st.text(alphabet="hybrid()+-0123456789Dall ", max_size=24))
def test_any_method_text_is_accepted_or_a_spec_error(text):
    try:
        spares.SpareStudy("mesh:5x5", "2D(2,1)", text, max_failures=1)
    except fray.SpecError as e:
        assert str(e)


def test_one_call_reports_every_case_once_and_matches_the_curve_in_parts():
    whole = SpareStudy("torus:8x8x8", "3D(2,1)", "hybrid(all)")
    reported = []
    whole.run_samples(3, 0, 500, reported.append)
    assert sum(reported) == 500 and all(n > 0 for n in reported)
    parts = SpareStudy("torus:8x8x8", "3D(2,1)", "hybrid(all)")
    parts.run_samples(3, 0, 123)
    parts.run_samples(3, 123, 377)
    pd.testing.assert_frame_equal(pd.DataFrame(whole.table()), pd.DataFrame(parts.table()))


def test_the_exhaustive_walk_reports_every_set_once_and_matches_the_curve_in_parts():
    # 1D with four failures leaves some sets unrecoverable; their extensions are counted
    # without being walked, and the progress callable is given them too.
    whole = SpareStudy("mesh:7x7", "2D(2,1)", "1D", max_failures=4)
    reported = []
    whole.run_exhaustive(0, whole.num_ranks, reported.append)
    assert sum(reported) == whole.exhaustive_cases(0, whole.num_ranks) == sum(
        comb(36, f) for f in range(1, 5))
    parts = SpareStudy("mesh:7x7", "2D(2,1)", "1D", max_failures=4)
    for start, end in [(0, 3), (3, 4), (4, 36)]:
        parts.run_exhaustive(start, end)
    table = pd.DataFrame(whole.table())
    assert table["unrecoverable"].iloc[4] > 0
    pd.testing.assert_frame_equal(table, pd.DataFrame(parts.table()))
