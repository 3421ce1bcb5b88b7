"""The teacher back ends against a real loopback server, and a local model in-process
(rusty_hf/rewards/teacher/backends.py)."""

import asyncio
import logging
import socket

import pytest

from rusty_hf.rewards.teacher.reward import get_teacher_reward
from rusty_hf.rewards.teacher.backends import AnthropicBackend, LocalBackend, OpenAIChatBackend, TeacherError
from rusty_hf.rewards.teacher.config import TeacherConfig
from tests.conftest import tiny_config
from tests.teacher_server import TeacherServer

CODE = "```rust\nfn add(a: i32, b: i32) -> i32 { a + b }\n```"


@pytest.fixture
def server():
    with TeacherServer() as running:
        yield running


async def _ask(backend, system="grade", user="<answer>\nfn f() {}\n</answer>"):
    async with backend.session() as complete:
        return await complete(system, user)


def test_openai_request_carries_model_messages_and_bearer_key(server, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "sk-test-123")
    config = TeacherConfig(model="judge", base_url=server.openai_url, api_key_env="JUDGE_KEY", cache_path=None)
    reward = get_teacher_reward(config)
    assert asyncio.run(reward(prompts=["add two numbers"], completions=[CODE])) == [0.9]
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-123"
    assert request.body["model"] == "judge" and request.body["temperature"] == 0.0
    assert [m["role"] for m in request.body["messages"]] == ["system", "user"]
    assert "add two numbers" in request.body["messages"][1]["content"]


def test_no_key_no_auth_header(server):
    reply = asyncio.run(_ask(OpenAIChatBackend(model="judge", base_url=server.openai_url)))
    assert '"score": 9' in reply and "authorization" not in server.requests[0].headers


def test_extra_body_adds_and_drops_fields(server):
    extra = {"top_k": 1, "temperature": None, "max_tokens": None, "max_completion_tokens": 64}
    asyncio.run(_ask(OpenAIChatBackend(model="judge", base_url=server.openai_url, extra_body=extra)))
    body = server.requests[0].body
    assert body["top_k"] == 1 and body["max_completion_tokens"] == 64
    assert "temperature" not in body and "max_tokens" not in body


def test_anthropic_messages_api(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    config = TeacherConfig(model="claude-judge", backend="anthropic", base_url=server.url, cache_path=None)
    reward = get_teacher_reward(config)
    assert asyncio.run(reward(prompts=["p"], completions=["just prose"])) == [0.1]
    (request,) = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-test" and request.headers["anthropic-version"]
    assert "Grade only the answer" in request.body["system"] and request.body["max_tokens"] == 256


def test_key_never_logged(server, monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    config = TeacherConfig(model="judge", base_url=server.openai_url + "/nowhere", max_retries=0, cache_path=None)
    with caplog.at_level(logging.DEBUG):
        assert asyncio.run(get_teacher_reward(config)(prompts=["p"], completions=[CODE])) == [None]
    assert "HTTP 404" in caplog.text and "sk-very-secret" not in caplog.text


def test_refused_connection_is_a_retryable_error():
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(TeacherError) as info:
        asyncio.run(_ask(AnthropicBackend(model="m", base_url=f"http://127.0.0.1:{port}")))
    assert info.value.kind == "connection" and info.value.retryable


def test_timeout_is_a_retryable_error(server):
    server.fail_next("hang")
    with pytest.raises(TeacherError) as info:
        asyncio.run(_ask(OpenAIChatBackend(model="m", base_url=server.openai_url, timeout=0.3)))
    assert info.value.kind == "timeout" and info.value.retryable


@pytest.fixture(scope="module")
def tiny_teacher_dir(tmp_path_factory, tiny_tokenizer):
    """An untrained TinyRWKV with the tiny chat tokenizer, saved as a model folder."""
    from rusty_hf import TinyRWKVForCausalLM

    path = tmp_path_factory.mktemp("tiny_teacher")
    TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer))).save_pretrained(path)
    tiny_tokenizer.save_pretrained(path)
    return path


def test_local_model_generates_in_process(tiny_teacher_dir):
    backend = LocalBackend(str(tiny_teacher_dir), max_new_tokens=6)
    reply = asyncio.run(_ask(backend))
    assert isinstance(reply, str) and backend.identity.startswith("LocalBackend:")


def test_local_model_garbage_answers_are_failures(tiny_teacher_dir, tmp_path):
    config = TeacherConfig(model=str(tiny_teacher_dir), backend="local", max_tokens=6, cache_path=str(tmp_path / "c"))
    reward = get_teacher_reward(config)
    metrics = {}
    scores = asyncio.run(reward(prompts=["p", "p"], completions=[CODE, "prose"], log_metric=metrics.__setitem__))
    assert scores == [None, None]  # an untrained model does not answer in the format
    assert metrics["teacher/failures"] == 2 and reward.stats["failures/bad_answer"] == 2
