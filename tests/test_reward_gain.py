"""Scoring checkpoints before and after RL: the statistics and one real end-to-end scoring."""

import math

import pytest

from rusty_hf import TinyRWKVConfig, TinyRWKVForCausalLM
from rusty_hf.evaluation.reward_gain import RewardScore, compare, score_checkpoint


def test_mean_and_standard_error_follow_the_textbook_formulas():
    score = RewardScore("m", [0.0, 1.0, 1.0, 2.0])
    assert score.mean == 1.0
    assert score.stderr == pytest.approx(math.sqrt((1 + 0 + 0 + 1) / 3 / 4))


def test_a_gain_passes_only_when_it_clears_both_the_absolute_and_the_stderr_floor():
    before = RewardScore("a", [0.0, 0.1] * 40)
    assert compare(before, RewardScore("b", [0.5, 0.6] * 40))["passes"]
    assert not compare(before, RewardScore("b", [0.05, 0.15] * 40))["passes"]  # +0.05 < 0.1
    noisy = compare(RewardScore("a", [0.0, 2.0] * 2), RewardScore("b", [0.2, 2.2] * 2))
    assert not noisy["passes"] and noisy["gain"] == pytest.approx(0.2)  # 2 SE not cleared


@pytest.mark.slow
def test_score_checkpoint_samples_every_held_out_task_and_totals_the_rewards(tmp_path, tiny_tokenizer):
    tiny_tokenizer.save_pretrained(tmp_path)
    config = TinyRWKVConfig(vocab_size=len(tiny_tokenizer), d_embed=16, d_hidden=32, n_layers=1, eos_token_id=5)
    TinyRWKVForCausalLM(config).save_pretrained(tmp_path)
    score = score_checkpoint(str(tmp_path), reward_names=["execution", "protocol"], num_samples=2, max_new_tokens=4)
    assert len(score.totals) % 2 == 0 and len(score.totals) >= 8
    assert set(score.per_reward) == {"execution_reward", "protocol_reward"}
    assert all(0.0 <= t <= 2.0 for t in score.totals)


@pytest.mark.slow
def test_reward_weights_scale_each_reward_as_grpo_does(tmp_path, tiny_tokenizer):
    tiny_tokenizer.save_pretrained(tmp_path)
    config = TinyRWKVConfig(vocab_size=len(tiny_tokenizer), d_embed=16, d_hidden=32, n_layers=1, eos_token_id=5)
    TinyRWKVForCausalLM(config).save_pretrained(tmp_path)
    settings = dict(reward_names=["execution", "protocol"], num_samples=2, max_new_tokens=4, device="cpu")
    plain = score_checkpoint(str(tmp_path), **settings)
    weighted = score_checkpoint(str(tmp_path), reward_weights=[0.0, 3.0], **settings)
    assert weighted.per_reward == plain.per_reward  # the same samples: one seed
    assert weighted.mean == pytest.approx(3.0 * plain.per_reward["protocol_reward"])
    with pytest.raises(ValueError, match="one weight per reward"):
        score_checkpoint(str(tmp_path), reward_weights=[1.0], **settings)
