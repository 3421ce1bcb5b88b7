"""Per-token PPO math on padded completion batches: rewards, GAE, whitening, masked means.

Every tensor is (B, T) over the completion tokens, right-padded; `mask` is 1 on real tokens. A
completion is one episode: token t is an action, the state is everything before it, and the
episode ends after the last real token (a truncated completion is treated as ended too).

    rewards = token_rewards(scores, mask, kl=old_logps - ref_logps, kl_coef=0.05)
    advantages, returns = compute_gae(rewards, values, mask, gamma=1.0, lam=0.95)
    advantages = whiten(advantages, mask)
"""

from __future__ import annotations

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of `x` over the positions where `mask` is 1 (0 when the mask is empty)."""
    mask = mask.to(x.dtype)
    return (x * mask).sum() / mask.sum().clamp(min=1.0)


def whiten(x: torch.Tensor, mask: torch.Tensor, shift_mean: bool = True, eps: float = 1e-8) -> torch.Tensor:
    """Normalise `x` to unit variance (and zero mean unless `shift_mean=False`) over the masked
    positions; padding stays 0. Fewer than two real tokens leaves `x` centred but unscaled."""
    mask = mask.to(x.dtype)
    mean = masked_mean(x, mask)
    count = mask.sum()
    if count < 2:
        return (x - mean) * mask if shift_mean else x * mask
    var = (((x - mean) * mask) ** 2).sum() / (count - 1)  # unbiased, as the PPO baselines do
    out = (x - mean) * torch.rsqrt(var + eps)
    if not shift_mean:
        out = out + mean
    return out * mask


def last_token_index(mask: torch.Tensor) -> torch.Tensor:
    """(B,) index of each row's last real token; -1 for a row with none."""
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    return torch.where(mask.bool(), positions, -1).amax(dim=1)


def token_rewards(
    scores: torch.Tensor, mask: torch.Tensor, kl: torch.Tensor | None = None, kl_coef: float = 0.0
) -> torch.Tensor:
    """Per-token rewards: the sequence score (B,) on the last real token, minus `kl_coef * kl`
    per token (the InstructGPT-style KL penalty to the reference policy, kl = logp - ref_logp)."""
    rewards = torch.zeros_like(mask, dtype=torch.float32)
    if kl is not None and kl_coef:
        rewards = rewards - kl_coef * kl.float()
    last = last_token_index(mask)
    rows = torch.nonzero(last >= 0).squeeze(1)
    rewards[rows, last[rows]] += scores[rows].float()
    return rewards * mask


@torch.no_grad()
def compute_gae(
    rewards: torch.Tensor, values: torch.Tensor, mask: torch.Tensor, gamma: float, lam: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation, per token, and the value targets.

    delta_t = r_t + gamma * V_{t+1} - V_t, with V_{t+1} = 0 after the last real token;
    A_t = delta_t + gamma * lam * A_{t+1}; returns_t = A_t + V_t. Padding gets 0 in both.

    Returns:
        (advantages, returns), both (B, T) float32.
    """
    mask = mask.float()
    rewards, values = rewards.float() * mask, values.float() * mask
    T = rewards.shape[1]
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(rewards[:, 0])
    for t in reversed(range(T)):
        # A padding position after t means the episode ended at t: nothing to bootstrap from.
        not_last = mask[:, t + 1] if t + 1 < T else torch.zeros_like(running)
        next_value = values[:, t + 1] if t + 1 < T else torch.zeros_like(running)
        delta = rewards[:, t] + gamma * next_value * not_last - values[:, t]
        running = delta + gamma * lam * running * not_last
        advantages[:, t] = running
    advantages = advantages * mask
    return advantages, (advantages + values) * mask


__all__ = ["compute_gae", "last_token_index", "masked_mean", "token_rewards", "whiten"]
