"""Attack-suite fixtures: a pids safety net for this pytest process, and the layer sets to attack.

The helpers the tests call (``attack``, ``require_layers``...) live in ``attack_harness.py``.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from rusty_hf.sandbox import SandboxCapabilities, capabilities
from rusty_hf.sandbox.capabilities import detect
from rusty_hf.sandbox.cgroup_pool import confine_process
from rusty_hf.sandbox.processes import pids_of_uid

SAFETY_PIDS = 2048  # this pytest process and everything under it, sandboxes included


@pytest.fixture(scope="session", autouse=True)
def pids_safety_net():
    """Cap this process tree's pids before any attack runs, so a containment bug cannot take the host."""
    release = confine_process(SAFETY_PIDS)
    if os.geteuid() != 0:  # RLIMIT_NPROC binds non-root callers (for root only the cgroup does)
        soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
        cap = len(pids_of_uid(os.geteuid())) + SAFETY_PIDS
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(resource.RLIMIT_NPROC, (cap, hard))
    if release is None and os.geteuid() == 0:
        print("\nnote: no pids cgroup for the test process; relying on each run's own limits", file=sys.stderr)
    capabilities(refresh=True)  # per-run cgroups must nest inside the safety net
    yield
    if release is not None:
        release()
        capabilities(refresh=True)  # the safety-net cgroup is gone; later runs nest where we are again


@pytest.fixture(scope="session")
def without_bwrap(pids_safety_net) -> SandboxCapabilities:
    """The layers this host would give without bubblewrap (detected again, probes included)."""
    return detect(skip=("bwrap",))


@pytest.fixture
def open_tmp():
    """A temp folder any uid may enter and write. Without bubblewrap a run switches to its own uid where it can
    (``nonroot-uid``: a system Python it may execute), and pytest's ``tmp_path`` sits in a 0700 folder it cannot enter."""
    path = Path(tempfile.mkdtemp(prefix="rusty-test-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(params=["all layers", "without bwrap"])
def caps(request) -> SandboxCapabilities:
    """Run an attack twice: with every layer, and as on a host without bubblewrap."""
    if request.param == "all layers":
        return capabilities()
    return request.getfixturevalue("without_bwrap")
