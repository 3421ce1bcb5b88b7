"""The teacher reward end to end against a real loopback server (rusty_hf/rewards/teacher/reward.py), and
its registry entry (rusty_hf/rewards/__init__.py)."""

import asyncio
import os
import socket
import time

import pytest
from trl.trainer.utils import is_async_callable, shutdown_event_loop_in_daemon, start_event_loop_in_daemon

from rusty_hf.rewards import get_reward_funcs
from rusty_hf.rewards.teacher.reward import get_teacher_reward
from rusty_hf.rewards.teacher.config import TeacherConfig
from tests.teacher_server import TeacherServer

GOOD = "```rust\nfn add(a: i32, b: i32) -> i32 { a + b }\n```"
PANICKY = "```rust\nfn parse(s: &str) -> i32 { s.parse().unwrap() }\n```"
PROSE = "I cannot help with that."


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in [n for n in os.environ if n.startswith("RUSTY_TEACHER_")] + ["OPENAI_API_KEY"]:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    with TeacherServer() as running:
        yield running


def make_reward(url, tmp_path, **overrides):
    """A teacher reward on ``url`` with a per-test cache and fast retries."""
    defaults = {
        "model": "judge",
        "base_url": url,
        "cache_path": str(tmp_path / "teacher.sqlite"),
        "timeout": 2.0,
        "max_retries": 2,
        "backoff": 0.01,
    }
    return get_teacher_reward(TeacherConfig(**{**defaults, **overrides}))


def grade(reward, completions, prompts=None, **kwargs):
    prompts = prompts or ["Write the function."] * len(completions)
    return asyncio.run(reward(prompts=prompts, completions=completions, **kwargs))


def test_scores_are_normalised_by_default(server, tmp_path):
    assert grade(make_reward(server.openai_url, tmp_path), [GOOD, PANICKY, PROSE]) == [0.9, 0.4, 0.1]


def test_raw_scores_when_not_normalised(server, tmp_path):
    assert grade(make_reward(server.openai_url, tmp_path, normalize=False), [GOOD, PROSE]) == [9.0, 1.0]


def test_conversational_samples(server, tmp_path):
    prompts = [[{"role": "system", "content": "You are Rusty."}, {"role": "user", "content": "Add two ints."}]]
    completions = [[{"role": "assistant", "content": GOOD}]]
    assert grade(make_reward(server.openai_url, tmp_path), completions, prompts) == [0.9]
    user = server.requests[0].body["messages"][1]["content"]
    assert "Add two ints." in user and "You are Rusty." not in user and "fn add" in user


def test_cache_hit_skips_the_server(server, tmp_path):
    metrics = {}
    assert grade(make_reward(server.openai_url, tmp_path), [GOOD, PROSE]) == [0.9, 0.1]
    assert len(server.requests) == 2
    fresh = make_reward(server.openai_url, tmp_path)  # a new process would see the same file
    assert grade(fresh, [GOOD, PROSE], log_metric=metrics.__setitem__) == [0.9, 0.1]
    assert len(server.requests) == 2
    assert metrics == {"teacher/cache_hits": 2, "teacher/failures": 0, "teacher/requests": 0}


def test_cache_is_keyed_by_rubric(server, tmp_path):
    grade(make_reward(server.openai_url, tmp_path), [GOOD])
    grade(make_reward(server.openai_url, tmp_path, rubric="Only brevity counts."), [GOOD])
    assert len(server.requests) == 2


def test_duplicate_samples_are_asked_once(server, tmp_path):
    assert grade(make_reward(server.openai_url, tmp_path, cache_path=None), [GOOD] * 4) == [0.9] * 4
    assert len(server.requests) == 1


def test_server_errors_are_retried_with_backoff(server, tmp_path):
    server.fail_next("500", "500")
    reward = make_reward(server.openai_url, tmp_path, backoff=0.2)
    start = time.perf_counter()
    assert grade(reward, [GOOD]) == [0.9]
    assert len(server.requests) == 3
    assert time.perf_counter() - start >= 0.2 + 0.4  # waited backoff, then twice that


def test_rate_limit_and_garbage_body_are_retried(server, tmp_path):
    server.fail_next("429", "garbage")
    assert grade(make_reward(server.openai_url, tmp_path), [GOOD]) == [0.9]
    assert len(server.requests) == 3


def test_timeouts_exhaust_retries_then_none(server, tmp_path):
    server.fail_next("hang", "hang")
    reward = make_reward(server.openai_url, tmp_path, timeout=0.3, max_retries=1)
    metrics = {}
    assert grade(reward, [GOOD], log_metric=metrics.__setitem__) == [None]
    assert len(server.requests) == 2
    assert metrics["teacher/failures"] == 1 and reward.stats["failures/timeout"] == 1
    assert grade(reward, [GOOD]) == [0.9]  # a failure is not cached: the next batch asks again


def test_bad_answer_is_a_failure_and_not_retried(server, tmp_path):
    server.fail_next("bad_answer")
    reward = make_reward(server.openai_url, tmp_path)
    assert grade(reward, [GOOD, PROSE]) in ([None, 0.1], [0.9, None])
    assert len(server.requests) == 2 and reward.stats["failures/bad_answer"] == 1


