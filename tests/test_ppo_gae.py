"""Per-token PPO math (rusty_hf/trainers/gae.py and the loss terms of ppo.py) against hand computations."""

import pytest
import torch

from rusty_hf.trainers.gae import compute_gae, last_token_index, masked_mean, token_rewards, whiten
from rusty_hf.trainers.ppo import ppo_loss_terms


def test_gae_matches_a_hand_computed_example_with_padding():
    gamma, lam = 0.9, 0.5
    rewards = torch.tensor([[0.0, 0.0, 1.0], [0.5, 2.0, 9.0]])
    values = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.6, 7.0]])
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]])  # row 1 ends after two tokens; its third is padding
    advantages, returns = compute_gae(rewards, values, mask, gamma, lam)

    # Row 0: deltas d2 = 1 - 0.3 = 0.7, d1 = 0 + 0.9*0.3 - 0.2 = 0.07, d0 = 0 + 0.9*0.2 - 0.1 = 0.08;
    # A2 = 0.7, A1 = 0.07 + 0.45*0.7 = 0.385, A0 = 0.08 + 0.45*0.385 = 0.25325.
    # Row 1: the padding's reward (9) and value (7) are ignored: d1 = 2 - 0.6 = 1.4 (no bootstrap),
    # d0 = 0.5 + 0.9*0.6 - 0.4 = 0.64; A1 = 1.4, A0 = 0.64 + 0.45*1.4 = 1.27.
    expected = torch.tensor([[0.25325, 0.385, 0.7], [1.27, 1.4, 0.0]])
    torch.testing.assert_close(advantages, expected)
    torch.testing.assert_close(returns, torch.tensor([[0.35325, 0.585, 1.0], [1.67, 2.0, 0.0]]))


def test_gae_with_lambda_one_gives_discounted_returns():
    rewards = torch.tensor([[1.0, -2.0, 3.0, 0.5]])
    values = torch.randn(1, 4)
    _, returns = compute_gae(rewards, values, torch.ones(1, 4), gamma=0.8, lam=1.0)
    discounted = [sum(0.8 ** (k - t) * rewards[0, k].item() for k in range(t, 4)) for t in range(4)]
    torch.testing.assert_close(returns[0], torch.tensor(discounted))


def test_whiten_gives_zero_mean_unit_variance_on_real_tokens_and_keeps_padding_zero():
    x = torch.tensor([[1.0, 2.0, 3.0, 100.0], [4.0, 6.0, -50.0, -50.0]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    out = whiten(x, mask)
    real = out[mask.bool()]
    assert abs(real.mean().item()) < 1e-6
    assert abs(real.std().item() - 1.0) < 1e-5
    assert torch.all(out[~mask.bool()] == 0)


def test_token_rewards_put_the_score_on_the_last_real_token_minus_the_kl_penalty():
    mask = torch.tensor([[1, 1, 0], [1, 1, 1], [0, 0, 0]])
    kl = torch.full((3, 3), 0.5)
    rewards = token_rewards(torch.tensor([2.0, -1.0, 7.0]), mask, kl=kl, kl_coef=0.1)
    expected = torch.tensor([[-0.05, 1.95, 0.0], [-0.05, -0.05, -1.05], [0.0, 0.0, 0.0]])
    torch.testing.assert_close(rewards, expected)
    assert last_token_index(mask).tolist() == [1, 2, -1]


def test_policy_loss_is_clipped_and_reports_the_clipped_fraction():
    logps = torch.log(torch.tensor([[1.5, 1.0]])).requires_grad_()  # ratios 1.5 and 1.0 against old logp 0
    zeros = torch.zeros(1, 2)
    terms = ppo_loss_terms(
        logps,
        zeros,
        torch.ones(1, 2),
        zeros,
        zeros,
        zeros,
        torch.ones(1, 2),
        eps_low=0.2,
        eps_high=0.2,
        cliprange_value=None,
    )
    # -min(1.5, 1.2) and -1.0 averaged: the clipped token contributes -1.2 and no gradient.
    assert terms["policy_loss"].item() == pytest.approx(-1.1)
    assert terms["clipfrac"].item() == pytest.approx(0.5)
    terms["policy_loss"].backward()
    assert logps.grad[0, 0] == 0 and logps.grad[0, 1] != 0


def test_value_loss_takes_the_worse_of_clipped_and_unclipped_values():
    values = torch.tensor([[1.0, 0.5]])
    returns = torch.tensor([[0.0, 0.6]])
    zeros = torch.zeros(1, 2)
    terms = ppo_loss_terms(
        zeros, zeros, zeros, values, zeros, returns, torch.ones(1, 2), eps_low=0.2, eps_high=0.2, cliprange_value=0.2
    )
    # token 0: unclipped (1 - 0)^2 = 1 beats clipped (0.2 - 0)^2 = 0.04;
    # token 1: clipped (0.2 - 0.6)^2 = 0.16 beats unclipped (0.5 - 0.6)^2 = 0.01.
    assert terms["value_loss"].item() == pytest.approx(0.5 * (1.0 + 0.16) / 2)
    assert terms["vf_clipfrac"].item() == pytest.approx(0.5)


def test_masked_mean_ignores_padding_and_survives_an_empty_mask():
    x = torch.tensor([[1.0, 5.0]])
    assert masked_mean(x, torch.tensor([[1, 0]])).item() == 1.0
    assert masked_mean(x, torch.tensor([[0, 0]])).item() == 0.0
