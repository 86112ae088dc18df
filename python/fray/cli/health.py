"""``fray health``: every cable of an InfiniBand dump classified from its port counters, and the
down cables that cut endpoints off (a first version; see ``docs/health.md``)."""

from __future__ import annotations

import argparse
import json

from fray.health import VERDICTS, classify_cables


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``health`` sub-command."""
    p = sub.add_parser(
        "health",
        help="classify every cable from port counters",
        description="Classify every cable of an ibnetdiscover dump (down, flapping, below-peers, "
        "erroring, congested, healthy) from port counters and a down-cable file, most suspect "
        "first.",
    )
    p.add_argument("dump", metavar="DUMP", help="ibnetdiscover output of the fabric")
    p.add_argument(
        "--counters",
        metavar="FILE",
        nargs="+",
        default=[],
        help="port counters: perfquery -x or ibqueryerrors output, or a CSV "
        "(time_s,node,port,counter,value)",
    )
    p.add_argument("--down", metavar="FILE", help="cables known to be down, one FROM->TO a line")
    p.add_argument("--ber", type=float, default=1e-12, help="bit-error rate threshold (1e-12)")
    p.add_argument(
        "--confidence", type=float, default=0.95, help="confidence of the BER interval (0.95)"
    )
    p.add_argument(
        "--xmit-wait-ratio",
        type=float,
        default=0.1,
        help="transmit-wait ratio above which a cable is congested (0.1)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_health)


def run_health(args: argparse.Namespace) -> int:
    """Prints the count of cables in each class and of critical failures, then every cable
    not healthy."""
    df = classify_cables(
        args.dump,
        args.counters,
        down=args.down,
        ber=args.ber,
        confidence=args.confidence,
        xmit_wait_ratio=args.xmit_wait_ratio,
    )
    counts = {v: int((df["verdict"] == v).sum()) for v in VERDICTS}
    critical = int(df["critical"].sum())
    suspect = df[df["verdict"] != "healthy"]
    if args.json:
        rows = suspect.astype({"verdict": str}).to_dict(orient="records")
        out = {"classes": counts, "critical": critical, "cables": rows}
        print(json.dumps(out, indent=2, default=str))
        return 0
    for verdict, n in counts.items():
        print(f"{verdict:<12} {n:>6}")
    print(f"{'critical':<12} {critical:>6} (down cables that cut endpoints off)")
    print()
    for row in suspect.itertuples():
        print(f"{row.verdict:<12} {row.name}  {row.reason}")
    return 0