def test_client_error_is_not_retried(server, tmp_path):
    reward = make_reward(server.url + "/v2", tmp_path)  # 404: a wrong base_url will not fix itself
    assert grade(reward, [GOOD]) == [None]
    assert len(server.requests) == 1 and reward.stats["failures/http_error"] == 1


def test_teacher_down_yields_none_and_counts(tmp_path, caplog):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    reward = make_reward(f"http://127.0.0.1:{port}/v1", tmp_path, max_retries=1)
    metrics = {}
    assert grade(reward, [GOOD, PROSE], log_metric=metrics.__setitem__) == [None, None]
    assert metrics["teacher/failures"] == 2 and metrics["teacher/requests"] == 4
    assert reward.stats["failures/connection"] == 2
    assert "2 of 2 grading requests failed" in caplog.text


def test_requests_run_concurrently():
    # Each request is held 1 s, so requests sent together are in flight together, even on a loaded machine.
    with TeacherServer(delay=1.0) as server:
        reward = get_teacher_reward(TeacherConfig(model="judge", base_url=server.openai_url, cache_path=None))
        completions = [f"{GOOD}\n// variant {i}" for i in range(8)]
        assert grade(reward, completions) == [0.9] * 8
    assert server.max_in_flight >= 6  # the server saw them overlap (how long that took is the machine's business)


def test_max_concurrency_caps_requests_in_flight():
    with TeacherServer(delay=0.1) as server:
        config = TeacherConfig(model="judge", base_url=server.openai_url, cache_path=None, max_concurrency=2)
        assert grade(get_teacher_reward(config), [f"{GOOD}\n// {i}" for i in range(6)]) == [0.9] * 6
    assert server.max_in_flight == 2


def test_reasons_go_to_the_completions_table(server, tmp_path):
    columns = {}
    grade(make_reward(server.openai_url, tmp_path), [GOOD, PANICKY], log_extra=columns.__setitem__)
    assert columns == {"teacher_reason": ["correct and idiomatic", "panics on bad input"]}


def test_runs_on_trls_event_loop_thread(server, tmp_path):
    # TRL awaits async rewards on one long-lived loop in a daemon thread, batch after batch.
    reward = make_reward(server.openai_url, tmp_path, cache_path=None)
    thread, loop, ready = start_event_loop_in_daemon(name="reward-loop")
    ready.wait()
    try:
        for completions in ([GOOD], [PROSE, PANICKY]):
            coro = reward(prompts=["p"] * len(completions), completions=completions, trainer_state=None)
            assert len(asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=10)) == len(completions)
    finally:
        shutdown_event_loop_in_daemon(thread, loop)
    assert len(server.requests) == 3


def test_registry_builds_teacher_from_env(server, tmp_path, monkeypatch):
    monkeypatch.setenv("RUSTY_TEACHER_MODEL", "judge")
    monkeypatch.setenv("RUSTY_TEACHER_BASE_URL", server.openai_url)
    monkeypatch.setenv("RUSTY_TEACHER_CACHE", str(tmp_path / "c.sqlite"))
    execution, teacher = get_reward_funcs(["execution", "teacher"])
    assert (execution.__name__, teacher.__name__) == ("execution_reward", "teacher_reward")
    assert is_async_callable(teacher) and not is_async_callable(execution)
    assert grade(teacher, [GOOD]) == [0.9]


def test_registry_teacher_unconfigured_fails_at_construction():
    with pytest.raises(ValueError, match="RUSTY_TEACHER_MODEL"):
        get_reward_funcs(["execution", "teacher"])


def test_registry_unknown_name_lists_valid_ones():
    with pytest.raises(ValueError) as info:
        get_reward_funcs(["teacher", "judge"])
    assert "['judge']" in str(info.value)
    assert "'execution'" in str(info.value) and "'teacher'" in str(info.value)


@pytest.mark.slow
def test_grpo_trainer_logs_teacher_reward_and_metrics(server, tmp_path, tiny_tokenizer):
    # The real consumer: GRPOTrainer awaits the async reward on its loop thread and logs it by name.
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from rusty_hf import TinyRWKVForCausalLM
    from tests.conftest import tiny_config

    model = TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer), pad_token_id=tiny_tokenizer.pad_token_id))
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "add two ints"}]}] * 4)
    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"),
        max_steps=1,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=8,
        logging_steps=1,
        report_to="none",
        use_cpu=True,
        save_strategy="no",
        activation_checkpointing=False,
    )
    reward = make_reward(server.openai_url, tmp_path)
    trainer = GRPOTrainer(
        model=model, reward_funcs=reward, args=args, train_dataset=data, processing_class=tiny_tokenizer
    )
    trainer.train()
    (log,) = [entry for entry in trainer.state.log_history if "rewards/teacher_reward/mean" in entry]
    assert log["rewards/teacher_reward/mean"] == pytest.approx(0.1)  # the grader's score for prose
    assert log["teacher/failures"] == 0 and 1 <= len(server.requests) <= 4
