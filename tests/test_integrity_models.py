"""The transfer-time models reproduce the paper's figures."""

import pytest
from fray.integrity import ModelParams, model_table, pingpong_curves, plot_models, plot_pingpong


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


def _row(size, mode, checksum, bw):
    return {"size_bytes": size, "mode": mode, "checksum": checksum, "bandwidth_bytes_s": bw}


def test_pingpong_curves_keep_checked_algorithms_apart_and_take_medians():
    rows = [_row(1024, "none", "none", 3.0), _row(8, "none", "none", 1.0),
            _row(1024, "none", "none", 5.0), _row(1024, "none", "none", 4.0),
            _row(8, "checked", "crc32c", 2.0), _row(8, "checked", "fletcher64", 7.0)]
    curves = pingpong_curves(rows)
    assert curves["none"] == ([8, 1024], [1.0, 4.0])
    assert curves["checked:crc32c"] == ([8], [2.0])
    assert curves["checked:fletcher64"] == ([8], [7.0])


def test_pingpong_plot_draws_every_curve_and_the_ratios(tmp_path, monkeypatch):
    import matplotlib.figure

    saved = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda fig, path, **kw: saved.append(fig))
    rows = [_row(s, m, c, bw) for s, m, c, bw in [
        (8, "none", "none", 2.0), (64, "none", "none", 4.0),
        (8, "unchecked", "none", 4.0), (64, "unchecked", "none", 8.0),
        (8, "checked", "fletcher64", 3.0), (64, "checked", "fletcher64", 2.0)]]
    assert plot_pingpong(rows, tmp_path / "p.png") == tmp_path / "p.png"
    top, bottom = saved[0].axes
    assert len(top.lines) == 3
    ratios = {line.get_label(): list(line.get_ydata()) for line in bottom.lines
              if line.get_label().startswith("checked")}
    assert ratios == {"checked:fletcher64 / none": [1.5, 0.5],
                      "checked:fletcher64 / unchecked": [0.75, 0.25]}


def test_pingpong_plot_leaves_out_zero_byte_rows_and_refuses_only_those(tmp_path, monkeypatch):
    # The log axes cannot show 0 bytes: matplotlib warned on standard error ("Data has no
    # positive values") and wrote an empty plot.
    import warnings

    import matplotlib.figure
    from fray import SpecError

    saved = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda fig, path, **kw: saved.append(fig))
    rows = [_row(0, "none", "none", 0.0), _row(8, "none", "none", 2.0),
            _row(0, "checked", "crc32c", 0.0), _row(8, "checked", "crc32c", 1.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_pingpong(rows, tmp_path / "p.png")
    top, _ = saved[0].axes
    assert [list(line.get_xdata()) for line in top.lines] == [[8], [8]]
    with pytest.raises(SpecError, match=r"^rows: no message of more than 0 bytes"):
        plot_pingpong([r for r in rows if r["size_bytes"] == 0], tmp_path / "q.png")
