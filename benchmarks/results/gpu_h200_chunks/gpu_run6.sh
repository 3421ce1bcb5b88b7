#!/usr/bin/env bash
# Second device call: the 4 tests that failed on CUDA (new and old kernels), the step at B32, the r2 pretraining
# recipe against the bare step, and the r2 SFT at 8 and 64 packed rows for the same tokens / the same time.
set -uo pipefail
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
t0=$SECONDS
K="gradients_match_autograd or chunks_with_carried"
echo "== tests, new ($((SECONDS-t0)) s)"; timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_wkv_triton.py -k "$K or chunk" --tb=short 2>&1 | grep -E "^E  |FAILED|passed|failed|Error" | head -24
rm -rf /tmp/oldrepo; cp -r . /tmp/oldrepo; cp .bench/old_wkv_triton.py /tmp/oldrepo/rusty_hf/models/tiny_rwkv/wkv_triton.py; cp .bench/old_test_wkv_triton.py /tmp/oldrepo/tests/test_wkv_triton.py
echo "== tests, old kernels at 09c4111 ($((SECONDS-t0)) s)"; (cd /tmp/oldrepo && PYTHONPATH=/tmp/site:/tmp/oldrepo timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_wkv_triton.py -k "$K" --tb=short 2>&1 | grep -E "^E  |FAILED|passed|failed|Error" | head -16)
echo "== steps ($((SECONDS-t0)) s)"; timeout 100 python3 benchmarks/wkv_chunks.py --sections steps --output $OUT/wkv_chunks_steps.json 2>&1 | grep -v Warning | tail -16
P="python3 recipes/pretrain.py --config .bench/r2_pretrain_t517.yaml --tokenizer_name_or_path .bench/tokenizer --dataset_path .bench/corpus --save_strategy no --eval_strategy no --report_to none --logging_steps 5 --dataset_num_proc 8"
echo "== r2 pretraining, 24 steps ($((SECONDS-t0)) s)"; timeout 100 $P --output_dir /tmp/pt --max_steps 24 2>&1 | grep -E "trained|Error|error" | tail -3; cp /tmp/pt/train_results.json $OUT/r2_pretrain_train_results.json
S="python3 benchmarks/packed_recipe.py --recipe r2 --device cuda --config .bench/r2_sft_t517.yaml --tokenizer .bench/tokenizer --dataset .bench/r2_sft_rows --no_bare --cases recipe"
echo "== sft 8 rows x 400 ($((SECONDS-t0)) s)"; timeout 110 $S --steps 400 --output $OUT/sft_8x400.json -- --optim adamw_torch_fused --warmup_steps 40 2>&1 | tail -2
echo "== sft 64 rows x 50 ($((SECONDS-t0)) s)"; timeout 80 $S --steps 50 --output $OUT/sft_64x50.json -- --optim adamw_torch_fused --warmup_steps 5 --per_device_train_batch_size 64 2>&1 | tail -2
echo "== sft 64 rows x 200 ($((SECONDS-t0)) s)"; timeout $(( 470 - (SECONDS - t0) )) $S --steps 200 --output $OUT/sft_64x200.json -- --optim adamw_torch_fused --warmup_steps 20 --per_device_train_batch_size 64 2>&1 | tail -2
echo "== done ($((SECONDS-t0)) s)"
python3 - <<'PY'
import json, os, glob
for f in sorted(glob.glob(os.environ["OUT"] + "/sft_*.json")):
    r = json.load(open(f))["cases"]["recipe"]
    print(os.path.basename(f), {k: r.get(k) for k in ("tokens_per_s", "tokens", "train_runtime_s", "train_loss", "last_logged_loss", "error")})
print("pretrain", json.load(open(os.environ["OUT"] + "/r2_pretrain_train_results.json")))
PY
