"""Strict parsing of quantities typed by people."""

import pytest
from fray import SpecError
from fray.units import parse_bytes, parse_rate, parse_seconds, parse_size_list


@pytest.mark.parametrize("text,want", [
    ("8B", 8), ("64KiB", 65536), ("4MB", 4_000_000), ("1.5KiB", 1536), ("1.1KB", 1100),
    ("0.1KB", 100), ("2 GiB", 2 * 2**30), ("3kB", 3000), ("1e3B", 1000),
])
def test_sizes(text, want):
    assert parse_bytes(text) == want


@pytest.mark.parametrize("text", ["8", "8b", "KiB", "1.5B", "-1B", "1.0001KB", "4 MiBs", ""])
def test_bad_sizes_name_the_field(text):
    with pytest.raises(SpecError, match=r"^msg-size: "):
        parse_bytes(text, "msg-size")


def test_rates_and_times():
    assert parse_rate("3GB/s") == 3e9
    assert parse_rate("800MiB/s") == 800 * 2**20
    assert parse_seconds("1.4us") == pytest.approx(1.4e-6)
    assert parse_seconds("300ns") == pytest.approx(3e-7)
    assert parse_seconds("2s") == 2.0
    for bad in ("3GB", "0GB/s", "3 Gb/s"):
        with pytest.raises(SpecError, match="^net: "):
            parse_rate(bad, "net")
    with pytest.raises(SpecError, match="^latency: "):
        parse_seconds("1.4", "latency")


def test_size_lists():
    assert parse_size_list("32KiB,64MiB") == [32768, 64 * 2**20]
    assert parse_size_list("8B..64B") == [8, 16, 32, 64]
    assert parse_size_list("8B..8B") == [8]
    assert len(parse_size_list("8B..64MiB")) == 24
    for bad in ("", "32KiB,,64MiB", "64B..8B", "0B..8B", "32KiB,"):
        with pytest.raises(SpecError, match="^sizes: "):
            parse_size_list(bad)
