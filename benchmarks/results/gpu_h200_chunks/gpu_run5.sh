#!/usr/bin/env bash
# One device call (fifth GPU session): the time-chunked WKV on CUDA (tests, exactness, kernel and step speed
# against GPT-2, eager and compiled), the step profile, then the packed r2 SFT recipe against the bare step.
set -uo pipefail
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
t0=$SECONDS
left() { echo $(( 535 - (SECONDS - t0) )); }
{ nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv; python3 -c "import torch, triton, transformers, trl, datasets; print('torch', torch.__version__, 'triton', triton.__version__, 'transformers', transformers.__version__, 'trl', trl.__version__, 'datasets', datasets.__version__, torch.cuda.get_device_name())"; } 2>&1
echo "== tests on CUDA ($((SECONDS-t0)) s)"; timeout 70 python3 -m pytest -q -p no:cacheprovider tests/test_wkv_triton.py -k "chunk or gradients or padded or reference" 2>&1 | tail -6
echo "== wkv_chunks ($((SECONDS-t0)) s)"; timeout 190 python3 benchmarks/wkv_chunks.py --output $OUT/wkv_chunks.json 2>&1 | grep -v Warning | tail -40
echo "== profile ($((SECONDS-t0)) s)"; timeout 80 python3 benchmarks/step_profile.py --device cuda --output $OUT/step_profile_cuda.json 2>&1 | grep -v -i warn | tail -32
R="python3 benchmarks/packed_recipe.py --recipe r2 --device cuda --config .bench/r2_sft_t517.yaml --tokenizer .bench/tokenizer --dataset .bench/r2_sft_rows --steps 50 --cases recipe"
echo "== recipe, 32 packed rows, with the bare step ($((SECONDS-t0)) s)"; timeout $(( $(left) < 120 ? $(left) : 120 )) $R --output $OUT/recipe_r2_32rows.json -- --optim adamw_torch_fused --per_device_train_batch_size 32 2>&1 | tail -5
echo "== recipe, 8 packed rows, the YAML's ($((SECONDS-t0)) s)"; [ $(left) -gt 40 ] && timeout $(( $(left) < 90 ? $(left) : 90 )) $R --no_bare --output $OUT/recipe_r2_8rows.json -- --optim adamw_torch_fused 2>&1 | tail -4
echo "== recipe, 64 packed rows ($((SECONDS-t0)) s)"; [ $(left) -gt 50 ] && timeout $(left) $R --no_bare --output $OUT/recipe_r2_64rows.json -- --optim adamw_torch_fused --per_device_train_batch_size 64 2>&1 | tail -4
echo "== done ($((SECONDS-t0)) s)"
