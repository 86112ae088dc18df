"""The paper's transfer-time models (computed in Rust) and their plot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fray import _fray

MODELS = ("raw", "naive", "eager_fused", "pipelined", "fray")
LABELS = {
    "raw": "no checksum (network)",
    "naive": "naive: checksum, send, checksum",
    "eager_fused": "eager, checksum fused in copies",
    "pipelined": "super-pipeline, checksum in copies",
    "fray": "fray: eager then pipelined",
}


@dataclass(frozen=True)
class ModelParams:
    """Model parameters; bandwidths in bytes/s, times in s, sizes in bytes."""

    net_bandwidth_bytes_s: float
    net_latency_s: float
    csum_bandwidth_bytes_s: float
    gap_s: float
    sub_block_bytes: float
    rendezvous_threshold_bytes: float

    @classmethod
    def paper(cls) -> ModelParams:
        """The paper's ``jack`` cluster: 3 GB/s, 1.4 us, 6 GB/s, 300 ns gap, 4 KiB, 16 KiB."""
        return cls(*_fray.integrity_paper_params())

    def replace(self, **changes: float) -> ModelParams:
        """A copy with some fields changed."""
        return ModelParams(**{**self.__dict__, **changes})


def default_sizes() -> list[int]:
    """8 B to 64 MiB, doubling."""
    return [8 << i for i in range(24)]


def model_table(params: ModelParams | None = None,
                sizes_bytes: Sequence[float] | None = None) -> list[dict]:
    """One row per (size, model): ``size_bytes``, ``model``, ``time_s``,
    ``bandwidth_bytes_s`` and ``overhead`` (bandwidth lost against the raw network)."""
    p = params or ModelParams.paper()
    sizes = [float(s) for s in (sizes_bytes or default_sizes())]
    rows = _fray.integrity_model_table(
        sizes, p.net_bandwidth_bytes_s, p.net_latency_s, p.csum_bandwidth_bytes_s, p.gap_s,
        p.sub_block_bytes, p.rendezvous_threshold_bytes)
    return [
        {"size_bytes": size, "model": m, "time_s": t, "bandwidth_bytes_s": bw, "overhead": o}
        for size, curves in rows for m, t, bw, o in curves
    ]


def plot_models(path: str, params: ModelParams | None = None,
                sizes_bytes: Sequence[float] | None = None) -> None:
    """Draws apparent bandwidth against message size for every model into ``path`` (PNG/SVG/PDF)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = params or ModelParams.paper()
    rows = model_table(p, sizes_bytes)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for m in MODELS:
        pts = [(r["size_bytes"], r["bandwidth_bytes_s"] / 1e9) for r in rows if r["model"] == m]
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker=".", label=LABELS[m])
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("apparent bandwidth (GB/s)")
    ax.set_title(f"net {p.net_bandwidth_bytes_s / 1e9:g} GB/s, checksum "
                 f"{p.csum_bandwidth_bytes_s / 1e9:g} GB/s, latency {p.net_latency_s * 1e6:g} us")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def net_chunk_plan(net_bandwidth_bytes_s: float, gap_s: float,
                   csum_bandwidth_bytes_s: float) -> tuple[int, float, int]:
    """Chunk plan of the checked transport's ``mpi`` path from the model:
    ``(first_chunk_bytes, ratio, max_chunk_bytes)``, chunks used largest first and shrinking
    by ``ratio = B_csum / B_net`` to ``first_chunk_bytes = g B_csum`` (its checksum, the only
    one not hidden behind the network, costs one gap); the largest chunk keeps the gap before
    it under 1 % of its network time. ``gap_s`` is what one more chunk message costs (the
    transport passes the larger of ``measure_network``'s gap and chunk gap)."""
    return _fray.integrity_net_chunk_plan(net_bandwidth_bytes_s, gap_s, csum_bandwidth_bytes_s)
