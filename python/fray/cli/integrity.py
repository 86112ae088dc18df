"""``fray integrity``: the checked transport on a real MPI (run under ``mpiexec -n 2``)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from fray import FrayError, SpecError, outputs
from fray.cli import numbers
from fray.integrity import limits
from fray.outputs import FIGURES
from fray.units import parse_size_list

# No ``OUTPUTS``: ``--plot`` is checked in ``_pingpong`` with the other options, so that under
# mpiexec only rank 0 says what is wrong (``fray.cli._check_outputs`` runs on every rank).

#: Environment variables in which MPI launchers give each process its rank before MPI starts
#: (MPICH's Hydra and Intel MPI, PMIx, Open MPI, MVAPICH, Slurm's srun).
LAUNCHER_RANK = ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK",
                 "SLURM_PROCID")

#: The defaults of the options that may be given once (``numbers.Once`` needs ``None``).
DEFAULTS = {"checksum": "auto", "path": "auto", "ber": 0.0, "sizes": "8B..64MiB", "trials": 3,
            "seed": 1}


def launcher_rank() -> int:
    """This process's rank as its MPI launcher numbered it, read before MPI starts; 0 when no
    launcher started it."""
    for name in LAUNCHER_RANK:
        value = os.environ.get(name, "")
        if value.strip().isdigit():
            return int(value)
    return 0


def _modes(text: str) -> list[str]:
    # Fields as the checksum commands name them (``checksum: ...``, ``sizes: ...``).
    return limits.modes(numbers.items(text, "checksum", "mode"), "checksum")


def _checked(args: argparse.Namespace) -> list[int]:
    """Checks the options as every rank meets them, before MPI starts; returns the sizes in
    bytes."""
    for dest, default in DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    sizes = limits.message_sizes(parse_size_list(args.sizes, "sizes"), "sizes")
    args.modes = _modes(args.checksum)
    fray_modes = [m for m in args.modes if m not in ("none", "naive")]
    if not fray_modes:
        ignored = [o for o, given in (("path", args.path != "auto"),
                                      ("no-alloc", args.no_alloc)) if given]
        if ignored:
            raise SpecError(f"{ignored[0]}: only fray's transports (unchecked, auto or an "
                            f"algorithm name) take --{ignored[0]}, and --checksum "
                            f"{args.checksum} has none")
    if args.no_alloc and args.path == "mpi":
        raise SpecError("no-alloc: with --path mpi fray's transports send from ordinary "
                        "arrays already (buffers of CheckedComm.alloc matter on shared memory)")
    if args.plot:
        outputs.check_file(args.plot, "--plot", FIGURES)
        if max(sizes) == 0:
            raise SpecError("--plot: every size is 0B, and the plot's axes are logarithmic: "
                            "give sizes above 0B to draw")
    return sizes


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
    # Under mpiexec every rank runs this command: an error that every rank meets alike (a bad
    # option, the number of ranks, a --ber the run cannot get through) is said by rank 0
    # only, one line; the others end with the same status.
    try:
        sizes = _checked(args)
        if args.network:
            force_network(args.network)
    except (FrayError, ValueError):
        if launcher_rank() != 0:
            return 2
        raise
    from mpi4py import MPI

    from fray.integrity.pingpong import pingpong

    try:
        rows = pingpong(sizes, args.modes, ber=args.ber, seed=args.seed, trials=args.trials,
                        path=args.path, alloc=not args.no_alloc)
    except SpecError:
        if MPI.COMM_WORLD.Get_rank() != 0:
            return 2
        raise
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


def _rank_zero_speaks(base: type[argparse.ArgumentParser]) -> type[argparse.ArgumentParser]:
    """``base`` (the ``fray`` parser class) whose refusals only the launcher's rank 0 prints:
    under ``mpiexec -n 2`` both ranks parse the same command line and would print the same
    line twice; the other ranks exit with the same status, silently."""

    class RankZeroParser(base):  # type: ignore[valid-type, misc]
        def error(self, message: str) -> None:  # type: ignore[override]
            if launcher_rank() != 0:
                self.exit(2)
            super().error(message)

    return RankZeroParser


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers ``fray integrity`` and its sub-commands."""
    p = sub.add_parser("integrity", help="checked message transport over MPI")
    p.__class__ = _rank_zero_speaks(type(p))  # ``mpiexec -n 2 fray integrity pingpon``
    s = p.add_subparsers(dest="integrity_command", metavar="ACTION", required=True,
                         parser_class=type(p))
    pp = s.add_parser("pingpong", help="NetPIPE-style ping-pong between 2 MPI ranks")
    once = {"action": numbers.Once}  # a second value is refused, not silently kept
    pp.add_argument("--checksum", **once,
                    help="auto, none (plain MPI), naive, unchecked (fray's transport without "
                         "checksums), an algorithm name, or several separated by commas "
                         "(default auto)")
    pp.add_argument("--path", choices=limits.PATHS, **once,
                    help="checked transport path: auto, shared-memory (ranks on one node) or mpi "
                         "(default auto)")
    pp.add_argument("--network", choices=sorted(NETWORKS), **once,
                    help="force MPI onto this network between the ranks even on one node "
                         "(tcp: sets UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 in every rank; "
                         "default: MPI's own choice)")
    pp.add_argument("--ber", type=numbers.real(0, 1), **once,
                    help="bit error rate injected in flight, 0 to 1; refused when a message "
                         "would most likely stay damaged after every retry (default 0.0)")
    pp.add_argument("--no-alloc", action="store_true",
                    help="send fray's transports from ordinary arrays (two copies through the "
                         "ring) instead of CheckedComm.alloc buffers (one copy)")
    pp.add_argument("--sizes", **once,
                    help="message sizes, 0B to 1GiB each, separated by commas, or a doubling "
                         "range LOW..HIGH (default 8B..64MiB)")
    pp.add_argument("--trials", type=numbers.whole(1, limits.MAX_TRIALS), **once,
                    help=f"interleaved trials, 1 to {limits.MAX_TRIALS}; median kept "
                         "(default 3)")
    pp.add_argument("--seed", type=numbers.SEED, **once,
                    help="seed of the messages' data and the injected bit errors (default 1)")
    pp.add_argument("--json", action="store_true", help="print JSON rows (rank 0)")
    pp.add_argument("--plot", **once,
                    help="write the bandwidth plot to this file (png, svg, pdf; rank 0; "
                         "default: no plot)")
    pp.set_defaults(func=_pingpong)
