"""recipes/install.sh offline: a wheelhouse filled from the lock installs rusty_hf into a fresh venv with no network.

The wheelhouse is fetched once (`--download DIR --with-torch`: every wheel of the lock plus the CPU torch and
triton, ~750 MB) and kept in outputs/wheelhouse (ignored by git), refetched when constraints.txt changes;
without PyPI the test skips. The install runs inside `unshare -n` (no network at all) with pip's
configuration files turned off, so nothing but the wheelhouse can supply a package, into a venv that has
only what `python -m venv` gives (its bundled, older pip included). The runtime only (no dev extra): the
dev tools add ~20 wheels and ~1 minute and nothing the runtime's install path does not already exercise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / "outputs" / "wheelhouse"
STAMP = CACHE / ".lock"  # the constraints.txt it was filled from


def _env(python_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": os.pathsep.join([str(python_dir), os.environ["PATH"]]), **extra}


@pytest.fixture(scope="session")
def wheelhouse() -> Path:
    lock = (REPO / "constraints.txt").read_text()
    if STAMP.is_file() and STAMP.read_text() == lock:
        return CACHE
    partial = CACHE.with_name("wheelhouse.partial")
    shutil.rmtree(partial, ignore_errors=True)
    proc = subprocess.run(["bash", "recipes/install.sh", "--download", str(partial), "--with-torch"], cwd=REPO,
                          env=_env(Path(sys.executable).parent), capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        pytest.skip(f"could not fill the wheelhouse (no PyPI here?): {proc.stderr.strip().splitlines()[-1:]}")
    shutil.rmtree(CACHE, ignore_errors=True)
    partial.rename(CACHE)
    STAMP.write_text(lock)
    return CACHE


def test_download_leaves_out_the_cuda_stack_and_adds_the_build_tools(wheelhouse):
    names = {wheel.name.split("-")[0].lower() for wheel in wheelhouse.glob("*.whl")}
    assert {"pip", "setuptools", "wheel", "transformers", "trl", "pytest"} <= names  # build tools, runtime, dev
    assert not any(name.startswith(("nvidia", "cuda")) for name in names)
    setuptools = next(wheelhouse.glob("setuptools-*.whl")).name.split("-")[1]
    assert int(setuptools.split(".")[0]) >= 77  # license expressions (pyproject's [build-system])


def test_a_fresh_venv_installs_from_the_wheelhouse_with_no_network(wheelhouse, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # PIP_NO_COMPILE: no .pyc of the ~20,000 installed modules (nothing here reads bytecode; imports compile what they
    # load). RUSTY_CPU_KERNELS=off: install.sh's last step (`python3 -m rusty_hf.inference.warmup`) still runs in
    # the fresh venv, offline, but skips the 30-60 s C++ kernel build, whose result this test never checked (warmup
    # exits 0 when a build fails too) and which left one ~/.cache/rusty_hf/kernels folder per run; the kernels'
    # builds are tested in test_kernel_cache.py and test_cpu_kernels.py.
    env = _env(venv / "bin", PIP_CONFIG_FILE=os.devnull, PIP_NO_CACHE_DIR="1", PIP_NO_COMPILE="1",
               RUSTY_CPU_KERNELS="off")
    env.pop("PYTHONPATH", None)
    offline = ["unshare", "-n"]
    proc = subprocess.run(offline + ["bash", "recipes/install.sh", "--wheelhouse", str(wheelhouse)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    check = ("import importlib.metadata as m, rusty_hf, trl, datasets, torch; "
             "print(torch.__version__, m.version('pip'), rusty_hf.__file__)")
    out = subprocess.run(offline + [str(venv / "bin" / "python"), "-c", check], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300, check=True).stdout.split()
    lock = (REPO / "constraints.txt").read_text()
    assert f"torch=={out[0]}" in lock  # the lock's CPU torch, from the wheelhouse
    assert int(out[1].split(".")[0]) >= 24  # pip upgraded from the wheelhouse first
    assert Path(out[2]).is_relative_to(REPO)  # rusty_hf itself, editable, built offline with setuptools >= 77

    # The same install again finds the stamp it left and runs no pip; a changed lock installs again.
    again = subprocess.run(offline + ["bash", "recipes/install.sh", "--wheelhouse", str(wheelhouse)], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "installed from this lock already" in again.stdout, again.stderr[-2000:]
    changed = tmp_path / "constraints.txt"
    changed.write_text(lock + "# a changed lock\n")
    again = subprocess.run(offline + ["bash", "recipes/install.sh", "--wheelhouse", str(wheelhouse)], cwd=REPO,
                           env={**env, "RUSTY_LOCK": str(changed)}, capture_output=True, text=True, timeout=1800)
    assert again.returncode == 0 and "already" not in again.stdout, again.stdout[-2000:] + again.stderr[-2000:]


def test_a_wheelhouse_that_is_not_there_is_refused_naming_the_command_that_fills_it(tmp_path):
    proc = subprocess.run(["bash", "recipes/install.sh", "--wheelhouse", str(tmp_path / "nope")], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "recipes/install.sh --download DIR" in proc.stderr
