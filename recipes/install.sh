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
# Offline machines (GPU compute nodes often are): fill a wheelhouse where there is network, copy it over,
# install from it with no index at all.
#   bash recipes/install.sh --download DIR [--python-version 3.12] [--platform manylinux_2_28_x86_64] [--with-torch]
#   bash recipes/install.sh --wheelhouse DIR [dev]
# --download fetches every package of the lock as a wheel (the dev tools included), plus pip and the
# setuptools/wheel that building rusty_hf needs, for this Python and platform or the target given (pip's
# own flags). The CUDA stack is left out (torch, triton, nvidia-*, cuda-*: the GPU machine has its own);
# --with-torch adds the lock's CPU torch and triton (the dev tools' kernel tests), for an offline machine
# without them (the CPU torch comes from PyTorch's CPU index:
# PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu). --wheelhouse upgrades pip from the wheelhouse
# first (a fresh venv's bundled pip is old), then installs with --no-index: a torch already there is kept,
# as with RUSTY_KEEP_TORCH=1; without one, the wheelhouse's CPU torch is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
download="" wheelhouse="" with_torch=0 target=() extras=""
# A manylinux_2_N machine also runs wheels built for older glibcs (manylinux_2_17 .. 2_N, and the
# manylinux2014/2010/1 aliases); pip takes a target --platform literally, so list them all.
add_platforms() {
    local tag="$1" n arch
    if [[ "$tag" =~ ^manylinux_2_([0-9]+)_(.+)$ ]]; then
        n="${BASH_REMATCH[1]}" arch="${BASH_REMATCH[2]}"
        for ((; n >= 17; n--)); do target+=(--platform "manylinux_2_${n}_$arch"); done
        for alias in manylinux2014 manylinux2010 manylinux1; do target+=(--platform "${alias}_$arch"); done
    else
        target+=(--platform "$tag")
    fi
}
while [ $# -gt 0 ]; do
    case "$1" in
        --download | --wheelhouse | --python-version | --platform)
            [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
            case "$1" in
                --download) download="$2" ;;
                --wheelhouse) wheelhouse="$2" ;;
                --platform) add_platforms "$2" ;;
                *) target+=("$1" "$2") ;;
            esac
            shift 2 ;;
        --with-torch) with_torch=1; shift ;;
        -*) echo "unknown option $1 (see the top of recipes/install.sh)" >&2; exit 2 ;;
        *) extras="$1"; shift ;;
    esac
done
lock="${RUSTY_LOCK:-constraints.txt}"
pip=(python3 -m pip install -q --disable-pip-version-check)
cuda_stack='^(torch|triton|nvidia-[a-z0-9-]+|cuda-[a-z0-9-]+)=='

if [ -n "$download" ]; then
    # The lock is a whole environment's freeze, so each pin downloads without resolving (--no-deps), which is
    # also what lets pip fetch for another Python or platform. Build tools: [build-system] of pyproject.toml.
    mkdir -p "$download"
    wanted="$(mktemp)"
    trap 'rm -f "$wanted"' EXIT
    grep -E '^[A-Za-z0-9_.-]+==' "$lock" | grep -viE "$cuda_stack" >"$wanted"
    printf '%s\n' pip "setuptools>=77" wheel >>"$wanted"
    [ "$with_torch" = 1 ] && grep -E '^(torch|triton)==' "$lock" >>"$wanted"
    python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$download" \
        ${target[@]+"${target[@]}"} -r "$wanted"
    echo "wheelhouse $download: $(find "$download" -name '*.whl' | wc -l) wheels, $(du -sh "$download" | cut -f1)" \
        "(copy it to the offline machine, then: bash recipes/install.sh --wheelhouse DIR)"
    exit 0
fi

if [ -n "$wheelhouse" ] && [ ! -d "$wheelhouse" ]; then
    echo "no wheelhouse at $wheelhouse: fill one with bash recipes/install.sh --download DIR" >&2
    exit 1
fi

# The same install again (the lock, pyproject.toml, extras, torch choice and checkout unchanged since the stamp this
# script leaves in the environment, and rusty_hf importable there) is skipped: pip spends ~25 s on 2 cores
# finding nothing to do. RUSTY_REINSTALL=1 installs anyway (after changing packages by hand).
stamp="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/.rusty_hf-install"
made_from="$(cat "$lock" pyproject.toml | sha256sum | cut -d' ' -f1) keep_torch=${RUSTY_KEEP_TORCH:-0} $PWD"
if [ "${RUSTY_REINSTALL:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$made_from" ] \
    && { [ -z "$extras" ] || grep -qx "extras=$extras" "$stamp"; } \
    && (cd / && python3 -c "import rusty_hf" 2>/dev/null); then
    echo "rusty_hf is installed from this lock already ($stamp; RUSTY_REINSTALL=1 installs again)"
    python3 -m rusty_hf.inference.warmup
    exit 0
fi
rm -f "$stamp"

if [ -n "$wheelhouse" ]; then
    pip+=(--no-index --find-links "$wheelhouse")
    "${pip[@]}" --upgrade pip  # the pip of a fresh venv predates some of the lock's wheels' metadata
    python3 -c "import torch" 2>/dev/null && export RUSTY_KEEP_TORCH=1
fi

if [ "${RUSTY_KEEP_TORCH:-0}" = 1 ]; then
    python3 -c "import torch" 2>/dev/null || { echo "RUSTY_KEEP_TORCH=1 but this Python has no torch: install your CUDA build of torch first" >&2; exit 1; }
    lock="$(mktemp)"
    trap 'rm -f "$lock"' EXIT
    grep -viE "$cuda_stack" "${RUSTY_LOCK:-constraints.txt}" >"$lock"
else
    # torch alone first, from the lock, so pip takes the CPU wheel instead of resolving a multi-GB CUDA build.
    "${pip[@]}" -c "$lock" "$(grep -E '^torch==' "$lock")" || {
        [ -n "$wheelhouse" ] && echo "no torch here and none in $wheelhouse: install your CUDA build of torch first," \
            "or fill the wheelhouse with --with-torch" >&2
        exit 1
    }
fi
"${pip[@]}" -c "$lock" -e ".${extras:+[$extras]}"
python3 -m rusty_hf.inference.warmup
printf '%s\nextras=%s\n' "$made_from" "$extras" >"$stamp"
