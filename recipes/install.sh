#!/usr/bin/env bash
# Install rusty_hf into the current Python from the lock (constraints.txt): the exact versions CI tests.
#   bash recipes/install.sh          # the runtime: what recipes/quickstart.sh needs
#   bash recipes/install.sh dev      # plus the test tools (tests/run.sh calls this)
#
# torch: the lock pins the CPU wheel (torch==2.13.0). On a GPU machine install your CUDA build of
# torch first and set RUSTY_KEEP_TORCH=1: torch, triton and the nvidia-* packages are then taken out
# of the lock, so pip keeps your GPU stack and installs everything else at the locked versions.
#   pip install torch --index-url https://download.pytorch.org/whl/cu130
#   RUSTY_KEEP_TORCH=1 bash recipes/install.sh
#
# Last, TinyRWKV's C++ CPU kernels are compiled for this environment (30-60 s once; a second install
# finds them), so no user request waits for the compiler: `python3 -m rusty_hf.inference.warmup`.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
lock="${RUSTY_LOCK:-constraints.txt}"
pip=(python3 -m pip install -q --disable-pip-version-check)

if [ "${RUSTY_KEEP_TORCH:-0}" = 1 ]; then
    python3 -c "import torch" 2>/dev/null || { echo "RUSTY_KEEP_TORCH=1 but this Python has no torch: install your CUDA build of torch first" >&2; exit 1; }
    lock="$(mktemp)"
    trap 'rm -f "$lock"' EXIT
    grep -viE '^(torch|triton|nvidia-[a-z0-9-]+|cuda-[a-z0-9-]+)==' "${RUSTY_LOCK:-constraints.txt}" >"$lock"
else
    # torch alone first, from the lock, so pip takes the CPU wheel instead of resolving a multi-GB CUDA build.
    "${pip[@]}" -c "$lock" "$(grep -E '^torch==' "$lock")"
fi
"${pip[@]}" -c "$lock" -e ".${extras:+[$extras]}"
python3 -m rusty_hf.inference.warmup
