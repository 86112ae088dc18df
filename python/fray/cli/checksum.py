"""``fray checksum``: bench, tune, quality and model of end-to-end checksums."""

from __future__ import annotations

import argparse
import json
import sys

from fray import SpecError
from fray.cli import numbers
from fray.outputs import FIGURES
from fray.units import (
    format_bytes,
    parse_bytes,
    parse_rate,
    parse_seconds,
    parse_size_list,
)

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"plot": FIGURES}


def _print_json(value: object) -> int:
    """Prints ``value`` as indented JSON; returns the exit status, 0."""
    json.dump(value, sys.stdout, indent=1)
    print()
    return 0


def _algorithms(text: str | None) -> list[str] | None:
    from fray.integrity import algorithms

    if text is None:
        return None
    known = algorithms()
    names = [a.strip() for a in text.split(",") if a.strip()]
    for a in names:
        if a not in known:
            raise SpecError(f"algorithms: unknown checksum {a!r} (known: {', '.join(known)})")
    if not names:
        raise SpecError("algorithms: expected names such as crc32c,xxh3")
    return names


def _gbs(x: float | None) -> str:
    return "-" if x is None else f"{x / 1e9:8.2f}"


def _size(n: float) -> str:
    return format_bytes(int(n))


def _bench(args: argparse.Namespace) -> int:
    from fray.integrity import bench

    sizes = parse_size_list(args.sizes, "sizes")
    ops = [o.strip() for o in args.operations.split(",") if o.strip()]
    rows = bench(sizes, _algorithms(args.algorithms), ops, min_sample_s=args.min_sample,
                 samples=args.samples)
    if args.json:
        return _print_json(rows)
    memcpy = {r["size_bytes"]: r["bandwidth_bytes_s"] for r in rows if r["operation"] == "memcpy"}
    print(f"{'algorithm':<14}{'operation':<15}{'size':>8}{'GB/s':>10}{'vs memcpy':>11}")
    for r in rows:
        ratio = r["bandwidth_bytes_s"] / memcpy[r["size_bytes"]]
        print(f"{r['algorithm'] or '-':<14}{r['operation']:<15}{_size(r['size_bytes']):>8}"
              f"{_gbs(r['bandwidth_bytes_s']):>10}{ratio:>10.2f}x")
    return 0


def _tune(args: argparse.Namespace) -> int:
    from fray.integrity import cache_path, tune
    from fray.integrity.quality import parse_patterns

    sizes = parse_size_list(args.sizes, "sizes")
    req = parse_patterns(args.require, "require")
    r = tune(sizes, requirement=req, candidates=_algorithms(args.algorithms), force=args.force,
             trials=args.trials)
    if args.json:
        out = dict(r.__dict__)
        out["cache"] = str(cache_path())
        return _print_json(out)
    src = "cached" if r.cached else "measured"
    print(f"{r.algorithm} ({r.strategy} copy, {r.bandwidth_bytes_s / 1e9:.2f} GB/s on "
          f"{', '.join(_size(s) for s in r.sizes_bytes)}; {src}; {r.cpu_model})")
    if not r.cached:
        print(f"{'candidate':<14}{'detects':>8}{'strategy':>10}{'GB/s':>10}  missed")
        for c in r.candidates:
            missed = ", ".join(f"{p}:{m}" for p, m in c["missed"].items() if m) or "none"
            print(f"{c['algorithm']:<14}{'yes' if c['meets_requirement'] else 'no':>8}"
                  f"{c['strategy'] or '-':>10}{_gbs(c['bandwidth_bytes_s']):>10}  {missed}")
    return 0


def _quality(args: argparse.Namespace) -> int:
    from fray.integrity import detection_table
    from fray.integrity.quality import parse_patterns

    rows = detection_table(_algorithms(args.algorithms), parse_patterns(args.patterns),
                           message_bytes=parse_bytes(args.message_size, "message-size"),
                           trials=args.trials, seed=args.seed)
    if args.json:
        return _print_json(rows)
    pats = list(dict.fromkeys(r["pattern"] for r in rows))
    print(f"{'algorithm':<14}" + "".join(f"{p:>10}" for p in pats) + "   (undetected of "
          f"{args.trials})")
    for a in dict.fromkeys(r["algorithm"] for r in rows):
        cells = {r["pattern"]: r["missed"] for r in rows if r["algorithm"] == a}
        print(f"{a:<14}" + "".join(f"{cells[p]:>10}" for p in pats))
    return 0


