#!/usr/bin/env bash
# The main job on the embedded tiny default, one command, on a fresh machine (2 CPU cores; the README has the latest timing):
#   tokenizer (24K BPE) -> SFT (protocol dialogs + training tasks) -> GRPO (execution + protocol rewards)
#   -> held-out reward before/after GRPO -> pass@k + protocol validity -> Hub-ready folder with card, CSV, plot.
# Everything lands under outputs/ (OUT_DIR overrides). Stages whose output exists are reused; FRESH=1 redoes all.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR="${OUT_DIR:-outputs}"
[ "${FRESH:-0}" = 1 ] && rm -rf "$OUT_DIR/tiny-sft" "$OUT_DIR/tiny-grpo"
START=$SECONDS
stage() { printf '\n==> [%s] %s  (%ds elapsed)\n' "$1" "$2" "$((SECONDS - START))"; }

stage 0/6 "installing rusty_hf from the lock (constraints.txt; torch as the CPU wheel; the CPU kernels compiled once)"
bash recipes/install.sh
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" TOKENIZERS_PARALLELISM=false PATH="$HOME/.cargo/bin:$PATH"

stage 1/6 "tokenizer (24K byte-level BPE, recipes/build_tokenizer.py)"
if [ -f "$OUT_DIR/tokenizer/tokenizer.json" ]; then
    echo "reusing $OUT_DIR/tokenizer"
else
    python3 recipes/build_tokenizer.py --output_dir "$OUT_DIR/tokenizer"
fi

stage 2/6 "SFT (TRL SFTTrainer, recipes/tiny/sft.yaml)"
if [ -f "$OUT_DIR/tiny-sft/model.safetensors" ]; then
    echo "reusing $OUT_DIR/tiny-sft"
else
    python3 recipes/sft.py --config recipes/tiny/sft.yaml \
        --tokenizer_name_or_path "$OUT_DIR/tokenizer" --output_dir "$OUT_DIR/tiny-sft"
fi

stage 3/6 "GRPO on the training tasks (TRL GRPOTrainer, recipes/tiny/grpo.yaml)"
python3 recipes/grpo.py --config recipes/tiny/grpo.yaml \
    --model_name_or_path "$OUT_DIR/tiny-sft" --tokenizer_name_or_path "$OUT_DIR/tiny-sft" \
    --output_dir "$OUT_DIR/tiny-grpo"

stage 4/6 "held-out reward before vs after GRPO (same prompts, seed and sampling)"
python3 recipes/reward_gain.py --before "$OUT_DIR/tiny-sft" --after "$OUT_DIR/tiny-grpo" \
    --reward_funcs execution protocol --num_samples 4 --temperature 0.7 --output_file "$OUT_DIR/tiny-grpo/reward_gain.json"

stage 5/6 "pass@k and protocol validity on the held-out tasks (numbers go into the model card)"
python3 recipes/evaluate.py --model_name_or_path "$OUT_DIR/tiny-grpo" --num_samples 2 --k 1 2 \
    --max_new_tokens 160 --update_model_card --output_file "$OUT_DIR/tiny-grpo/eval_results.json"

stage 6/6 "done in $((SECONDS - START))s"
cat <<NEXT
The folder $OUT_DIR/tiny-grpo is Hub-ready: weights, remote code, tokenizer, model card (README.md),
rl_training.log (CSV), training_curves.png, reward_gain.json, eval_results.json.

Next steps:
  rusty-terminal --model $OUT_DIR/tiny-grpo --workdir /tmp/rusty-work        # the terminal agent (:dry, :q)
  RUSTY_MODEL=$OUT_DIR/tiny-grpo python3 space/app.py                        # the Gradio Space, locally
  python3 -c "from rusty_hf.publishing import push_folder; push_folder('$OUT_DIR/tiny-grpo', 'you/rusty-tiny')"
  accelerate launch --config_file recipes/accelerate_configs/cpu.yaml recipes/grpo.py --config recipes/tiny/grpo.yaml
NEXT
