#!/usr/bin/env bash
# Rusty-R2 at full size on one GPU, one command, in BUDGET_MIN minutes (default 30):
#   corpus -> tokenizer -> pretrain -> SFT -> GRPO (execution + rust + protocol rewards)
#   -> held-out pass@1 / pass@k and compile rate before vs after GRPO, reward before vs after (mean ± SE)
#   -> Hub-ready folder ($OUT_DIR/r2-grpo) with its model card, and $OUT_DIR/pipeline.json.
#
#   RUSTY_KEEP_TORCH=1 bash recipes/install.sh      # once, on a machine with a CUDA build of torch
#   BUDGET_MIN=30 bash recipes/r2/pipeline.sh
#
# The corpus fetches its pinned Python wheels (recipes/corpus_sources.txt, ~125 MB from PyPI) into
# data/corpus_sources/python once; without PyPI it is built from what the machine has.
# The budget: the corpus and the tokenizer are built once and reused (their time counts when they run);
# 15% of BUDGET_MIN is kept for the evaluations; the rest goes to pretrain / SFT / GRPO in the shares
# PRETRAIN_SHARE / SFT_SHARE / GRPO_SHARE (0.5 / 0.2 / 0.3). Each training stage gets its share of what
# is left when it starts as `max_train_minutes`: after a few steps the trainer fits max_steps and the LR
# schedule to those minutes (rusty_hf.training.time_budget), so the stages scale with the budget and the
# device. Every stage prints its wall time; the trainers print their tokens/s.
#
# Without CUDA it runs unchanged, slowly (fp32 on CPU: --use_cpu, no bf16, torch AdamW). Extra arguments
# for a stage go in CORPUS_ARGS, TOKENIZER_ARGS, MODEL_ARGS (the fresh model's size, for pretraining),
# PRETRAIN_ARGS, SFT_ARGS, GRPO_ARGS, EVAL_ARGS and GAIN_ARGS; tests/test_r2_pipeline.py runs a
# few-step smoke test that way. FRESH=1 rebuilds the corpus, the tokenizer and every checkpoint.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUDGET_MIN="${BUDGET_MIN:-30}"
OUT_DIR="${OUT_DIR:-outputs/r2}"
CORPUS_DIR="${CORPUS_DIR:-data/code_corpus}"
PRETRAIN_SHARE="${PRETRAIN_SHARE:-0.5}" SFT_SHARE="${SFT_SHARE:-0.2}" GRPO_SHARE="${GRPO_SHARE:-0.3}"
EVAL_SHARE=0.15
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" TOKENIZERS_PARALLELISM=false PATH="$HOME/.cargo/bin:$PATH"
read -r -a corpus_args <<<"${CORPUS_ARGS:-}"
read -r -a tokenizer_args <<<"${TOKENIZER_ARGS:-}"
read -r -a model_args <<<"${MODEL_ARGS:-}"
read -r -a pretrain_args <<<"${PRETRAIN_ARGS:-}"
read -r -a sft_args <<<"${SFT_ARGS:-}"
read -r -a grpo_args <<<"${GRPO_ARGS:-}"
read -r -a eval_args <<<"${EVAL_ARGS:-}"
read -r -a gain_args <<<"${GAIN_ARGS:-}"

mkdir -p "$OUT_DIR"
if [ "${FRESH:-0}" = 1 ]; then
    rm -rf "$OUT_DIR/tokenizer" "$OUT_DIR/r2-pretrain" "$OUT_DIR/r2-sft" "$OUT_DIR/r2-grpo" "$CORPUS_DIR"
fi
TIMES="$OUT_DIR/stage_times.tsv"
: >"$TIMES"
START=$SECONDS
STAGE_START=$SECONDS
# stage N/8 NAME "what it does": NAME and its wall time go to stage_times.tsv
stage() {
    [ -n "${STAGE_NAME:-}" ] && printf '%s\t%d\n' "$STAGE_NAME" "$((SECONDS - STAGE_START))" >>"$TIMES"
    STAGE_NAME="$2" STAGE_START=$SECONDS
    printf '\n==> [%s] %s: %s  (%ds of %d min used)\n' "$1" "$2" "$3" "$((SECONDS - START))" "$BUDGET_MIN"
}
# minutes for a training stage: its share of the training time still left (never below 0.05: one step or so)
minutes_for() {
    python3 -c "import sys; budget, used, share, rest = map(float, sys.argv[1:]); \
left = budget * 60 * (1 - $EVAL_SHARE) - used; print(f'{max(0.05, left * share / rest / 60):.2f}')" \
        "$BUDGET_MIN" "$((SECONDS - START))" "$1" "$2"
}

DEVICE="$(python3 -c 'import torch; print("cuda" if torch.cuda.is_available() else "cpu")')"
if [ "$DEVICE" = cuda ]; then
    # SFT: 200,000 dialogs are for the YAML's 50,000 steps; a budgeted run reads ~60K rows, so 40,000
    # dialogs (plus the tasks) tokenized on 8 processes, instead of minutes in one
    device_args=() sft_optim=() sft_data=(--num_dialogs 40000 --dataset_num_proc 8)
    echo "device: $(python3 -c 'import torch; print(torch.cuda.get_device_name())'), budget $BUDGET_MIN minutes"
