"""Launches commands on a real MPI (the mpich wheel) on localhost, for the MPI tests."""

import os
import shutil
import subprocess
import sysconfig

# The mpich wheel (a dependency of fray) installs mpiexec beside the interpreter's scripts,
# which need not be on PATH (pyenv shims, an unactivated virtual environment).
MPIEXEC = shutil.which("mpiexec", path=sysconfig.get_path("scripts")) or shutil.which("mpiexec")


def mpirun(*args, ranks=2, timeout=180, launch=(), env=None):
    """Runs ``args`` on ``ranks`` ranks; ``launch`` adds options of mpiexec, ``env`` variables
    of the ranks' environment."""
    assert MPIEXEC, "mpiexec not found: the mpich wheel should have installed it"
    env = {**os.environ, **(env or {})}
    env.setdefault("FRAY_CACHE_DIR", os.path.join(os.getcwd(), ".pytest_cache", "fray"))
    return subprocess.run([MPIEXEC, *launch, "-n", str(ranks), *args], capture_output=True,
                          text=True, timeout=timeout, env=env, check=False)
