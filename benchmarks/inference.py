"""Inference benchmark: peak memory and tokens/s per quantization mode (the `rusty-bench` script).

    python3 benchmarks/inference.py --threads 1 [--model FOLDER] [--new-tokens 64] [--repeats 3] [--compile]
    python3 benchmarks/inference.py --threads 1 --out benchmarks/results/inference.json   # update the record

See `rusty_hf/inference/bench.py` for what is measured and the floors; the JSON record is written
only where `--out` says.
"""

import sys

from rusty_hf.inference.bench import main

if __name__ == "__main__":
    sys.exit(main())
