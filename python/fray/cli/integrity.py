"""``fray integrity``: the checked transport on a real MPI (run under ``mpiexec -n 2``)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from fray import SpecError
from fray.cli import numbers
from fray.outputs import FIGURES
from fray.units import parse_size_list

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"plot": FIGURES}


def _modes(text: str) -> list[str]:
    from fray.integrity import algorithms

    names = [m.strip() for m in text.split(",") if m.strip()]
    known = ["none", "naive", "unchecked", "auto", *algorithms()]
    for m in names:
        if m not in known:
            raise SpecError(f"checksum: unknown mode {m!r} (known: none, naive, unchecked, "
                            f"auto or an algorithm name)")
    if not names:
        raise SpecError("checksum: expected auto, none, naive or an algorithm name")
    return names


NETWORKS = {
    # MPICH over UCX: TCP sockets only (no shared memory, no cross-memory attach), and no
    # node-local shortcut in MPICH itself, so ranks on one node talk as across a network.
    "tcp": {"UCX_TLS": "tcp,self", "MPIR_CVAR_NOLOCAL": "1"},
}


def force_network(name: str) -> None:
    """Sets the environment that makes MPI use network ``name`` between all ranks, before MPI
    starts in this process (every rank runs it for itself)."""
    if name not in NETWORKS:
        raise SpecError(f"network: expected one of {', '.join(NETWORKS)}, got {name!r}")
    if "mpi4py.MPI" in sys.modules:
        raise SpecError("network: MPI is already initialised in this process; set "
                        + " ".join(f"{k}={v}" for k, v in NETWORKS[name].items())
                        + " in the environment of mpiexec instead")
    os.environ.update(NETWORKS[name])


def _pingpong(args: argparse.Namespace) -> int:
    sizes = parse_size_list(args.sizes, "sizes")
    modes = _modes(args.checksum)
    if not 0.0 <= args.ber <= 1.0:
        raise SpecError(f"ber: bit error rate must be in [0, 1], got {args.ber}")
    if args.network:
        force_network(args.network)
    from fray.integrity.pingpong import pingpong

    if args.path not in ("auto", "shared-memory", "mpi"):
        raise SpecError(f"path: expected auto, shared-memory or mpi, got {args.path!r}")
    rows = pingpong(sizes, modes, ber=args.ber, seed=args.seed, trials=args.trials,
                    path=args.path, alloc=not args.no_alloc)
    if not rows:
        return 0
    if not rows[0]["pinned"]:
        print("fray integrity pingpong: note: the ranks are not pinned to cores, so timings "
              "vary from run to run; run it as mpiexec --bind-to core -n 2 ...", file=sys.stderr)
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        print(f"{'size':>10} {'mode':<10}{'checksum':<11}{'one-way us':>12}{'MB/s':>10}"
              f"{'corrupted':>10}{'resent':>8}  one copy")
        for r in rows:
            print(f"{r['size_bytes']:>10} {r['mode']:<10}{r['checksum']:<11}"
                  f"{r['one_way_s'] * 1e6:>12.2f}{r['bandwidth_bytes_s'] / 1e6:>10.1f}"
                  f"{r['corrupted']:>10}{r['resent']:>8}  {'yes' if r['one_copy'] else 'no'}")
    if args.plot:
        from fray.integrity import plot_pingpong

        plot_pingpong(rows, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers ``fray integrity`` and its sub-commands."""
    p = sub.add_parser("integrity", help="checked message transport over MPI")
    s = p.add_subparsers(dest="integrity_command", metavar="ACTION", required=True)
    pp = s.add_parser("pingpong", help="NetPIPE-style ping-pong between 2 MPI ranks")
    pp.add_argument("--checksum", default="auto",
                    help="auto, none (plain MPI), naive, unchecked (fray's transport without "
                         "checksums), an algorithm name, or several separated by commas "
                         "(default auto)")
    pp.add_argument("--path", default="auto",
                    help="checked transport path: auto, shared-memory (ranks on one node) or mpi "
                         "(default auto)")
    pp.add_argument("--network", choices=sorted(NETWORKS),
                    help="force MPI onto this network between the ranks even on one node "
                         "(tcp: sets UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 in every rank; "
                         "default: MPI's own choice)")
    pp.add_argument("--ber", type=float, default=0.0,
                    help="bit error rate injected in flight (default 0.0)")
    pp.add_argument("--no-alloc", action="store_true",
                    help="send fray's transports from ordinary arrays (two copies through the "
                         "ring) instead of CheckedComm.alloc buffers (one copy)")
    pp.add_argument("--sizes", default="8B..64MiB", help="message sizes (default 8B..64MiB)")
    pp.add_argument("--trials", type=int, default=3,
                    help="interleaved trials; median kept (default 3)")
    pp.add_argument("--seed", type=numbers.SEED, default=1,
                    help="seed of the messages' data and the injected bit errors (default 1)")
    pp.add_argument("--json", action="store_true", help="print JSON rows (rank 0)")
    pp.add_argument("--plot", help="write the bandwidth plot to this file (png, svg, pdf; rank 0)")
    pp.set_defaults(func=_pingpong)
