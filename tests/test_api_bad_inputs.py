"""The Python API's bad-input table: each call below, as a new user might make it, raises
``fray.SpecError`` with a one-line message naming the argument or field, where it used to
raise a bare ``TypeError``/``OverflowError``/``KeyError``/``AttributeError``, panic, hang,
or give a silently wrong answer (noted at the end of each row)."""

from __future__ import annotations

import math
from pathlib import Path

import fray
import fray.diag
import fray.health
import fray.packet
import fray.plan
import fray.spares
import fray.store
import fray.units
import pandas as pd
import pytest
from fray import Fabric, Faults, SpecError

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"
X5, DOWN = str(DATA / "x5.topofile"), str(DATA / "x5_down.txt")
PLAN = ({"router": "exp:mtbf=100d"}, ["immediate:repair=24h"])


def torus() -> Fabric:
    return Fabric.parse("torus:4x4")


def study() -> fray.spares.SpareStudy:
    return fray.spares.SpareStudy("mesh:8x8", "2D(2,1)", "0D")


def loads() -> pd.DataFrame:
    return fray.links.case_loads("torus:4x4", "halo3d26:nx=2")


CASES = [
    # -- the extension's arguments, read by name (crates/fray-py/src/args.rs) ---------------
    (lambda: Fabric.parse("torus:4x4", lanes=-1),
     "lanes: expected a whole number from 0 to 65535, got -1"),            # OverflowError
    (lambda: Fabric.parse(None), "spec: expected a string, got None"),      # TypeError
    (lambda: Fabric.torus([4, "4"]), "dims[1]: expected a whole number"),   # TypeError
    (lambda: Fabric.torus("4x4"), "dims: expected a list, got '4x4'"),      # TypeError
    (lambda: torus().route(0, -1), "dst: expected a number from 0 to 4294967295 or a name"),
    (lambda: torus().route(0, 1, seed=2**64), "seed: expected a whole number from 0 to"),
    (lambda: torus().route(0, 1, faults="x"), "faults: expected a fray.Faults, got 'x'"),
    (lambda: torus().endpoint_name(True), "endpoint: expected"),           # read as 1
    (lambda: torus().channel(2**32), "channel: expected a whole number"),   # OverflowError
    (lambda: Faults(None), "fabric: expected a fray.Fabric, got None"),     # TypeError
    (lambda: Faults(torus()).fail_cables("(0,0)->(1,0)"), "names: expected a list"),
    (lambda: Faults(torus()).lose_lanes(0, 2**16), "lanes: expected a whole number"),
    (lambda: Faults.fail_links(torus(), fraction="10%"), "fraction: expected a number"),
    (lambda: fray.diag.topobw_simulate("gemini:2x2x2", [], 1e6, -1), "count: expected"),
    (lambda: fray.diag.localisation_study("gemini:2x2x2", 2**40), "cases: expected"),
    (lambda: fray.diag.slow_links(None), "fabric: expected a fray.Fabric, got None"),
    (lambda: fray.units.parse_bytes(None, "msg-size"), "msg-size: expected a string"),
    (lambda: fray.units.format_bytes(-1), "size_bytes: expected a whole number"),
    (lambda: fray.spares.SpareStudy("mesh:8x8", "2D(2,1)", "0D", periodic="yes"),
     "periodic: expected True or False, got 'yes'"),                       # TypeError
    (lambda: fray.spares.study("mesh:8x8", "2D(2,1)", "0D", samples=2, max_failures=-1),
     "max_failures: expected a whole number"),                             # OverflowError
    # -- checks the binding or the core was missing ------------------------------------------
    (lambda: study().placement_after([10**6]), "ranks: rank 1000000 is out of range"),  # panic
    (lambda: study().placement_after([0, 0]), "ranks: rank 0 is out of range or failed twice"),
    (lambda: study().run_samples(0, 0, 2**64 - 1), "count: expected a whole number"),  # panic
    (lambda: study().run_samples(0, 2**64 - 1, 2), "count: cases"),  # ran nothing, silently
    (lambda: study().exhaustive_cases(0, 10**6), "roots: lowest failed ranks 0..1000000"),
    (lambda: fray.spares.study("mesh:8x8", "2D(2,1)", "0D", samples=2**64),
     "samples: must be a whole number from 1 to 4294967295"),              # hang
    (lambda: fray.spares.study("mesh:8x8", "2D(2,1)", "0D", samples=2, seed=2**64),
     "seed: must be a whole number from 0 to 2^64-1"),                     # OverflowError
    (lambda: fray.diag.TopoBwPlan("builtin:2x2x2", 8).report([math.nan] * 24, 1e6),
     "seconds[0]: must be a positive, finite duration, got NaN"),          # "NaN seconds"
    (lambda: fray.units.format_seconds(-1), "seconds: a duration to print"),  # "-1ps"
    (lambda: fray.units.format_rate(math.inf), "bytes_per_s: a bandwidth to print"),
    (lambda: fray.simulate(torus(), "halo3d26:peflops=0"),
     "peflops: expected a rate in flop/s > 0"),                 # "compute_s: ... got inf"
    (lambda: fray.simulate(torus(), "sweep3d:nodeflops=0"),
     "nodeflops: expected a rate in flop/s > 0"),               # "compute_s: ... got inf"
    (lambda: fray.simulate(torus(), "lqcd:peflops=1e-320"),
     "peflops: 2.1528828e7 flops at 1e-320 flop/s"),            # "compute_s: ... got inf"
    (lambda: fray.Halo3D26(nx=0), "nx: expected a whole number >= 1, got 0"),  # built
    (lambda: fray.Halo3D26(nx=1.5), "nx: expected a whole number >= 1, got 1.5"),  # built
    (lambda: fray.simulate(torus(), []), "workload messages: give at least one message"),  # inf
    (lambda: fray.health.classify_cables(X5, ber=2),
     "ber: must be a bit-error rate strictly between 0 and 1, got 2"),   # accepted
    (lambda: fray.diag.job_cost("gemini:2x2x2", [], cells=0),
     "cells: must be at least 1"),                                       # named nx
    # -- the Python wrappers -----------------------------------------------------------------
    (lambda: fray.simulate(None, "halo3d26:nx=2"),
     "fabric: expected a fray.Fabric or a fabric spec"),                   # TypeError
    (lambda: fray.simulate(torus(), "halo3d26:nx=2", profile=123),
     "profile: expected a fray.profiles.Profile or a profile name"),       # AttributeError
    (lambda: fray.static_load(torus(), None), "messages: expected a list"),   # TypeError
    (lambda: fray.stencil_load(torus(), "5P", True, "x"), "size_bytes: expected a number"),
    (lambda: fray.links.case_loads("torus:4x4", "halo3d26:nx=2", replica=100_000),
     "replica: must be from 0 to 99999"),        # OverflowError, then the seeds named
    (lambda: fray.links.case_loads("torus:4x4", "halo3d26:nx=2", failed_pct="x"),
     "failed_pct: expected finite numbers, got 'x'"),                      # ValueError
    (lambda: fray.links.busiest_cables(loads(), "torus:8x8"),
     "fabric: the loads are of a fabric of 96 channels"),  # named another fabric's cables
    (lambda: fray.links.busiest_cables(None, "torus:4x4"), "loads: expected the table"),
    (lambda: fray.links.loads_by_class(pd.DataFrame()), "loads: the table has no column 'cls'"),
    (lambda: fray.links.workload_spec(nx="x"), "workload: nx: expected a finite number"),
    (lambda: fray.links.workload_spec(None), "motif: expected a workload motif"),
    (lambda: fray.links.fabric_with("torus:4x4", "1GB/s"),
     "link_bandwidth_bytes_s: expected a finite number"),                  # TypeError
    (lambda: fray.health.classify_cables(X5, str(DATA / "x5_counters.csv")),
     "counters: expected a list"),                                         # "/: Is a directory"
    (lambda: fray.health.cost_now(X5, DOWN, "halo3d26"), "workloads: expected a list"),
    (lambda: fray.health.down_cables(None), "cables: expected the table"),
    (lambda: fray.health.loss_rows({"x": pd.DataFrame()}), "costs['x']: the table has no column"),
    (lambda: fray.plan.plan("torus:4x4", [("router", "exp:mtbf=100d")]),
     "failures: expected a dict of link class to failure model"),          # AttributeError
    (lambda: fray.plan.plan("torus:4x4", PLAN[0], "immediate:repair=24h"),
     "policy_specs: expected a list of specs"),                            # policy "i"
    (lambda: fray.plan.plan("torus:4x4", *PLAN, jobs=2**40), "jobs: must be from 1 to 4294967295"),
    (lambda: fray.plan.plan("torus:4x4", *PLAN, seeds=1001), "seeds: must be from 1 to 1000"),
    (lambda: fray.plan.plan("torus:4x4", *PLAN, replications=100_001),
     "replications: must be from 2 to 100000"),                           # was the u32's range
    (lambda: fray.plan.plan("torus:4x4", *PLAN, points=10_001),
     "points: must be from 2 to 10000, got 10001"),                       # was up to 10^7 states
    (lambda: fray.plan.plan("torus:4x4", *PLAN, samples=10_001),
     "samples: must be from 1 to 10000, got 10001"),
    (lambda: fray.plan.fit_failures("torus:4x4", None, "router"), "log: expected the path"),
    (lambda: fray.packet.collective("xgft:2;4,4;1,4", ["none"], ["none"], ops="x"),
     "ops: at least one operation, got 'x'"),                              # TypeError
    (lambda: fray.packet.collective("xgft:2;4,4;1,4", ["none"], ["none"], ops=2**32 - 1),
     "ops: from 1 to 10000000 operations (each one's time is kept)"),      # 32 GiB abort
    (lambda: fray.packet.collective("xgft:2;4,4;1,4", ["none"], ["none"], ops=10, mtu=-1),
     "mtu: expected a whole number"),                                      # OverflowError
    (lambda: fray.packet.traffic("torus:4x4", 0.1), "loads: expected a list"),  # TypeError
    (lambda: fray.profiles.parse(None), "name: expected a string, got None"),
    (lambda: fray.store.check_path(None), "out: expected the path"),     # TypeError
    (lambda: fray.store.read_table("/nonexistent/t.csv"), "cannot read it as a csv table"),
    (lambda: fray.store.write_table(pd.DataFrame({"a": [1]}), "/proc/t.csv"),
     "out: cannot write '/proc/t.csv'"),                                   # FileNotFoundError
]


