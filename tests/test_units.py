"""Quantities typed by people, read by the one parser in the core."""

from decimal import Decimal

import pytest
from fray import SpecError, _fray
from fray.units import (
    format_bytes,
    format_rate,
    format_seconds,
    parse_bytes,
    parse_rate,
    parse_seconds,
    parse_size_list,
)
from hypothesis import given
from hypothesis import strategies as st

PREFIX = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
          "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
TIME = {"s": Decimal(1), "ms": Decimal("1e-3"), "us": Decimal("1e-6"), "µs": Decimal("1e-6"),
        "μs": Decimal("1e-6"), "ns": Decimal("1e-9"), "ps": Decimal("1e-12")}
# Numbers as people write them: 400, 2.5, 1e6, 1.4E-3.
NUMBERS = st.builds(
    lambda whole, frac, exp: f"{whole}{'.' + frac if frac else ''}{exp}",
    st.integers(0, 99999).map(str),
    st.sampled_from(["", "5", "25", "125", "0001"]),
    st.sampled_from(["", "e3", "E-2", "e+1", "e0"]),
)
SPACES = st.sampled_from(["", " ", "  "])


@pytest.mark.parametrize("text,want", [
    ("8B", 8), ("64KiB", 65536), ("4MB", 4_000_000), ("1.5KiB", 1536), ("1.1KB", 1100),
    ("0.1KB", 100), ("2 GiB", 2 * 2**30), ("3kB", 3000), ("1e3B", 1000), ("2KiB", 2048),
    ("4MiB", 4 * 2**20), ("1e6B", 10**6),
])
def test_sizes(text, want):
    assert parse_bytes(text) == want


@pytest.mark.parametrize("text", ["8", "8b", "KiB", "1.5B", "-1B", "1.0001KB", "4 MiBs", ""])
def test_bad_sizes_name_the_field(text):
    with pytest.raises(SpecError, match=r"^msg-size: ") as err:
        parse_bytes(text, "msg-size")
    assert err.value.field == "msg-size"


@pytest.mark.parametrize("text,want", [
    ("3GB/s", 3e9), ("800MiB/s", 800 * 2**20), ("400Gb/s", 50e9), ("400 Gb/s", 50e9),
    ("50GB/s", 50e9), ("25Gb/s", 3.125e9), ("3 Gb/s", 0.375e9), ("6.7GB/s", 6.7e9),
])
def test_rates_in_bytes_or_bits(text, want):
    assert parse_rate(text) == want


@pytest.mark.parametrize("text,want", [
    ("1.4us", 1.4e-6), ("1.4µs", 1.4e-6), ("1.4μs", 1.4e-6), ("150ns", 150e-9),
    ("300 ns", 300e-9), ("2s", 2.0), ("10ns", 1e-8), ("0s", 0.0),
])
def test_durations(text, want):
    assert parse_seconds(text) == want


def test_bad_rates_and_times_name_the_field():
    for bad in ("3GB", "0GB/s", "3 G B/s", "3GBps", "fast"):
        with pytest.raises(SpecError, match="^net: ") as err:
            parse_rate(bad, "net")
        assert err.value.field == "net"
    with pytest.raises(SpecError, match="^latency: ") as err:
        parse_seconds("1.4", "latency")
    assert err.value.field == "latency"


def test_size_lists():
    assert parse_size_list("32KiB,64MiB") == [32768, 64 * 2**20]
    assert parse_size_list("8B..64B") == [8, 16, 32, 64]
    assert parse_size_list("8B..8B") == [8]
    assert len(parse_size_list("8B..64MiB")) == 24
    for bad in ("", "32KiB,,64MiB", "64B..8B", "0B..8B", "32KiB,"):
        with pytest.raises(SpecError, match="^sizes: ") as err:
            parse_size_list(bad)
        assert err.value.field == "sizes"


@given(NUMBERS, SPACES, st.sampled_from(sorted(PREFIX)), st.sampled_from(["B/s", "b/s"]))
def test_rates_are_the_exact_value_rounded_once(number, space, prefix, unit):
    # The wrapper reads what the core reads, and that is the exact decimal value rounded once.
    text = f"{number}{space}{prefix}{unit}"
    exact = Decimal(number) * PREFIX[prefix] / (8 if unit == "b/s" else 1)
    if not Decimal("0.125") <= exact <= Decimal("1e21"):
        # A rate is refused outside 1 b/s to 1e21 B/s (zero, or past what the clocks hold).
        with pytest.raises(SpecError, match="positive, finite bandwidth" if exact == 0
                           else "from 1b/s to 1e9TB/s"):
            parse_rate(text, "rate")
        return
    assert parse_rate(text) == _fray.parse_rate(text, "bandwidth") == float(exact)


@given(NUMBERS, SPACES, st.sampled_from(sorted(PREFIX)))
def test_sizes_are_exact_whole_bytes(number, space, prefix):
    text = f"{number}{space}{prefix}B"
    exact = Decimal(number) * PREFIX[prefix]
    if exact != exact.to_integral_value() or exact >= 2**64:
        with pytest.raises(SpecError, match="^size: "):
            parse_bytes(text)
        return
    assert parse_bytes(text) == _fray.parse_bytes(text, "size") == int(exact)


@given(NUMBERS, SPACES, st.sampled_from(sorted(TIME)))
def test_durations_are_the_exact_value_rounded_once(number, space, unit):
    text = f"{number}{space}{unit}"
    assert parse_seconds(text) == float(Decimal(number) * TIME[unit])


@given(st.floats(min_value=0.125, max_value=1e16), st.floats(min_value=0, max_value=1e4),
       st.integers(0, 2**64 - 1))
def test_printed_quantities_read_back(rate, seconds, size):
    assert parse_rate(format_rate(rate)) == rate
    assert parse_seconds(format_seconds(seconds)) == seconds
    assert parse_bytes(format_bytes(size)) == size
