#!/usr/bin/env bash
# The test command (README.md): install what the suite needs on a fresh machine, then run it.
#   bash tests/run.sh            # whole suite
#   bash tests/run.sh -k wkv     # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

# bubblewrap gives the sandbox its namespace layer; the suite still runs without it (those
# layers are reported inactive and their attack tests skip with the reason).
if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
            || echo "note: could not install bubblewrap; sandbox runs without namespaces"
    else
        echo "note: bubblewrap missing (apt-get install bubblewrap); sandbox runs without namespaces"
    fi
fi

# torch is pinned first so pip takes the local CPU wheel instead of a multi-GB CUDA build.
python3 -m pip install -q --disable-pip-version-check torch==2.13.0
python3 -m pip install -q --disable-pip-version-check -e ".[dev]"

export PATH="$HOME/.cargo/bin:$PATH"  # rustc/clippy live there on these machines
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false GRADIO_ANALYTICS_ENABLED=False
exec python3 -m pytest -q "$@"