else
    device_args=(--use_cpu true --bf16 false) sft_optim=(--optim adamw_torch) sft_data=()
    echo "device: CPU (no CUDA): fp32, slowly; budget $BUDGET_MIN minutes"
fi
if ! command -v rustc >/dev/null; then
    echo "rustc not found: the GRPO Rust reward and the Rust evaluation need it; install it with rustup (https://rustup.rs)" >&2
    exit 1
fi

stage 1/8 corpus "code corpus -> $CORPUS_DIR (recipes/build_code_corpus.py; reused when its inputs are unchanged)"
python3 recipes/build_code_corpus.py --output_dir "$CORPUS_DIR" --fetch_pypi_sources true ${corpus_args[@]+"${corpus_args[@]}"}

stage 2/8 tokenizer "tokenizer (24K byte-level BPE) -> $OUT_DIR/tokenizer"
if [ -f "$OUT_DIR/tokenizer/tokenizer.json" ]; then
    echo "reusing $OUT_DIR/tokenizer"
else
    python3 recipes/build_tokenizer.py --output_dir "$OUT_DIR/tokenizer" ${tokenizer_args[@]+"${tokenizer_args[@]}"}
fi

rest="$(python3 -c "print($PRETRAIN_SHARE + $SFT_SHARE + $GRPO_SHARE)")"
minutes="$(minutes_for "$PRETRAIN_SHARE" "$rest")"
stage 3/8 pretrain "pretraining on the code corpus, $minutes min (recipes/r2/pretrain.yaml)"
python3 recipes/pretrain.py --config recipes/r2/pretrain.yaml --dataset_path "$CORPUS_DIR" \
    --tokenizer_name_or_path "$OUT_DIR/tokenizer" --output_dir "$OUT_DIR/r2-pretrain" --max_train_minutes "$minutes" \
    ${device_args[@]+"${device_args[@]}"} ${model_args[@]+"${model_args[@]}"} ${pretrain_args[@]+"${pretrain_args[@]}"}

rest="$(python3 -c "print($SFT_SHARE + $GRPO_SHARE)")"
minutes="$(minutes_for "$SFT_SHARE" "$rest")"
stage 4/8 sft "SFT from the pretrained model, $minutes min (recipes/r2/sft.yaml)"
python3 recipes/sft.py --config recipes/r2/sft.yaml --model_name_or_path "$OUT_DIR/r2-pretrain" \
    --tokenizer_name_or_path "$OUT_DIR/r2-pretrain" --output_dir "$OUT_DIR/r2-sft" --max_train_minutes "$minutes" \
    ${device_args[@]+"${device_args[@]}"} ${sft_optim[@]+"${sft_optim[@]}"} ${sft_data[@]+"${sft_data[@]}"} \
    ${sft_args[@]+"${sft_args[@]}"}

minutes="$(minutes_for "$GRPO_SHARE" "$GRPO_SHARE")"
stage 5/8 grpo "GRPO with execution + rust + protocol rewards, $minutes min (recipes/r2/grpo.yaml)"
python3 recipes/grpo.py --config recipes/r2/grpo.yaml --model_name_or_path "$OUT_DIR/r2-sft" \
    --tokenizer_name_or_path "$OUT_DIR/r2-sft" --output_dir "$OUT_DIR/r2-grpo" --max_train_minutes "$minutes" \
    ${device_args[@]+"${device_args[@]}"} ${grpo_args[@]+"${grpo_args[@]}"}

# On the GPU (--device auto); a looping sample is cut at 10 s instead of evaluate.py's 30
eval_settings=(--num_samples 8 --k 1 5 --temperature 0.8 --max_new_tokens 384 --batch_size 16 --timeout 10)
stage 6/8 eval-before "held-out pass@k before GRPO (the SFT model)"
python3 recipes/evaluate.py --model_name_or_path "$OUT_DIR/r2-sft" "${eval_settings[@]}" \
    --output_file "$OUT_DIR/r2-sft/eval_results.json" ${eval_args[@]+"${eval_args[@]}"}

stage 7/8 eval-after "held-out pass@k after GRPO, paired with before; numbers into the model card"
python3 recipes/evaluate.py --model_name_or_path "$OUT_DIR/r2-grpo" "${eval_settings[@]}" \
    --compare_to "$OUT_DIR/r2-sft/eval_results.json" --update_model_card \
    --output_file "$OUT_DIR/r2-grpo/eval_results.json" ${eval_args[@]+"${eval_args[@]}"}

stage 8/8 reward-gain "held-out reward before vs after GRPO (same prompts, seed and sampling)"
python3 recipes/reward_gain.py --before "$OUT_DIR/r2-sft" --after "$OUT_DIR/r2-grpo" \
    --task_languages python rust --reward_funcs execution rust protocol --reward_weights 1.0 0.1 0.5 \
    --batch_size 16 --num_samples 4 --temperature 0.8 --max_new_tokens 384 --output_file "$OUT_DIR/r2-grpo/reward_gain.json" --update_model_card ${gain_args[@]+"${gain_args[@]}"}
printf '%s\t%d\n' "$STAGE_NAME" "$((SECONDS - STAGE_START))" >>"$TIMES"

python3 recipes/r2/summarize.py --out_dir "$OUT_DIR" --budget_min "$BUDGET_MIN" --device "$DEVICE" \
    --total_seconds "$((SECONDS - START))"
