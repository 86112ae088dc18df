"""The transfer-time models reproduce the paper's figures."""

import pytest
from fray.integrity import ModelParams, model_table, plot_models


def row(rows, size, model):
    return next(r for r in rows if r["size_bytes"] == size and r["model"] == model)


def test_paper_figures():
    p = ModelParams.paper()
    assert (p.net_bandwidth_bytes_s, p.csum_bandwidth_bytes_s, p.net_latency_s) == \
        (3e9, 6e9, 1.4e-6)
    rows = model_table(p, [4096, 1 << 20, 1 << 30])
    # Naive: half of the network bandwidth for large messages.
    assert row(rows, 1 << 30, "naive")["bandwidth_bytes_s"] / 3e9 == pytest.approx(0.5, abs=1e-3)
    # Eager with fused copies: about a third lost at 4 KiB (33.1 %; the paper says 34 %).
    assert row(rows, 4096, "eager_fused")["overhead"] == pytest.approx(0.34, abs=0.015)
    # Super-pipelined: under 1 % at 1 MiB.
    assert 0 < row(rows, 1 << 20, "pipelined")["overhead"] < 0.01
    assert row(rows, 1 << 20, "fray")["time_s"] == row(rows, 1 << 20, "pipelined")["time_s"]
    assert row(rows, 4096, "fray")["time_s"] == row(rows, 4096, "eager_fused")["time_s"]


def test_plot_is_written(tmp_path):
    out = tmp_path / "model.png"
    plot_models(str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
