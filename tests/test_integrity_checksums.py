"""fray.integrity checksums from Python: reference values, pieces, fused copies, errors."""

import zlib

import fray.integrity as fi
import numpy as np
import pytest
from fray import SpecError
from hypothesis import given, settings
from hypothesis import strategies as st

ALGS = fi.algorithms()


def test_names_are_the_issue_names():
    assert ALGS == ["sum32", "xor32", "adler32", "fletcher64", "jenkins", "fnv1a32",
                    "fnv1a64", "knuth", "murmur2a", "superfasthash", "crc32c", "crc32", "xxh3"]
    info = {a.name: a for a in fi.algorithm_info()}
    assert info["sum32"].reference_only and not info["crc32c"].reference_only
    assert info["xxh3"].bits == 64 and info["crc32c"].bits == 32


def test_reference_values():
    assert fi.checksum(b"123456789", "crc32c") == 0xE3069283
    assert fi.checksum(bytes(32), "crc32c") == 0x8A9136AA
    assert fi.checksum(b"a", "fnv1a32") == 0xE40C292C
    assert fi.checksum(b"foobar", "fnv1a64") == 0x85944171F73967E8
    assert fi.checksum(b"", "xxh3") == 0x2D06800538D394C2


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=5000))
def test_zlib_agrees(data):
    assert fi.checksum(data, "adler32") == zlib.adler32(data)
    assert fi.checksum(data, "crc32") == zlib.crc32(data)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=4000), cuts=st.lists(st.integers(0, 4000), max_size=5),
       alg=st.sampled_from(ALGS), seed=st.integers(0, 2**64 - 1))
def test_pieces_and_fused_equal_one_call(data, cuts, alg, seed):
    want = fi.checksum(data, alg, seed)
    points = sorted(min(c, len(data)) for c in cuts) + [len(data)]
    c1, c2 = fi.Checksummer(alg, seed), fi.Checksummer(alg, seed)
    dst = bytearray(len(data))
    view = memoryview(dst)
    start = 0
    for p in points:
        c1.update(data[start:p])
        c2.update_copy(view[start:p], data[start:p])
        start = p
    assert c1.value() == want
    assert c2.value() == want
    assert bytes(dst) == data
    out = bytearray(len(data))
    for strategy in ("fused", "blocked"):
        assert fi.copy_checksum(out, data, alg, seed=seed, strategy=strategy) == want
        assert bytes(out) == data


def test_numpy_arrays_of_any_dtype():
    a = np.arange(100_000, dtype=np.float64)
    d = np.empty_like(a)
    for alg in ("crc32c", "xxh3", "fletcher64"):
        assert fi.copy_checksum(d, a, alg) == fi.checksum(a.tobytes(), alg)
        assert np.array_equal(a, d)


@pytest.mark.parametrize("call,field", [
    (lambda: fi.checksum(b"x", "md5"), "algorithm"),
    (lambda: fi.checksum("text", "crc32c"), "data"),
    (lambda: fi.checksum(np.arange(10)[::2], "crc32c"), "data"),
    (lambda: fi.copy_checksum(bytearray(3), b"four", "crc32c"), "dst"),
    (lambda: fi.copy_checksum(b"four", b"four", "crc32c"), "dst"),
    (lambda: fi.copy_checksum(bytearray(4), b"four", "crc32c", strategy="fast"), "strategy"),
    (lambda: fi.checksum(b"x", "crc32c", seed=-1), "seed"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(SpecError, match=rf"^{field}: "):
        call()


def test_overlapping_buffers_are_refused():
    buf = bytearray(100)
    v = memoryview(buf)
    with pytest.raises(SpecError, match="overlaps"):
        fi.copy_checksum(v[10:60], v[0:50], "crc32c")
