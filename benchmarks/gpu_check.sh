#!/usr/bin/env bash
# The first thing to run on a GPU machine: every section of benchmarks/gpu_speed.py in order, each in its
# own process under its own time limit (30 minutes in all), then every GPU claim of the README as PASS/FAIL.
#   bash benchmarks/gpu_check.sh                      # one CUDA GPU; ~13 minutes estimated on an H100
#   bash benchmarks/gpu_check.sh --device cpu --quick --width 64 --layers 2 --vocab 512   # the CPU smoke run
# Arguments go to every gpu_speed.py run (and --device/--quick to the claims). Each finished case is a line
# of benchmarks/results/gpu_check/<section>.jsonl at once, so a section cut by its limit keeps what it
# measured; benchmarks/gpu_claims.py reads those lines and prints the table (and writes claims.json).
# Exit status 1 when a claim fails, a case errors or a section runs out of time.
#
# Limits: the H100 estimates of gpu_speed.py's sections (docs/experiment-log.md, the first GPU run, says how
# they were made) with room to spare, in seconds; they add up to 29.5 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${GPU_CHECK_DIR:-benchmarks/results/gpu_check}"
declare -A limit=([train]=420 [compile]=480 [decode]=300 [exactness]=180 [recipe]=390)
claim_args=()
for ((i = 1; i <= $#; i++)); do
    case "${!i}" in
        --quick) claim_args+=(--quick) ;;
        --device) j=$((i + 1)); claim_args+=(--device "${!j}") ;;
    esac
done
mkdir -p "$out"
rm -f "$out"/*.jsonl "$out"/*.json
status=0
start=$SECONDS
for section in train compile decode exactness recipe; do
    echo "==> gpu_speed --sections $section (limit ${limit[$section]} s; $((SECONDS - start)) s used)"
    timeout --signal=INT --kill-after=30 "${limit[$section]}" \
        python3 benchmarks/gpu_speed.py --sections "$section" --output "$out/$section.json" "$@"
    rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "gpu_check: section $section ran out of its ${limit[$section]} s; the cases it finished still count" >&2
    fi
    [ "$rc" = 0 ] || status=1
done
echo "==> all sections in $((SECONDS - start)) s"
python3 benchmarks/gpu_claims.py "$out"/*.jsonl --output "$out/claims.json" "${claim_args[@]}" || status=1
exit "$status"
