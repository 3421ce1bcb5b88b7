#!/usr/bin/env bash
set -uo pipefail
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
P="python3 recipes/pretrain.py --config .bench/r2_pretrain_t517.yaml --tokenizer_name_or_path .bench/tokenizer --dataset_path .bench/corpus --save_strategy no --eval_strategy no --report_to none --logging_steps 5 --dataset_num_proc 8"
timeout 80 $P --output_dir /tmp/pt --max_steps 24 2>&1 | grep -E "trained|Error|error" | tail -3; cp /tmp/pt/train_results.json $OUT/r2_pretrain_lean_train_results.json; cat /tmp/pt/train_results.json
