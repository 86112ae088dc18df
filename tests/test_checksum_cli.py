"""``fray checksum`` and ``fray integrity`` from the command line."""

import json
import subprocess
import sys

import pytest


def fray(*args, env=None):
    return subprocess.run([sys.executable, "-m", "fray", *args], capture_output=True,
                          text=True, timeout=120, env=env, check=False)


def test_model_json_and_plot(tmp_path):
    out = tmp_path / "m.png"
    r = fray("checksum", "model", "--net", "3GB/s", "--csum", "6GB/s", "--latency", "1.4us",
             "--sizes", "4KiB,1MiB", "--plot", str(out), "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    eager = next(x for x in rows if x["size_bytes"] == 4096 and x["model"] == "eager_fused")
    assert abs(eager["overhead"] - 0.34) < 0.015
    assert out.exists()


def test_bench_json():
    r = fray("checksum", "bench", "--sizes", "32KiB", "--algorithms", "crc32c,xxh3",
             "--samples", "1", "--min-sample", "0.002", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert {x["operation"] for x in rows} == {"memcpy", "checksum", "fused"}


def test_tune_prints_the_choice(tmp_path):
    import os

    env = dict(os.environ, FRAY_CACHE_DIR=str(tmp_path))
    r = fray("checksum", "tune", "--sizes", "16KiB", "--algorithms", "xor32,crc32c",
             "--trials", "2000", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("crc32c ")
    r = fray("checksum", "tune", "--sizes", "16KiB", "--algorithms", "xor32,crc32c",
             "--trials", "2000", env=env)
    assert "cached" in r.stdout


@pytest.mark.parametrize("args,field", [
    (("checksum", "model", "--net", "3GB"), "net"),
    (("checksum", "model", "--latency", "fast"), "latency"),
    (("checksum", "bench", "--sizes", "12"), "sizes"),
    (("checksum", "bench", "--algorithms", "md5"), "algorithms"),
    (("checksum", "tune", "--require", "triple"), "patterns"),
    (("checksum", "quality", "--message-size", "1KB2"), "message-size"),
    (("integrity", "pingpong", "--checksum", "sha1"), "checksum"),
    # 0 trials declared checksums that miss errors safe; a cached choice skipped the check
    (("checksum", "tune", "--sizes", "4KiB", "--algorithms", "xor32,sum32", "--force",
      "--trials", "0"), "argument --trials: must be from 1"),
    (("checksum", "tune", "--sizes", "4KiB", "--trials", "-1"), "argument --trials"),
    (("checksum", "tune", "--sizes", "4KiB", "--trials", "99999999999999999999"),
     "argument --trials"),
    (("checksum", "quality", "--trials", "99999999999999999999"), "argument --trials"),
    (("checksum", "bench", "--sizes", "4KiB", "--samples", "-1"), "argument --samples"),
    # the option named, not "samples"
    (("checksum", "bench", "--sizes", "4KiB", "--min-sample", "nan"), "argument --min-sample"),
    (("checksum", "bench", "--sizes", "4KiB", "--min-sample", "-1"), "argument --min-sample"),
    (("checksum", "model", "--sub-block", "0B"), "sub-block"),
    # argparse's own refusal is one line too (a usage block came first before)
    (("checksum", "tune", "--trials", "abc"), "argument --trials: expected a whole number"),
])
def test_bad_input_is_one_line_and_exit_2(args, field):
    r = fray(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"error: {field}" in lines[0]


def test_output_cut_short_by_its_reader_ends_quietly():
    # As `fray checksum model | head -0`: the reader has closed the pipe before the first
    # write (the interpreter takes far longer to start than this close).
    p = subprocess.Popen([sys.executable, "-m", "fray", "checksum", "model", "--sizes",
                          "8B..64MiB"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 141, err
    assert "Traceback" not in err, err