def _model(args: argparse.Namespace) -> int:
    from fray.integrity import ModelParams, model_table, plot_models

    sub_block = parse_bytes(args.sub_block, "sub-block")
    if sub_block < 1:
        raise SpecError(f"sub-block: a pipeline sub-block holds at least 1 byte, got {args.sub_block}")
    p = ModelParams.paper().replace(
        net_bandwidth_bytes_s=parse_rate(args.net, "net"),
        csum_bandwidth_bytes_s=parse_rate(args.csum, "csum"),
        net_latency_s=parse_seconds(args.latency, "latency"),
        gap_s=parse_seconds(args.gap, "gap"),
        sub_block_bytes=float(sub_block),
        rendezvous_threshold_bytes=float(parse_bytes(args.threshold, "threshold")),
    )
    sizes = parse_size_list(args.sizes, "sizes")
    rows = model_table(p, sizes)
    if args.plot:
        plot_models(args.plot, p, sizes)
    if args.json:
        return _print_json(rows)
    models = list(dict.fromkeys(r["model"] for r in rows))
    print(f"{'size':>8}" + "".join(f"{m:>13}" for m in models) + "   GB/s (overhead vs raw)")
    for s in sizes:
        cells = {r["model"]: r for r in rows if r["size_bytes"] == s}
        print(f"{_size(s):>8}" + "".join(
            f"{cells[m]['bandwidth_bytes_s'] / 1e9:6.2f} ({cells[m]['overhead'] * 100:3.0f}%)"
            for m in models))
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers ``fray checksum`` and its sub-commands."""
    p = sub.add_parser("checksum", help="end-to-end checksums: bench, tune, quality, model")
    cs = p.add_subparsers(dest="checksum_command", metavar="ACTION", required=True)

    b = cs.add_parser("bench", help="bandwidth of every checksum, alone and fused in a copy")
    b.add_argument("--sizes", default="32KiB,64MiB", help="buffer sizes (default 32KiB,64MiB)")
    b.add_argument("--algorithms", help="comma-separated names (default: all)")
    b.add_argument("--operations", default="checksum,fused",
                   help="any of checksum,fused,blocked,copy+checksum, comma-separated; memcpy "
                   "is always added (default checksum,fused)")
    b.add_argument("--samples", type=numbers.U64, default=5,
                   help="samples per point; median kept (default 5)")
    b.add_argument("--min-sample", type=numbers.real(0, above=True), default=0.02,
                   help="shortest sample in seconds (default 0.02)")
    b.add_argument("--json", action="store_true", help="print JSON rows")
    b.set_defaults(func=_bench)

    t = cs.add_parser("tune", help="pick the fastest checksum that detects what you require")
    t.add_argument("--sizes", default="32KiB,1MiB",
                   help="your message sizes (default 32KiB,1MiB)")
    t.add_argument("--require", default="single,double,burst32",
                   help="error patterns that must always be detected in 1 KiB messages: "
                   "single, double or burstN, N from 1 to 8192 (default single,double,burst32)")
    t.add_argument("--algorithms", help="candidates (default: all)")
    t.add_argument("--trials", type=numbers.U64, default=20_000,
                   help="trials per pattern (default 20000)")
    t.add_argument("--force", action="store_true", help="ignore the cache and measure again")
    t.add_argument("--json", action="store_true", help="print JSON")
    t.set_defaults(func=_tune)

    q = cs.add_parser("quality", help="undetected errors per algorithm and error pattern")
    q.add_argument("--patterns", default="single,double,burst8,burst16,burst32,burst64",
                   help="comma-separated error patterns: single, double, burstN for a burst "
                   "of N bits, N from 1 to 8 x --message-size (default single,double,burst8,"
                   "burst16,burst32,burst64)")
    q.add_argument("--algorithms", help="comma-separated names (default: all)")
    q.add_argument("--message-size", default="1KiB", help="message size (default 1KiB)")
    q.add_argument("--trials", type=numbers.U64, default=20_000,
                   help="corrupted messages per algorithm and pattern (default 20000)")
    q.add_argument("--seed", type=numbers.SEED, default=1,
                   help="seed of the messages and the errors (default 1)")
    q.add_argument("--json", action="store_true", help="print JSON rows")
    q.set_defaults(func=_quality)

    m = cs.add_parser("model", help="the paper's transfer-time models")
    m.add_argument("--net", default="3GB/s", help="network bandwidth (default 3GB/s)")
    m.add_argument("--csum", default="6GB/s", help="checksum / fused copy bandwidth (default 6GB/s)")
    m.add_argument("--latency", default="1.4us", help="network latency (default 1.4us)")
    m.add_argument("--gap", default="300ns", help="gap between pipelined chunks (default 300ns)")
    m.add_argument("--sub-block", default="4KiB", help="pipeline sub-block (default 4KiB)")
    m.add_argument("--threshold", default="16KiB", help="eager/rendezvous threshold (default 16KiB)")
    m.add_argument("--sizes", default="8B..64MiB", help="message sizes (default 8B..64MiB)")
    m.add_argument("--plot", help="write the bandwidth plot to this file (png, svg, pdf)")
    m.add_argument("--json", action="store_true", help="print JSON rows")
    m.set_defaults(func=_model)
