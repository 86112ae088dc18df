"""Integrity benchmarks: checksum speed (the paper's Fig. 1), fused copy+checksum against
memcpy on 64 MiB buffers, and the NetPIPE-style ping-pong over MPI (none / naive / unchecked /
checked).

Timings of checksums and copies are taken in Rust (``fray._fray.integrity_measure``); the
ping-pong is timed with ``MPI.Wtime``. Every point is the median of several samples, and the
whole suite is repeated ``--runs`` times; the report keeps the median over runs.

    python benches/integrity/run.py --out out/integrity-bench --runs 3

The cross-node path, on one machine with MPI forced onto TCP:

    python benches/integrity/run.py --out out/integrity-tcp --runs 5 --skip-local --skip-ring \
        --pingpong-sizes 64KiB,1MiB,4MiB,16MiB --path mpi --network tcp
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from fray.integrity import algorithms, bench, plot_pingpong, tune


def cpu_model() -> str:
    from fray import _fray

    return _fray.integrity_cpu_model()


def run_local(runs: int, min_sample_s: float, samples: int) -> dict:
    results = {"checksum_32KiB": [], "copy_64MiB": []}
    for _ in range(runs):
        results["checksum_32KiB"].append(
            bench([32 * 1024], algorithms(), ["checksum", "fused", "blocked"],
                  min_sample_s=min_sample_s, samples=samples))
        results["copy_64MiB"].append(
            bench([64 * 2**20], algorithms(), ["fused", "blocked", "copy+checksum"],
                  min_sample_s=min_sample_s, samples=samples))
    return results


def run_pingpong(runs: int, sizes: str, modes: str, path: str, network: str | None) -> list:
    out = []
    extra = ["--path", path] + (["--network", network] if network else [])
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        return out
    for _ in range(runs):
        # One core per rank: ranks that busy-poll and move between cores vary by 2x.
        r = subprocess.run([mpiexec, "--bind-to", "core", "-n", "2", sys.executable, "-m",
                            "fray", "integrity", "pingpong", "--checksum", modes, "--sizes",
                            sizes, "--trials", "3", "--json", *extra],
                           capture_output=True, text=True, timeout=1800, check=False)
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        out.append(json.loads(r.stdout))
    return out


def run_ring(runs: int, algorithms: str) -> list:
    """The shared-memory ring alone (two pinned threads, no MPI): one table per run,
    ``{"algorithm/copies": {size_kib: GB/s}}`` (copies: ``2-copy`` through the slots,
    ``1-copy`` from a shared buffer)."""
    root = Path(__file__).resolve().parents[2]
    out = []
    for _ in range(runs):
        r = subprocess.run(["cargo", "run", "--quiet", "--release", "-p", "fray-integrity",
                            "--example", "ring_pingpong", "--", "--algorithms", algorithms],
                           cwd=root, capture_output=True, text=True, timeout=1800, check=False)
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        head, *rows = r.stdout.split("\n")
        sizes = [int(c.removesuffix("KiB")) for c in head.split()[1:]]
        out.append({cells[0]: dict(zip(sizes, map(float, cells[1:])))
                    for cells in (row.split() for row in rows if row.strip())})
    return out


def summarise(results: dict, pp: list, ring: list) -> dict:
    def med(rows_per_run, key):
        by = {}
        for rows in rows_per_run:
            for r in rows:
                by.setdefault(key(r), []).append(r["bandwidth_bytes_s"])
        return {k: statistics.median(v) for k, v in by.items()}

    s = {
        "checksum_32KiB": med(results["checksum_32KiB"],
                              lambda r: f"{r['algorithm'] or 'memcpy'}/{r['operation']}"),
        "copy_64MiB": med(results["copy_64MiB"],
                          lambda r: f"{r['algorithm'] or 'memcpy'}/{r['operation']}"),
    }
    if pp:
        s["pingpong"] = med(pp, lambda r: f"{r['size_bytes']}/{r['mode']}")
    if ring:
        s["ring_GB_s"] = {f"{size}KiB/{alg}": statistics.median(run[alg][size] for run in ring)
                          for alg, row in ring[0].items() for size in row}
    return s


def print_pingpong(pp: dict) -> None:
    """The median ping-pong bandwidths (MB/s) and the checked transport's ratios."""
    modes = ("none", "naive", "unchecked", "checked")
    sizes = sorted({int(k.split("/")[0]) for k in pp})
    print(f"{'size':>10}" + "".join(f"{m:>11}" for m in modes) + f"{'unchk/none':>11}"
          f"{'chk/none':>10}{'chk/unchk':>10}")
    for n in sizes:
        bw = {m: pp.get(f"{n}/{m}", float("nan")) / 1e6 for m in modes}
        print(f"{n:>10}" + "".join(f"{bw[m]:>11.1f}" for m in modes)
              + f"{bw['unchecked'] / bw['none']:>11.3f}{bw['checked'] / bw['none']:>10.3f}"
              + f"{bw['checked'] / bw['unchecked']:>10.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="out/integrity-bench")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--min-sample", type=float, default=0.05)
    ap.add_argument("--pingpong-sizes", default="8B..64MiB")
    ap.add_argument("--modes", default="none,naive,unchecked,auto")
    ap.add_argument("--skip-pingpong", action="store_true")
    ap.add_argument("--skip-local", action="store_true", help="skip checksum and copy speeds")
    ap.add_argument("--path", default="auto", help="checked transport path of the ping-pong")
    ap.add_argument("--network", help="force MPI onto this network (tcp) in the ping-pong")
    ap.add_argument("--ring-algorithms", default="none,fletcher64,crc32c")
    ap.add_argument("--skip-ring", action="store_true", help="skip the ring alone (needs cargo)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    # The target is for 64 MiB messages, so the tuner is asked about 64 MiB messages (and,
    # for the record, about the default sizes).
    choice = tune([64 * 2**20])
    default_choice = tune()
    local = ({"checksum_32KiB": [], "copy_64MiB": []} if args.skip_local
             else run_local(args.runs, args.min_sample, args.samples))
    pp = [] if args.skip_pingpong else run_pingpong(args.runs, args.pingpong_sizes, args.modes,
                                                    args.path, args.network)
    ring = [] if args.skip_ring else run_ring(args.runs, args.ring_algorithms)
    report = {
        "machine": {"cpu_model": cpu_model(), "cores": os.cpu_count(),
                    "python": platform.python_version()},
        "tuned": {"algorithm": choice.algorithm, "strategy": choice.strategy, "for": "64MiB"},
        "tuned_default_sizes": {"algorithm": default_choice.algorithm,
                                "strategy": default_choice.strategy},
        "raw": {"local": local, "pingpong": pp, "ring": ring},
        "median": summarise(local, pp, ring),
        "elapsed_s": time.time() - t0,
    }
    (out / "results.json").write_text(json.dumps(report, indent=1))
    med = report["median"]
    memcpy = med["copy_64MiB"].get("memcpy/memcpy")
    for label, c in (("tuned for 64 MiB", choice), ("tuned for default sizes", default_choice)):
        if memcpy is None:
            break
        fused = med["copy_64MiB"][f"{c.algorithm}/fused"]
        print(f"{label}: {c.algorithm} ({c.strategy}); 64 MiB memcpy {memcpy / 1e9:.2f} GB/s,"
              f" fused {fused / 1e9:.2f} GB/s, ratio {fused / memcpy:.3f}")
    if "pingpong" in med:
        print_pingpong(med["pingpong"])
        # Medians over the runs, per size and curve.
        where = f"MPI over {args.network}" if args.network else "one node"
        plot = plot_pingpong([row for rows in pp for row in rows], out / "pingpong.png",
                             title=f"2 ranks, {where}, {cpu_model()}, medians of {args.runs} runs")
        print(f"ping-pong plot in {plot}")
    print(f"results in {out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
