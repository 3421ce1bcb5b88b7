"""Configuration of the teacher reward: the ``TeacherConfig`` dataclass and its environment variables.

In Python, build a ``TeacherConfig``. From recipe YAML (``reward_funcs: [teacher]``), where a
reward is only a name, the teacher is configured by environment variables, read once when the
recipe builds its rewards -- a missing setting fails there, before training starts:

=============================== =====================================================================
RUSTY_TEACHER_MODEL             required: the model name the server knows, or a local path/Hub id
RUSTY_TEACHER_BACKEND           ``openai`` (default: any OpenAI-compatible server), ``anthropic``, ``local``
RUSTY_TEACHER_BASE_URL          e.g. ``http://127.0.0.1:8000/v1`` for vLLM; default: the hosted API
RUSTY_TEACHER_API_KEY_ENV       the variable that holds the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)
RUSTY_TEACHER_CACHE             sqlite file of cached scores; ``none`` disables (default under ~/.cache)
RUSTY_TEACHER_TIMEOUT           seconds per request (default 60)
RUSTY_TEACHER_MAX_RETRIES       retries after a failed request (default 3)
RUSTY_TEACHER_MAX_CONCURRENCY   requests in flight at once (default 16)
RUSTY_TEACHER_RUBRIC_FILE       a text file replacing the default rubric
=============================== =====================================================================

Usage::

    RUSTY_TEACHER_MODEL=Qwen/Qwen3-8B RUSTY_TEACHER_BASE_URL=http://127.0.0.1:8000/v1 \\
        accelerate launch recipes/grpo.py --config recipes/tiny/grpo.yaml --reward_funcs execution teacher
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rusty_hf.rewards.teacher.cache import default_cache_path
from rusty_hf.rewards.teacher.rubric import DEFAULT_RUBRIC

BACKENDS = ("openai", "anthropic", "local")
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
ENV_PREFIX = "RUSTY_TEACHER_"


@dataclass
class TeacherConfig:
    """Who the teacher is and how to ask it. Checked on construction; errors name the fix."""

    model: str = field(default="", metadata={"help": "Model name on the server, or a path/Hub id for backend='local'."})
    backend: str = field(
        default="openai", metadata={"help": "openai (any OpenAI-compatible server), anthropic, local."}
    )
    base_url: str | None = field(
        default=None, metadata={"help": "Endpoint; None takes the hosted API of the back end."}
    )
    api_key_env: str | None = field(
        default=None, metadata={"help": "Variable holding the API key; None: OPENAI_API_KEY / ANTHROPIC_API_KEY."}
    )
    timeout: float = field(default=60.0, metadata={"help": "Seconds per HTTP request before it counts as failed."})
    max_retries: int = field(default=3, metadata={"help": "Retries of a request that timed out or hit 429/5xx."})
    backoff: float = field(default=1.0, metadata={"help": "First retry delay in seconds; doubles each retry."})
    max_backoff: float = field(default=30.0, metadata={"help": "Cap on one retry delay (and on Retry-After)."})
    max_concurrency: int = field(default=16, metadata={"help": "Teacher requests in flight at once."})
    cache_path: str | None = field(
        default_factory=default_cache_path, metadata={"help": "sqlite file of cached scores; None disables."}
    )
    rubric: str = field(default=DEFAULT_RUBRIC, metadata={"help": "Grading rubric put in the teacher's prompt."})
    normalize: bool = field(default=True, metadata={"help": "Return score/10 in [0, 1]; False: the raw 0-10."})
    max_tokens: int = field(default=256, metadata={"help": "Longest teacher answer (room for a short reason)."})
    temperature: float = field(default=0.0, metadata={"help": "Sampling temperature; 0 makes scores repeatable."})
    extra_body: dict | None = field(
        default=None, metadata={"help": "Extra request fields (vLLM structured outputs...); a None value drops one."}
    )
    trust_remote_code: bool = field(default=False, metadata={"help": "For backend='local' models with custom code."})

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown teacher backend {self.backend!r}; choose one of {list(BACKENDS)}")
        if not self.model:
            raise ValueError(
                "the teacher has no model: set TeacherConfig.model (RUSTY_TEACHER_MODEL), the model name "
                "the server serves, or a local path for backend='local'"
            )
        if not self.timeout > 0 or not self.backoff >= 0 or not self.max_backoff >= 0:
            raise ValueError("TeacherConfig needs timeout > 0, backoff >= 0 and max_backoff >= 0")
        if self.max_retries < 0 or self.max_concurrency < 1 or self.max_tokens < 1:
            raise ValueError("TeacherConfig needs max_retries >= 0, max_concurrency >= 1 and max_tokens >= 1")
        if not self.rubric.strip():
            raise ValueError("TeacherConfig.rubric is empty; leave it out to use the default rubric")
        if self.backend != "local" and self.base_url is None and not self.api_key():
            raise ValueError(
                f"the {self.backend} teacher at its hosted API needs a key: set {self.key_env} "
                f"(or point RUSTY_TEACHER_API_KEY_ENV at the variable holding it), or set "
                f"RUSTY_TEACHER_BASE_URL to your own server"
            )

    @property
    def key_env(self) -> str | None:
        """The name of the environment variable that holds the API key."""
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.backend)

    def api_key(self) -> str | None:
        """The API key, read from the environment when needed (never stored in the config)."""
        return os.environ.get(self.key_env) or None if self.key_env else None

    def __repr__(self) -> str:  # the dataclass repr would print the whole rubric
        return f"TeacherConfig(backend={self.backend!r}, model={self.model!r}, base_url={self.base_url!r})"


def _number(env: Mapping[str, str], name: str, kind: type) -> dict:
    raw = env.get(ENV_PREFIX + name.upper())
    if raw is None or raw == "":
        return {}
    try:
        return {name: kind(raw)}
    except ValueError:
        raise ValueError(f"{ENV_PREFIX}{name.upper()}={raw!r} is not a {kind.__name__}") from None


def teacher_config_from_env() -> TeacherConfig:
    """Build a TeacherConfig from the RUSTY_TEACHER_* variables (table in the module docstring).

    Raises:
        ValueError: when the teacher is not configured, naming the variables to set.
    """
    env = os.environ
    model = env.get(ENV_PREFIX + "MODEL", "")
    if not model:
        raise ValueError(
            "the 'teacher' reward is not configured: set RUSTY_TEACHER_MODEL (the model name) and "
            "RUSTY_TEACHER_BASE_URL (your server, e.g. http://127.0.0.1:8000/v1 for vLLM or `transformers serve`); "
            "optionally RUSTY_TEACHER_BACKEND=openai|anthropic|local and the API key in OPENAI_API_KEY / "
            "ANTHROPIC_API_KEY (or the variable named by RUSTY_TEACHER_API_KEY_ENV)"
        )
    kwargs: dict = {"model": model, "backend": env.get(ENV_PREFIX + "BACKEND") or "openai"}
    kwargs["base_url"] = env.get(ENV_PREFIX + "BASE_URL") or None
    kwargs["api_key_env"] = env.get(ENV_PREFIX + "API_KEY_ENV") or None
    cache = env.get(ENV_PREFIX + "CACHE")
    if cache:
        kwargs["cache_path"] = None if cache.lower() in ("none", "off", "0") else cache
    for name, kind in (("timeout", float), ("max_retries", int), ("max_concurrency", int)):
        kwargs.update(_number(env, name, kind))
    rubric_file = env.get(ENV_PREFIX + "RUBRIC_FILE")
    if rubric_file:
        try:
            kwargs["rubric"] = Path(rubric_file).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read RUSTY_TEACHER_RUBRIC_FILE={rubric_file!r}: {exc}") from None
    return TeacherConfig(**kwargs)
