"""The fused copy+checksum loops are one pass in the generated code.

A loop that loads a word, folds it and stores it is easily "optimised" by the compiler into a
``memcpy`` call before the loop and a checksum loop after it: two passes over the data, which
is exactly what the fused copy exists to avoid. This test compiles ``fray-integrity`` to
assembly (release profile, one codegen unit) and checks, for every fused kernel, that some
loop of it both stores to memory and does the checksum's arithmetic.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# kernel -> (pattern of the demangled function name, the fold's instruction, how many
# compiled copies of the function must hold a fused loop)
KERNELS = {
    "fletcher64, AVX-512 (cached and streaming stores)":
        (r"fletcher64::lanes_avx512$", r"vpaddq", 2),
    "fletcher64, AVX2 (cached and streaming stores)":
        (r"fletcher64::lanes_avx2$", r"vpaddq", 2),
    "sum32 / xor32": (r"word_reduce::fold_copy_avx2$", r"addl|xorl", 2),
    "crc32c": (r"crc32c::hw::copy_crc$", r"crc32q", 1),
    "xxh3": (r"xxh3::fused_long_avx2$", r"imulq", 1),
    "knuth": (r"Knuth as .*WordFold>::fold_copy$", r"imull", 1),
    "murmur2a": (r"Murmur2a as .*WordFold>::fold_copy$", r"imull", 1),
    "superfasthash": (r"SuperFastHash as .*WordFold>::fold_copy$", r"shll|xorl", 1),
    "fnv1a32": (r"Fnv1a32 as .*Kernel>::update_copy$", r"imull", 1),
    "fnv1a64": (r"Fnv1a64 as .*Kernel>::update_copy$", r"imulq", 1),
    "jenkins": (r"Jenkins as .*Kernel>::update_copy$", r"shll", 1),
    "adler32": (r"Adler32 as .*Kernel>::update_copy$", r"addl", 1),
}

# A store of a register to memory that is not a stack slot.
STORE = re.compile(r"^(v?mov\w*)\s+%[a-z0-9]+,\s*-?\w*\((?!%rsp|%rbp)")
_ESCAPES = {"$LT$": "<", "$GT$": ">", "$u20$": " ", "$RF$": "&", "$BP$": "*", "$C$": ",",
            "$u27$": "'", "$u5b$": "[", "$u5d$": "]", "$u7b$": "{", "$u7d$": "}"}


def demangle(symbol: str) -> str:
    """Rust's legacy mangling (``_ZN`` + length-prefixed parts + ``17h<hash>E``), hash dropped."""
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        part = symbol[j:j + n]
        parts.append(part[1:] if part.startswith("_$") else part)
        i = j + n
    if parts and re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        parts.pop()
    name = "::".join(parts)
    for code, ch in _ESCAPES.items():
        name = name.replace(code, ch)
    return name.replace("..", "::")


def functions(asm: str) -> dict[str, list[list[str]]]:
    """Demangled function name -> the bodies of its loops (a block that jumps to its own
    label), one entry per compiled copy of the function."""
    out: dict[str, list[list[str]]] = {}
    name, label, block, loops = None, None, [], []

    def close_block() -> None:
        if label and any(re.fullmatch(r"j\w+\s+" + re.escape(label), x) for x in block):
            loops.append(block)

    for raw in asm.splitlines():
        line = raw.strip()
        m = re.match(r"^(_ZN[\w$.]+):$", raw)
        if m:
            close_block()
            if name:
                out.setdefault(name, []).append(loops)
            name, label, block, loops = demangle(m.group(1)), None, [], []
            continue
        m = re.match(r"^(\.LBB\w+):", line)
        if m:
            close_block()
            label, block = m.group(1), []
            continue
        block.append(line)
    close_block()
    if name:
        out.setdefault(name, []).append(loops)
    return out


def fused(loop: list[str], fold: str) -> bool:
    """True when the loop stores to memory and folds with the ``fold`` instruction."""
    ops = {x.split()[0] for x in loop if x and not x.startswith(".")}
    return any(STORE.match(x) for x in loop) and any(re.fullmatch(fold, op) for op in ops)


@pytest.fixture(scope="module")
def assembly() -> dict[str, list[list[str]]]:
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the kernels' instructions are named for x86-64")
    if shutil.which("cargo") is None or not (ROOT / "crates/fray-integrity").is_dir():
        pytest.skip("needs cargo and the source tree")
    target = ROOT / "target" / "codegen"
    subprocess.run(["cargo", "rustc", "--quiet", "--release", "-p", "fray-integrity", "--lib",
                    "--target-dir", str(target), "--", "--emit", "asm",
                    "-C", "codegen-units=1"], cwd=ROOT, check=True)
    files = sorted((target / "release" / "deps").glob("fray_integrity-*.s"),
                   key=lambda p: p.stat().st_mtime)
    assert files, "cargo wrote no assembly"
    return functions(files[-1].read_text())


def test_demangle_legacy_symbols() -> None:
    assert demangle("_ZN14fray_integrity10algorithms10fletcher6412lanes_avx51217h6bfd8e5e62b4"
                    "ed62E") == "fray_integrity::algorithms::fletcher64::lanes_avx512"
    assert demangle("_ZN95_$LT$fray_integrity..algorithms..jenkins..Jenkins$u20$as$u20$fray_"
                    "integrity..kernel..Kernel$GT$11update_copy17h7bc15157bec7d3adE") == (
        "<fray_integrity::algorithms::jenkins::Jenkins as fray_integrity::kernel::Kernel>"
        "::update_copy")


def test_a_split_loop_is_not_fused() -> None:
    # The shape LLVM gave the AVX-512 Fletcher-64 copy before its stores were pinned: a
    # memcpy call, then a loop that only loads and adds.
    split = ["vmovdqu64 (%r14,%rax), %zmm9", "vpaddq %zmm11, %zmm7, %zmm7",
             "subq $-128, %rax", "jne .LBB19_3"]
    assert not fused(split, r"vpaddq")
    assert fused(split[:1] + ["vmovdqu64 %zmm9, (%rdx,%rax)"] + split[1:], r"vpaddq")
    assert not fused(["movq %rax, 8(%rsp)", "addl %eax, %ecx", "jne .LBB1_2"], r"addl")


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_fused_kernel_stores_inside_its_checksum_loop(assembly, kernel: str) -> None:
    pattern, fold, copies = KERNELS[kernel]
    found = {name: bodies for name, bodies in assembly.items() if re.search(pattern, name)}
    assert found, f"{kernel}: no function matches {pattern!r} (renamed?)"
    one_pass = sum(any(fused(loop, fold) for loop in loops)
                   for bodies in found.values() for loops in bodies)
    assert one_pass >= copies, (
        f"{kernel}: {one_pass} of the compiled copies of {sorted(found)} hold a loop that "
        f"both stores and folds ({fold}); expected {copies}: the compiler split the copy "
        "from the checksum")
