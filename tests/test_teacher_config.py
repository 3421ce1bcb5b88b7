"""TeacherConfig checks and its RUSTY_TEACHER_* environment variables (rusty_hf/rewards/teacher/config.py)."""

import os

import pytest

from rusty_hf.rewards.teacher.config import TeacherConfig, teacher_config_from_env


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in [n for n in os.environ if n.startswith("RUSTY_TEACHER_")] + ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]:
        monkeypatch.delenv(name, raising=False)


def test_unconfigured_env_names_what_to_set():
    with pytest.raises(ValueError) as info:
        teacher_config_from_env()
    assert "RUSTY_TEACHER_MODEL" in str(info.value) and "RUSTY_TEACHER_BASE_URL" in str(info.value)


def test_env_builds_config(monkeypatch, tmp_path):
    monkeypatch.setenv("RUSTY_TEACHER_MODEL", "judge")
    monkeypatch.setenv("RUSTY_TEACHER_BACKEND", "anthropic")
    monkeypatch.setenv("RUSTY_TEACHER_BASE_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("RUSTY_TEACHER_TIMEOUT", "2.5")
    monkeypatch.setenv("RUSTY_TEACHER_MAX_CONCURRENCY", "3")
    monkeypatch.setenv("RUSTY_TEACHER_CACHE", "none")
    rubric = tmp_path / "rubric.txt"
    rubric.write_text("Only correctness counts.")
    monkeypatch.setenv("RUSTY_TEACHER_RUBRIC_FILE", str(rubric))
    config = teacher_config_from_env()
    assert (config.backend, config.model, config.base_url) == ("anthropic", "judge", "http://127.0.0.1:9/")
    assert (config.timeout, config.max_concurrency, config.cache_path) == (2.5, 3, None)
    assert config.rubric == "Only correctness counts."


def test_bad_number_in_env_is_named(monkeypatch):
    monkeypatch.setenv("RUSTY_TEACHER_MODEL", "judge")
    monkeypatch.setenv("RUSTY_TEACHER_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="RUSTY_TEACHER_TIMEOUT='soon'"):
        teacher_config_from_env()


def test_hosted_api_without_key_names_the_variable():
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        TeacherConfig(model="gpt-x")
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        TeacherConfig(model="claude-x", backend="anthropic")
    with pytest.raises(ValueError, match="MY_KEY"):
        TeacherConfig(model="gpt-x", api_key_env="MY_KEY")


def test_key_is_read_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-secret")
    config = TeacherConfig(model="gpt-x", api_key_env="MY_KEY", cache_path=None)
    assert config.api_key() == "sk-secret" and "sk-secret" not in repr(config)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"backend": "ollama"}, "openai"),
        ({"model": ""}, "RUSTY_TEACHER_MODEL"),
        ({"timeout": 0}, "timeout > 0"),
        ({"max_concurrency": 0}, "max_concurrency >= 1"),
        ({"rubric": "  "}, "rubric"),
    ],
)
def test_bad_config_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TeacherConfig(**{"model": "judge", "base_url": "http://127.0.0.1:9/v1", **kwargs})
