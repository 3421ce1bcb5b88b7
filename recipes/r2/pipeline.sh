#!/usr/bin/env bash
# Rusty-R2 at full size on one GPU, in two steps that may run on two machines:
#   bash recipes/r2/pipeline.sh prepare OUT [--max_tokens N]   # network and CPU: corpus, tokenizer, tokenized data
#   bash recipes/r2/pipeline.sh train OUT                      # the GPU, offline: reads only OUT/data
#   bash recipes/r2/pipeline.sh [OUT] [--max_tokens N]         # both, one command (OUT: $OUT_DIR, else outputs/r2)
#
# prepare (a connected machine; a CPU is enough) writes OUT/data: the tokenizer (24K byte-level BPE), the
# code corpus tokenized and packed into pretraining rows (token ids as uint16, through `datasets`), the SFT
# mix tokenized with its assistant masks, and the task suite (the RL prompts, the held-out evaluation) --
# everything `train` reads (rusty_hf.training.prepared_data). It fetches the corpus's pinned Python wheels
# (recipes/corpus_sources.txt, ~125 MB from PyPI) into data/corpus_sources/python once and builds the raw
# corpus in $CORPUS_DIR (data/code_corpus), reused while its inputs are unchanged. It prints the folder's
# size; --max_tokens caps the pretraining tokens kept (all by default: ~90-100M tokens, ~200 MB estimated).
# train (OUT/data copied to the GPU machine, e.g. with rsync) sets HF_HUB_OFFLINE, HF_DATASETS_OFFLINE and
# TRANSFORMERS_OFFLINE, and runs pretrain -> SFT -> GRPO (execution + rust + protocol rewards) -> held-out
# pass@1 / pass@k and compile rate before vs after GRPO, reward before vs after (mean ± SE) -> a Hub-ready
# folder (OUT/r2-grpo) with its model card, and OUT/pipeline.json.
#
#   RUSTY_KEEP_TORCH=1 bash recipes/install.sh      # once, on a machine with a CUDA build of torch
#   BUDGET_MIN=30 bash recipes/r2/pipeline.sh train outputs/r2
#
# Without rustc, train runs Python-only (GRPO on the Python tasks without the rust reward, Python
# evaluations) after one warning, and the summary says Rust was skipped and why.
# The budget is train's: 15% of BUDGET_MIN (default 30) is kept for the evaluations; the rest goes to
# pretrain / SFT / GRPO in the shares PRETRAIN_SHARE / SFT_SHARE / GRPO_SHARE (0.5 / 0.2 / 0.3). Each
# training stage gets its share of what is left when it starts as `max_train_minutes`: after a few steps the
# trainer fits max_steps and the LR schedule to those minutes (rusty_hf.training.time_budget). Every stage
# prints its wall time (prepare's in OUT/prepare_times.tsv, train's in OUT/stage_times.tsv).
#
# Without CUDA, train runs unchanged, slowly (fp32 on CPU: --use_cpu, no bf16, torch AdamW). Extra arguments
# for a stage go in CORPUS_ARGS, TOKENIZER_ARGS, MODEL_ARGS (the fresh model's size, for pretraining),
# PRETRAIN_ARGS and SFT_ARGS (given to prepare and train alike: max_length must agree), GRPO_ARGS, EVAL_ARGS
# and GAIN_ARGS; tests/test_r2_pipeline.py runs a few-step smoke test that way. FRESH=1 rebuilds the
# corpus, the tokenizer, the prepared data and every checkpoint.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: bash recipes/r2/pipeline.sh [prepare|train|all] [OUT] [--max_tokens N]"
cmd=all OUT="${OUT_DIR:-outputs/r2}" max_tokens=""
case "${1:-}" in prepare | train | all) cmd="$1"; shift ;; esac
while [ $# -gt 0 ]; do
    case "$1" in
        --max_tokens) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; max_tokens="$2"; shift 2 ;;
        -*) echo "unknown option $1; $usage" >&2; exit 2 ;;
        *) OUT="$1"; shift ;;
    esac
