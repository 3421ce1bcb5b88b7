"""The attack harness: run one hostile program and check the rules every attack must obey.

Every attack test goes through :func:`attack`, which runs the program (from a pool thread, as the
rewards do) with a unique token on its command line and then checks: the call returned within ``timeout + 2`` s, no process carrying the
token survives, every cgroup set of this process is back in its pool, empty, and a normal run afterwards still
works. Tests that would hurt the machine if their containment layer were missing first call
:func:`require_layers`, which skips with the reason.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import pytest

from rusty_hf.sandbox import Limits, SandboxCapabilities, SandboxResult, capabilities, run_python
from rusty_hf.sandbox.cgroup_pool import pool_for


def require_mechanism(attribute: str, what: str) -> SandboxCapabilities:
    """``capabilities()`` if its ``attribute`` (a set-up mechanism) is in use here, else skip naming why not."""
    caps = capabilities()
    if not getattr(caps, attribute):
        pytest.skip(f"{what} not in use here: {'; '.join(caps.notes) or 'needs root (and bwrap, v1 cgroups, cc)'}")
    return caps


def require_layers(attack: str, *alternatives: str | tuple[str, ...], caps: SandboxCapabilities | None = None) -> None:
    """Skip unless one alternative (a layer name, or a tuple of names all needed) is active."""
    active = set((caps or capabilities()).layers())
    for alt in alternatives:
        needed = (alt,) if isinstance(alt, str) else alt
        if set(needed) <= active:
            return
    wanted = " or ".join("+".join((a,) if isinstance(a, str) else a) for a in alternatives)
    pytest.skip(f"{attack}: needs the {wanted} layer to be contained; active here: {', '.join(sorted(active))}")


def processes_with(token: str) -> list[int]:
    """Live (non-zombie) host processes whose command line contains ``token``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                if token.encode() not in f.read():
                    continue
            with open(f"/proc/{entry.name}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(entry.name))
        except OSError:
            pass
    return found


def leftover_cgroups() -> list[str]:
    """This process's sandbox cgroups that are not idle, empty pool sets (each run gives its set back)."""
    pool = pool_for(capabilities().cgroups)
    pool.retry_removals(wait_s=10.0)  # killed processes of a discarded set may await reaping for seconds
    idle = {d for run_cg in pool.idle() if not run_cg.procs() for d in run_cg.dirs.values()}
    prefixes = (f"rusty-sandbox-{os.getpid()}-", pool.prefix)
    return [
        os.path.join(p, n) for p in pool.parents for n in os.listdir(p)
        if n.startswith(prefixes) and os.path.join(p, n) not in idle
    ]  # fmt: skip


# How long after its deadline a run may end: normally ~0.3 s (the kill, the output drain, the cgroups' clean-up),
# so ten times that and more for a loaded CI machine; an attack that escaped the deadline runs 30-60 s.
OVERRUN_S = 10.0


def wait_until_gone(token: str, grace_s: float = OVERRUN_S) -> list[int]:
    """Survivors of the token after a grace (SIGKILLed processes take a moment to exit; it returns as soon
    as none is left, so the grace only bounds a failure)."""
    deadline = time.monotonic() + grace_s
    while (alive := processes_with(token)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive


def assert_still_works(caps: SandboxCapabilities | None = None) -> None:
    result = run_python("print('still working')", timeout=10, caps=caps)
    assert result.ok and result.stdout == "still working\n", result


def attack(
    code: str,
    *,
    timeout: float = 2.0,
    limits: Limits | None = None,
    files: dict[str, str | bytes] | None = None,
    extra_tokens: Iterable[str] = (),
    caps: SandboxCapabilities | None = None,
) -> SandboxResult:
    """Run one hostile program and check the rules every attack must obey. ``TOKEN`` in ``code``
    is replaced by a fresh token that is also the program's first argument (``sys.argv[1]``)."""
    token = f"rusty-attack-{uuid.uuid4().hex}"
    start = time.monotonic()
    with ThreadPoolExecutor(1) as worker:  # from a pool thread, as the rewards run (the start gate applies)
        result = worker.submit(
            run_python, code.replace("TOKEN", token), args=[token], timeout=timeout, limits=limits, files=files, caps=caps
        ).result()
    elapsed = time.monotonic() - start
    assert elapsed < timeout + OVERRUN_S, f"run took {elapsed:.2f}s for a {timeout}s timeout"
    for t in (token, *extra_tokens):
        assert wait_until_gone(t) == [], f"processes of the attack survived: {processes_with(t)}"
    assert leftover_cgroups() == []
    assert_still_works(caps)
    return result
