"""Detection quality and auto-tuning with its per-CPU cache."""

import json

import fray.integrity as fi
import pytest
from fray import SpecError, _fray


def test_weak_sums_miss_double_bit_errors():
    rows = fi.detection_table(["xor32", "sum32", "crc32c", "xxh3"], ["single", "double"],
                              message_bytes=256, trials=3000, seed=3)
    missed = {(r["algorithm"], r["pattern"]): r["missed"] for r in rows}
    assert missed[("xor32", "double")] > 30
    assert missed[("sum32", "double")] > 5
    assert missed[("crc32c", "double")] == 0 and missed[("xxh3", "double")] == 0
    assert all(missed[(a, "single")] == 0 for a in ("xor32", "sum32", "crc32c", "xxh3"))


def test_tune_uses_and_fills_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FRAY_CACHE_DIR", str(tmp_path))
    kw = {"candidates": ["xor32", "crc32c", "fnv1a64"], "trials": 2000,
          "min_sample_s": 0.002, "samples": 1}
    r = fi.tune([4096, 65536], **kw)
    assert not r.cached
    assert r.algorithm in ("crc32c", "fnv1a64")  # xor32 fails the requirement
    rejected = {c["algorithm"]: c for c in r.candidates}["xor32"]
    assert not rejected["meets_requirement"] and rejected["missed"]["double"] > 0
    data = json.loads((tmp_path / "integrity-tune.json").read_text())
    assert len(data) == 1
    key = next(iter(data))
    assert key.startswith(_fray.integrity_cpu_model())
    again = fi.tune([4096, 65536], **kw)
    assert again.cached and again.algorithm == r.algorithm
    assert fi.cache_path() == tmp_path / "integrity-tune.json"


def test_bench_rows_have_memcpy_reference():
    rows = fi.bench([65536], ["crc32c"], ["checksum", "fused"], min_sample_s=0.002, samples=1)
    ops = sorted(r["operation"] for r in rows)
    assert ops == ["checksum", "fused", "memcpy"]
    assert all(r["bandwidth_bytes_s"] > 0 for r in rows)


def test_a_cache_folder_that_cannot_be_written_is_named(monkeypatch):
    # FileExistsError's traceback before (and under mpiexec the other ranks waited for ever)
    monkeypatch.setenv("FRAY_CACHE_DIR", "/dev/null")
    with pytest.raises(SpecError, match=r"^FRAY_CACHE_DIR: cannot write the tuning cache "
                                        r"/dev/null/integrity-tune\.json \(File exists\)"):
        fi.tune([4096], candidates=["crc32c"], trials=100, min_sample_s=0.001, samples=1,
                force=True)
