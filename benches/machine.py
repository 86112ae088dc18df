"""What a benchmark ran on: CPU, cores, date, software versions, and the load at the start."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import subprocess


def _command(args: list[str]) -> str | None:
    """First line of a command's output, or None if it cannot run."""
    try:
        out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None


def _cpu_model() -> str | None:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return None


def describe() -> dict:
    """The machine and software of this run, as a flat dict."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "load_avg_1_5_15": os.getloadavg(),
        "python": platform.python_version(),
        "rustc": _command(["rustc", "--version"]),
        "fray": importlib.metadata.version("fray"),
        "git_commit": _command(["git", "rev-parse", "--short", "HEAD"]),
        "git_dirty": bool(_command(["git", "status", "--porcelain", "--untracked-files=no"])),
    }
