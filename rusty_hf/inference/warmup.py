"""Pay a first reply's one-time costs at start, with a message, instead of at the user's first request.

    python3 -m rusty_hf.inference.warmup        # compile the CPU kernels for this environment (install.sh runs it)

    from rusty_hf.inference.warmup import quiet_loading, warm_up
    quiet_loading()                               # interactive tools: no weight-loading progress bar
    warm_up(model, tokenizer)                     # the terminal and the Space, right after loading

The one-time costs: compiling TinyRWKV's C++ CPU kernels (once per Python environment, 30-60 s; cached
by `rusty_hf.models.tiny_rwkv.kernel_cache`), loading them, packing the weights for the decoding kernel,
and the constrained decoder's per-tokenizer tables. `warm_up` runs one short constrained reply, which
pays all of them.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def quiet_loading() -> None:
    """No "Loading weights" progress bar from transformers (a start of an interactive tool stays quiet)."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()


def build_cpu_kernels() -> str:
    """Compile (or find) the CPU kernels for this environment; returns one line saying what happened."""
    from rusty_hf.models.tiny_rwkv import cpu_kernels

    fresh = not cpu_kernels.kernel_is_built()
    start = time.perf_counter()
    kernel = cpu_kernels.load_kernel()
    if kernel is None:
        why = "switched off by RUSTY_CPU_KERNELS" if cpu_kernels.kernels_disabled() else "see the message above"
        return f"C++ CPU kernels not built ({why}); PyTorch's operators are used instead"
    where = cpu_kernels.build_directory(cpu_kernels.kernel_name())
    verb = "compiled" if fresh else "already built"
    return f"C++ CPU kernels {verb} ({time.perf_counter() - start:.1f} s) in {where}"


def warm_up(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, constrained: bool = True) -> float:
    """Run one short reply so the first real one is quick; returns the seconds it took."""
    from rusty_hf.inference.streaming import stream_reply

    start = time.perf_counter()
    for _ in stream_reply(model, tokenizer, [{"role": "user", "content": "hello"}], max_new_tokens=8, constrained=constrained):
        pass
    return time.perf_counter() - start


def main() -> int:
    print(build_cpu_kernels(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
