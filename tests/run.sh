#!/usr/bin/env bash
# The test command (README.md): install what the suite needs on a fresh machine, then run it.
#   bash tests/run.sh            # whole suite
#   bash tests/run.sh -k wkv     # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages some layers and tests need: bubblewrap gives the sandbox its namespace layer,
# Debian's chromium is the browser of the Space's end-to-end test (playwright cannot download its own
# here). Without them the suite still runs: those layers are reported inactive and the tests that
# need them skip, naming the fix.
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) \
            || echo "note: could not install ${missing[*]}; the tests that need them skip"
    else
        echo "note: ${missing[*]} missing (apt-get install ${missing[*]}); the tests that need them skip"
    fi
fi

# Everything at the versions CI tested (the lock, constraints.txt), torch as the CPU wheel.
bash recipes/install.sh dev

export PATH="$HOME/.cargo/bin:$PATH"  # rustc/clippy live there on these machines
# Without bubblewrap the sandbox refuses every run (rusty_hf/sandbox/isolation.py); the suite's own code then
# runs unisolated, said here and by the sandbox's log line, and the refusal tests still unset the switch.
if ! command -v bwrap >/dev/null 2>&1; then
    echo "note: no bubblewrap: the suite runs sandboxed code WITHOUT filesystem isolation (RUSTY_SANDBOX_ALLOW_UNISOLATED=1)"
    export RUSTY_SANDBOX_ALLOW_UNISOLATED=1
fi
# The suite writes about 3 GB under the temp dir at its peak (a fresh venv, checkpoints, sandboxes).
tmp="${TMPDIR:-/tmp}"
free_kb=$(df -Pk "$tmp" | awk 'NR==2 {print $4}')
if [ "${free_kb:-0}" -lt 4000000 ]; then
    echo "error: $((free_kb / 1024)) MiB free under $tmp; the suite needs about 3 GB there. Free space or set TMPDIR." >&2
    exit 1
fi
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false GRADIO_ANALYTICS_ENABLED=False
exec python3 -m pytest -q "$@"
