#!/usr/bin/env bash
# The main job on the embedded tiny default, one command, on a fresh machine:
#   tokenizer (24K BPE) -> SFT of a tiny TinyRWKV on protocol dialogs -> generation demo.
# Everything lands under outputs/ (OUT_DIR overrides). Later stages (GRPO, evaluation, Hub push)
# join this script as their recipes land.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR="${OUT_DIR:-outputs}"

echo "==> installing rusty_hf (torch pinned to the local CPU wheel)"
python3 -m pip install -q --disable-pip-version-check torch==2.13.0
python3 -m pip install -q --disable-pip-version-check -e .
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" TOKENIZERS_PARALLELISM=false

echo "==> [1/3] tokenizer"
if [ -f "$OUT_DIR/tokenizer/tokenizer.json" ]; then
    echo "reusing $OUT_DIR/tokenizer"
else
    python3 recipes/build_tokenizer.py --output_dir "$OUT_DIR/tokenizer"
fi

echo "==> [2/3] SFT (TRL SFTTrainer, recipes/tiny/sft.yaml)"
python3 recipes/sft.py --config recipes/tiny/sft.yaml \
    --tokenizer_name_or_path "$OUT_DIR/tokenizer" --output_dir "$OUT_DIR/tiny-sft"

echo "==> [3/3] generation with the recurrent state"
python3 recipes/generate.py --model "$OUT_DIR/tiny-sft"

cat <<NEXT
==> done. The checkpoint in $OUT_DIR/tiny-sft is Hub-ready (weights + remote code + tokenizer):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    model = AutoModelForCausalLM.from_pretrained("$OUT_DIR/tiny-sft", trust_remote_code=True)
    python3 recipes/generate.py --model $OUT_DIR/tiny-sft --prompt "run the tests"
NEXT
