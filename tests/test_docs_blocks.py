"""Every code block a reader may copy runs as written, from the repository root.

The convention (stated for writers in docs/index.md, "Code blocks"):

- A ```python block is a whole script: it runs on its own, in a fresh interpreter.
- In a ```sh, ```bash or ```console block, every command that starts with ``fray `` runs
  (a ``$ `` prompt is dropped, lines ending in ``\\`` are joined, ``#`` comments skipped);
  other commands (``pip``, ``cargo``, ``mpiexec``) are left to the reader. A command runs
  through ``fray.cli.main``, the function the ``fray`` script calls, in this process (an
  interpreter and fray's imports per command would cost more than the commands), and must
  return status 0.
- A block preceded by the line ``<!-- no-run: REASON -->`` is not run (it needs MPI, a cluster,
  or minutes); the reason is required.
- A ```text block preceded by the line ``<!-- output -->`` is what the block before it prints,
  exactly (trailing spaces aside): the test compares the two, so a printed result in the docs
  cannot drift from the code.

The blocks of one page run in the page's order in one scratch directory whose entries link to
the repository root's (so ``examples/...`` resolves and a file one block writes, the next block
reads); a block fails the test when it exits non-zero or runs over its
time limit. ``docs/notes/`` (dated research notes) is not a user page and is not run.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from fray.cli import main as fray_main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TIMEOUT_S = 60

FENCE = re.compile(r"^```(\w*)\s*$")
NO_RUN = re.compile(r"^<!--\s*no-run:\s*\S.*-->\s*$")
OUTPUT = re.compile(r"^<!--\s*output\s*-->\s*$")
SHELL = {"sh", "bash", "console", "shell"}


@dataclass
class Block:
    """One fenced block of a page: its language, first line number and text."""

    lang: str
    line: int
    text: str
    skipped: bool
    output: bool = False


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` in order (nested fences are not used in fray's docs)."""
    out: list[Block] = []
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        prev = next((s for s in reversed(lines[:i]) if s.strip()), "")
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        out.append(Block(m.group(1), i + 1, "\n".join(lines[i + 1:j]), bool(NO_RUN.match(prev)),
                         bool(OUTPUT.match(prev))))
        i = j + 1
    return out


def commands(text: str) -> list[str]:
    """The ``fray`` commands of a shell block, continuation lines joined."""
    joined: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        line = line.removeprefix("$ ")
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line
        else:
            joined.append(line)
    return [c for c in joined if c.startswith("fray ")]


def scratch(tmp: Path) -> Path:
    """A directory that reads like the repository root but takes the blocks' outputs."""
    for entry in ROOT.iterdir():
        if entry.name not in {".git", "target", ".venv"}:
            (tmp / entry.name).symlink_to(entry)
    return tmp


def run_script(script: Path, where: str) -> str:
    """Runs a Python block's script in a fresh interpreter in its scratch directory and
    returns what it printed."""
    env = dict(os.environ, MPLBACKEND="Agg")
    try:
        done = subprocess.run([sys.executable, script.name], cwd=script.parent, env=env, check=False,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{where}: ran over {TIMEOUT_S} s")
    if done.returncode != 0:
        pytest.fail(f"{where}: exit status {done.returncode}\n{done.stdout[-2000:]}"
                    f"\n{done.stderr[-3000:]}")
    return done.stdout


def run_command(cmd: str, cwd: Path, where: str) -> str:
    """Runs one ``fray`` command line through the ``fray`` script's own function in ``cwd``
    and returns what it printed."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = fray_main(shlex.split(cmd, comments=True)[1:])
    except SystemExit as exc:  # argparse's usage errors
        status = exc.code
    finally:
        os.chdir(here)
    if status not in (0, None):
        pytest.fail(f"{where}: exit status {status}\n{out.getvalue()[-2000:]}"
                    f"\n{err.getvalue()[-3000:]}")
    return out.getvalue()


def same_text(a: str, b: str) -> bool:
    """Equal line by line, trailing spaces and blank edges aside."""
    def lines(t: str) -> list[str]:
        return [line.rstrip() for line in t.strip("\n").splitlines()]
    return lines(a) == lines(b)


def test_the_convention_is_read_as_stated():
    page = ROOT / "tests" / "_doc_sample.md"
    text = ("<!-- no-run: needs MPI -->\n```python\nimport mpi4py\n```\n\n```sh\n"
            "$ fray fabric info \\\n   mesh:4x4   # comment\npip install .\n# fray no\n```\n"
            "<!-- output -->\n```text\nswitches 1\n```\n")
    try:
        page.write_text(text)
        found = blocks(page)
    finally:
        page.unlink()
    assert [(b.lang, b.line, b.skipped, b.output) for b in found] == [
        ("python", 2, True, False), ("sh", 6, False, False), ("text", 13, False, True)]
    assert commands(found[1].text) == ["fray fabric info  mesh:4x4   # comment"]
    assert same_text("a  \nb\n\n", "\na\nb") and not same_text("a\nb", "a\nc")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_blocks_run(page: Path, tmp_path: Path):
    cwd = scratch(tmp_path)
    name = page.relative_to(ROOT)
    printed = ""
    for n, block in enumerate(blocks(page)):
        if block.skipped:
            continue
        where = f"{name}:{block.line}"
        if block.output:
            assert same_text(printed, block.text), f"{where}: the block above printed\n{printed}"
        elif block.lang == "python":
            script = cwd / f"_block{n}.py"
            script.write_text(block.text + "\n")
            printed = run_script(script, where)
        elif block.lang in SHELL:
            printed = "".join(run_command(cmd, cwd, f"{where}: {cmd}")
                              for cmd in commands(block.text))