done
DATA="$OUT/data"
BUDGET_MIN="${BUDGET_MIN:-30}"
CORPUS_DIR="${CORPUS_DIR:-data/code_corpus}"
PRETRAIN_SHARE="${PRETRAIN_SHARE:-0.5}" SFT_SHARE="${SFT_SHARE:-0.2}" GRPO_SHARE="${GRPO_SHARE:-0.3}"
EVAL_SHARE=0.15
export TOKENIZERS_PARALLELISM=false PATH="$HOME/.cargo/bin:$PATH"
for name in CORPUS TOKENIZER MODEL PRETRAIN SFT GRPO EVAL GAIN; do
    var="${name}_ARGS"
    read -r -a "${name,,}_args" <<<"${!var:-}"
done

mkdir -p "$OUT"
if [ "${FRESH:-0}" = 1 ]; then
    rm -rf "$DATA" "$OUT/r2-pretrain" "$OUT/r2-sft" "$OUT/r2-grpo" "$CORPUS_DIR"
fi
START=$SECONDS
# stage N/M NAME "what it does": the previous stage's NAME and wall time go to $TIMES
stage() {
    [ -n "${STAGE_NAME:-}" ] && printf '%s\t%d\n' "$STAGE_NAME" "$((SECONDS - STAGE_START))" >>"$TIMES"
    STAGE_NAME="$2" STAGE_START=$SECONDS
    printf '\n==> [%s] %s: %s  (%ds used)\n' "$1" "$2" "$3" "$((SECONDS - START))"
}
end_stages() {
    printf '%s\t%d\n' "$STAGE_NAME" "$((SECONDS - STAGE_START))" >>"$TIMES"
    STAGE_NAME=""
}

