"""The Python execution reward: a task's tests run on the host against the sandboxed solution.

    execution.py   the TRL reward (`execution_reward`, `get_execution_reward`) and one sandboxed run
    host_tests.py  runs a task's ``tests.py`` here, counting the tests that pass
    collect.py     how a test file imports and is collected, and the check that it can be
    remote.py      the host's end of the conversation with the sandbox (`Remote`)
    proxies.py     what a test holds for the solution's functions and objects (`RemoteObject`)
    sandboxed/     the only files the sandbox gets besides ``solution.py``: the server and its codec

Usage::

    from rusty_hf.rewards.python_exec import get_execution_reward
    reward = get_execution_reward(pass_weight=1.0, parse_weight=0.0, max_workers=2)
    scores = reward(completions, tests=tests)     # TRL's call: one score (or None) per completion
"""

from rusty_hf.rewards.python_exec.execution import default_workers, execution_reward, get_execution_reward

__all__ = ["default_workers", "execution_reward", "get_execution_reward"]
