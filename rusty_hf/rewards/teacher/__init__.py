"""The teacher reward: an LLM judge scores each completion against a rubric, answers cached in sqlite.

    reward.py    the TRL reward (`get_teacher_reward`, `teacher_reward_from_env` for recipe YAML)
    backends.py  the judges it can ask: an OpenAI-compatible server, a local transformers model
    config.py    `TeacherConfig` and its ``RUSTY_TEACHER_*`` environment variables
    rubric.py    the grading prompt and the rules for reading an answer
    cache.py     the sqlite cache of scores

Usage::

    from rusty_hf.rewards.teacher import TeacherConfig, get_teacher_reward
    teacher = get_teacher_reward(TeacherConfig(backend="openai", model="Qwen/Qwen3-8B",
                                               base_url="http://127.0.0.1:8000/v1"))
"""

# The package's names are the reward module's (what `rusty_hf.rewards.teacher` held as one module).
from rusty_hf.rewards.teacher.reward import *  # noqa: F403
from rusty_hf.rewards.teacher.reward import __all__  # noqa: F401
