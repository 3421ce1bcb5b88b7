"""rusty_hf.sandbox: run untrusted code (model completions, task tests, agent commands) locally.

    from rusty_hf.sandbox import Limits, run, run_python, capabilities
    result = run_python("print(1 + 1)", timeout=5)             # SandboxResult(ok=True, stdout="2\n", ...)
    result = run(["rustc", "main.rs"], files={"main.rs": src}, ro_paths=[toolchain_dir])
    print(capabilities().describe())                            # which layers this host has, and why

Layers, what each isolates and what it does NOT (``SandboxResult.layers`` names those a run had):

1. Always (plain subprocess): a fresh work dir (cwd and HOME) holding only ``files``, deleted
   afterwards; a clean environment (PATH, HOME, LANG=C.UTF-8, TMPDIR, plus ``env``); stdin from
   /dev/null; its own session and process group, SIGKILLed at the end; a wall-clock timeout;
   stdout/stderr read incrementally and capped (``Limits.output_bytes`` each; overflowing ends
   the run), never blocking on a child that closes them and hangs. Alone, this layer does NOT
   isolate the filesystem (whatever the uid may read or write), the network, signals to other
   processes of the same uid, or daemons that call ``setsid`` (they leave the process group).
2. rlimits: CPU seconds, address space, file size, open files, no core dumps, and -- only where
   the run has a uid or user namespace of its own -- process count. Set by the parent with
   ``prlimit(2)`` while bwrap holds the run at its start (``start_gate.py``), else by ``ulimit`` in
   the cgroup-joining shell, ``prlimit(1)``, or a preexec_fn. They are per process: N processes
   may use N times the CPU and memory budget (the timeout and the cgroups bound the total).
3. bubblewrap (``apt-get install bubblewrap``): a filesystem made of read-only binds (/usr, /bin
   and /lib*, this Python's prefix, the loader cache, ``ro_paths``), a minimal /dev (null, zero,
   random, urandom; no pseudo-terminals), a private /tmp, /dev/shm and in-memory work dir, all
   size-capped and the only writable places (with ``run(..., collect_files=True)`` the work dir is
   instead a host directory on /dev/shm, charged to the run's memory cgroup, that the host reads back
   itself once the run is dead: ``readback.py``): no /etc/shadow, no /etc/passwd (with
   ``run(..., user=NAME)``, one that lists only root, NAME for the run's uid, and nobody), no
   /root or /home, no repository; a network namespace of its own (loopback only:
   no host loopback service and no internet is reachable; as root, leased from a pool for the
   run and dropped once a run used a socket, ``netns_pool.py``), pid namespace (everything dies
   with its init; host processes are invisible and cannot be signalled), ipc and uts namespaces; every
   capability dropped; dies with its parent. NOT isolated: the kernel itself (no seccomp
   filter: a kernel exploit escapes), the machine's shared CPU, memory bandwidth and page cache,
   and whatever the Python prefix and ``ro_paths`` contain (readable, e.g. site-packages).
   Without bwrap but as root, ``unshare`` provides the net/pid/ipc/uts namespaces, not the
   filesystem isolation.
4. A non-root uid: as root, each run switches to an unprivileged uid of its own, with no groups
   and no capabilities in any set (a small static helper compiled on first use, ``uidswitch.c``;
   ``setpriv`` where no C compiler is found), so RLIMIT_NPROC applies per run and root-owned
   files are out of reach. As root under bwrap there is no user namespace, so a sandboxed process may still
   create nested user namespaces (more kernel attack surface, no added host access).
5. cgroups, where this process may create them under its own cgroup (v1 or v2): a pids cap (fork
   bombs), a memory cap that also covers the in-memory files (OOM kills stay inside the run),
   and ``cgroup.kill``/a sweep of the run's processes at the end. On v1 the spawning thread joins
   them for the spawn, so the run is born inside; on v2 a shell joins them first. The cgroups
   are pooled: each concurrent run borrows a set, which goes back only once verified empty, and the pool is
   removed at exit. Without cgroups and without a pid namespace, a daemonised child of a run
   that has no uid of its own may outlive it.

``capabilities()`` probes the layers once per process, caches and logs the answer (with how to
get bubblewrap when it is missing); ``RUSTY_SANDBOX_DISABLE=bwrap,cgroups,...`` switches layers
off, and ``caps=capabilities().without(...)`` does so for one call (tests, benchmarks).
``python -m rusty_hf.sandbox [--describe]`` prints the verdict below (and every layer).

Fail closed (``isolation.py``): without layer 3's filesystem isolation, ``run`` refuses (raises
``IsolationMissing``, one line naming the fix) and the entry points that run model-written code
(the RL recipes, evaluation, rusty-terminal, the Space with ``RUSTY_SANDBOX_EXEC=1``) refuse at
start-up (``require_isolation()``). The one opt-in is ``RUSTY_SANDBOX_ALLOW_UNISOLATED=1``, which
each process then names in its log. GPU images (no bubblewrap, no apt, no network): bring bwrap's
binary along (``dpkg-deb -x bubblewrap_*.deb`` elsewhere, copy ``usr/bin/bwrap`` to /usr/local/bin;
it links libc, libcap and libselinux) and check with ``python -m rusty_hf.sandbox``, since a
container may forbid the namespaces it needs; or, where the machine is disposable and holds
nothing of yours, set ``RUSTY_SANDBOX_ALLOW_UNISOLATED=1`` for the run.
"""

from rusty_hf.sandbox.capabilities import capabilities, require_isolation
from rusty_hf.sandbox.isolation import IsolationMissing
from rusty_hf.sandbox.layers import SandboxCapabilities
from rusty_hf.sandbox.limits import Limits
from rusty_hf.sandbox.namespaces import WORKDIR
from rusty_hf.sandbox.runner import SandboxError, SandboxResult, run, run_python

__all__ = [
    "WORKDIR",
    "IsolationMissing",
    "Limits",
    "SandboxCapabilities",
    "SandboxError",
    "SandboxResult",
    "capabilities",
    "require_isolation",
    "run",
    "run_python",
]