prepare() {
    TIMES="$OUT/prepare_times.tsv"
    : >"$TIMES"
    local procs
    procs="$(python3 -c 'import os; print(max(1, min(8, len(os.sched_getaffinity(0)))))')"
    # Data only: the model a recipe builds to prepare is never trained, and the CPU does it
    local cpu=(--use_cpu true --bf16 false --dataset_num_proc "$procs")
    stage 1/5 corpus "code corpus -> $CORPUS_DIR (recipes/build_code_corpus.py; reused when its inputs are unchanged)"
    python3 recipes/build_code_corpus.py --output_dir "$CORPUS_DIR" --fetch_pypi_sources true ${corpus_args[@]+"${corpus_args[@]}"}

    stage 2/5 tokenizer "tokenizer (24K byte-level BPE) -> $DATA/tokenizer"
    if [ -f "$DATA/tokenizer/tokenizer.json" ]; then
        echo "reusing $DATA/tokenizer"
    else
        python3 recipes/build_tokenizer.py --output_dir "$DATA/tokenizer" ${tokenizer_args[@]+"${tokenizer_args[@]}"}
    fi

    stage 3/5 pretrain-data "corpus tokenized and packed for recipes/r2/pretrain.yaml -> $DATA/pretrain"
    rm -rf "$DATA/pretrain"
    python3 recipes/pretrain.py --config recipes/r2/pretrain.yaml --dataset_path "$CORPUS_DIR" \
        --tokenizer_name_or_path "$DATA/tokenizer" --output_dir "$OUT/.prepare" --save_prepared_to "$DATA/pretrain" \
        ${max_tokens:+--max_train_tokens "$max_tokens"} "${cpu[@]}" \
        ${model_args[@]+"${model_args[@]}"} ${pretrain_args[@]+"${pretrain_args[@]}"}

    # 200,000 dialogs are for the YAML's 50,000 steps; a budgeted run reads ~60K rows: 40,000 dialogs plus the tasks
    stage 4/5 sft-data "SFT mix tokenized for recipes/r2/sft.yaml -> $DATA/sft"
    rm -rf "$DATA/sft"
    python3 recipes/sft.py --config recipes/r2/sft.yaml --num_dialogs 40000 --tokenizer_name_or_path "$DATA/tokenizer" \
        --output_dir "$OUT/.prepare" --save_prepared_to "$DATA/sft" "${cpu[@]}" --optim adamw_torch \
        ${sft_args[@]+"${sft_args[@]}"}

    stage 5/5 tasks "task suite (RL prompts, held-out evaluation) -> $DATA/tasks"
    rm -rf "$DATA/tasks" "$OUT/.prepare"
    cp -r tasks "$DATA/tasks"
    find "$DATA/tasks" -name __pycache__ -prune -exec rm -rf {} +
    end_stages
    du -sh "$DATA"/* | sed 's/^/prepared: /'
    du -sh "$DATA" | sed 's/^/prepared, in all: /'
    echo "prepare done in $((SECONDS - START)) s: copy $OUT to the GPU machine, then: bash recipes/r2/pipeline.sh train $OUT"
}

# minutes for a training stage: its share of the training time still left (never below 0.05: one step or so)
minutes_for() {
    python3 -c "import sys; budget, used, share, rest = map(float, sys.argv[1:]); \
left = budget * 60 * (1 - $EVAL_SHARE) - used; print(f'{max(0.05, left * share / rest / 60):.2f}')" \
        "$BUDGET_MIN" "$((SECONDS - START))" "$1" "$2"
}

# from_checkpoint RECIPE FROM MINUTES ARGS...: recipes/RECIPE.py with r2/RECIPE.yaml, from $OUT/FROM into $OUT/r2-RECIPE
from_checkpoint() {
    local recipe="$1" from="$OUT/$2" minutes="$3"
    shift 3
    python3 "recipes/$recipe.py" --config "recipes/r2/$recipe.yaml" --model_name_or_path "$from" \
        --tokenizer_name_or_path "$from" --output_dir "$OUT/r2-$recipe" --max_train_minutes "$minutes" \
        ${device_args[@]+"${device_args[@]}"} "$@"
}

train() {
    for part in pretrain/prepared.json sft/prepared.json tokenizer/tokenizer.json tasks; do
        if [ ! -e "$DATA/$part" ]; then
            echo "no prepared data in $DATA ($part is missing): run \`bash recipes/r2/pipeline.sh prepare $OUT\` first" \
                "(on a machine with network), then copy $OUT here" >&2
            exit 1
        fi
    done
    export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1  # train reads $DATA and nothing else
    TIMES="$OUT/stage_times.tsv"
    : >"$TIMES"
    START=$SECONDS
    local device device_args sft_optim rust_reason grpo_rust=() eval_rust=() gain_rust=()
    device="$(python3 -c 'import torch; print("cuda" if torch.cuda.is_available() else "cpu")')"
    if [ "$device" = cuda ]; then
        device_args=() sft_optim=()
        echo "device: $(python3 -c 'import torch; print(torch.cuda.get_device_name())'), budget $BUDGET_MIN minutes"
    else
        device_args=(--use_cpu true --bf16 false) sft_optim=(--optim adamw_torch)
        echo "device: CPU (no CUDA): fp32, slowly; budget $BUDGET_MIN minutes"
    fi
    # GRPO's rewards and the evaluations run model-written code, only under bubblewrap (rusty_hf/sandbox/isolation.py):
    # say here which it will be, isolated or the user's RUSTY_SANDBOX_ALLOW_UNISOLATED=1, and stop before pretraining
    # when neither. A GPU image without bubblewrap or apt: copy a bwrap binary into /usr/local/bin (from Debian's
    # package: `dpkg-deb -x bubblewrap_*.deb DIR`, then DIR/usr/bin/bwrap), or opt in on a disposable machine.
    python3 -m rusty_hf.sandbox
    rust_reason="$(python3 -c 'from rusty_hf.errors import quiet_upstream_notices as q; q()
from rusty_hf.evaluation.coding import rust_unavailable_reason as r; print(r() or "")')"
    if [ -n "$rust_reason" ]; then
        echo "WARNING: Rust skipped, Python only (GRPO without the rust reward, Python evaluations): $rust_reason" >&2
        grpo_rust=(--task_languages python --reward_funcs execution protocol --reward_weights 1.0 0.5)
        eval_rust=(--languages python)
        gain_rust=(--task_languages python --reward_funcs execution protocol --reward_weights 1.0 0.5)
    else
        gain_rust=(--task_languages python rust --reward_funcs execution rust protocol --reward_weights 1.0 0.1 0.5)
    fi

    local rest minutes
    rest="$(python3 -c "print($PRETRAIN_SHARE + $SFT_SHARE + $GRPO_SHARE)")"
    minutes="$(minutes_for "$PRETRAIN_SHARE" "$rest")"
    stage 1/6 pretrain "pretraining on the prepared corpus rows, $minutes min (recipes/r2/pretrain.yaml)"
    python3 recipes/pretrain.py --config recipes/r2/pretrain.yaml --dataset_path "$DATA/pretrain" \
        --tokenizer_name_or_path "$DATA/tokenizer" --output_dir "$OUT/r2-pretrain" --max_train_minutes "$minutes" \
        ${device_args[@]+"${device_args[@]}"} ${model_args[@]+"${model_args[@]}"} ${pretrain_args[@]+"${pretrain_args[@]}"}

    rest="$(python3 -c "print($SFT_SHARE + $GRPO_SHARE)")"
    minutes="$(minutes_for "$SFT_SHARE" "$rest")"
    stage 2/6 sft "SFT from the pretrained model on the prepared mix, $minutes min (recipes/r2/sft.yaml)"
    from_checkpoint sft r2-pretrain "$minutes" --dataset_name "$DATA/sft" ${sft_optim[@]+"${sft_optim[@]}"} \
        ${sft_args[@]+"${sft_args[@]}"}

    minutes="$(minutes_for "$GRPO_SHARE" "$GRPO_SHARE")"
    stage 3/6 grpo "GRPO with execution + rust + protocol rewards, $minutes min (recipes/r2/grpo.yaml)"
    from_checkpoint grpo r2-sft "$minutes" --tasks_dir "$DATA/tasks" ${grpo_rust[@]+"${grpo_rust[@]}"} \
        ${grpo_args[@]+"${grpo_args[@]}"}

    # On the GPU (--device auto); a looping sample is cut at 10 s instead of evaluate.py's 30
    local eval_settings=(--num_samples 8 --k 1 5 --temperature 0.8 --max_new_tokens 384 --batch_size 16 --timeout 10
                         --tasks_dir "$DATA/tasks")
    stage 4/6 eval-before "held-out pass@k before GRPO (the SFT model)"
    python3 recipes/evaluate.py --model_name_or_path "$OUT/r2-sft" "${eval_settings[@]}" \
        --output_file "$OUT/r2-sft/eval_results.json" ${eval_rust[@]+"${eval_rust[@]}"} ${eval_args[@]+"${eval_args[@]}"}

    stage 5/6 eval-after "held-out pass@k after GRPO, paired with before; numbers into the model card"
    python3 recipes/evaluate.py --model_name_or_path "$OUT/r2-grpo" "${eval_settings[@]}" \
        --compare_to "$OUT/r2-sft/eval_results.json" --update_model_card \
        --output_file "$OUT/r2-grpo/eval_results.json" ${eval_rust[@]+"${eval_rust[@]}"} ${eval_args[@]+"${eval_args[@]}"}

    stage 6/6 reward-gain "held-out reward before vs after GRPO (same prompts, seed and sampling)"
    python3 recipes/reward_gain.py --before "$OUT/r2-sft" --after "$OUT/r2-grpo" "${gain_rust[@]}" \
        --tasks_dir "$DATA/tasks" --batch_size 16 --num_samples 4 --temperature 0.8 --max_new_tokens 384 \
        --output_file "$OUT/r2-grpo/reward_gain.json" --update_model_card ${gain_args[@]+"${gain_args[@]}"}
    end_stages

    python3 recipes/r2/summarize.py --out_dir "$OUT" --budget_min "$BUDGET_MIN" --device "$device" \
        --total_seconds "$((SECONDS - START))" --rust_skipped "$rust_reason"
}

case "$cmd" in
    prepare) prepare ;;
    train) train ;;
    all) prepare; train ;;  # not `prepare && train`: set -e does not stop a function run on the left of &&
esac