@pytest.mark.parametrize("call, needle", CASES, ids=[needle.split(":")[0] + f"-{i}"
                                                     for i, (_, needle) in enumerate(CASES)])
def test_bad_input_raises_one_spec_error_naming_it(call, needle):
    with pytest.raises(SpecError) as err:
        call()
    message = str(err.value)
    assert needle in message
    assert "\n" not in message.strip()


def test_a_message_past_the_packet_clock_is_refused_before_it_is_cut_into_packets():
    # 1e300 bytes never leave before the clock's 213 days end: refused at once, where it
    # used to be cut into packets for ever.
    with pytest.raises(fray.FrayError, match="the packet engine's clock holds"):
        fray.simulate(torus(), [(0, 1, 1e300)], engine="packet")


def test_lose_lanes_sets_the_count_lost_and_says_so():
    # Losing 3 and then 3 lanes of a 4-lane channel leaves 3 lost (not 6, nor an error);
    # the docstring used to read as if the lanes added up.
    fabric = Fabric.parse("torus:4x4", lanes=4)
    faults = Faults(fabric).lose_lanes(0, 3).lose_lanes(0, 3)
    assert faults.bandwidth_bytes_s(0) == Faults(fabric).bandwidth_bytes_s(0) / 4
    assert "rather than adding" in Faults.lose_lanes.__doc__
