"""The Rust reward: real rustc and clippy in the sandbox, tests judged by the host, syntax-tree metrics.

    reward.py       the TRL reward (`rust_reward`, `get_rust_reward`, `RustRewardConfig`) and its score
    compiler.py     one sandboxed shell: check pass (rustc/clippy, JSON diagnostics), then each test
    harness.py      what the tests record and how the host decides verdicts against the reference
    stub.py         stubs of the reference that compute nothing: tests they pass are refused
    ast_metrics.py  what tree-sitter counts in the source (structure, idioms, documentation)
    toolchain.py    finding rustc, its sysroot and clippy, or saying how to get them
    cache.py        the content-addressed score cache

Usage::

    from rusty_hf.rewards.rust import RustRewardConfig, get_rust_reward
    reward = get_rust_reward(RustRewardConfig(panic_penalty=1.0), cache_dir="outputs/rust_cache")
"""

# The package's names are the reward module's (what `rusty_hf.rewards.rust` held as one module).
from rusty_hf.rewards.rust.reward import *  # noqa: F403
from rusty_hf.rewards.rust.reward import __all__  # noqa: F401
