"""RL rollouts decoded as Rusty is served: terminal prompts through the processors `rusty-terminal` uses.

`rusty-terminal`, the Space and the terminal evaluation decode a reply under the action grammar with the
copy bias and the repeat bound (`rusty_hf.inference.decoding.reply_processors`). Plain GRPO samples the raw
model instead, so the policy would be trained on a decoder it is not served with. :class:`ServedRollouts` is
TRL's ``rollout_func`` hook (GRPOTrainer's, and so our PPO's): the terminal rows of a batch are sampled with
those processors (their work dir's paths and root, as the evaluation gives them); the other rows (the coding
tasks) are sampled as TRL samples them. Per completion it returns:

- ``logprobs``: each token's log-probability under the distribution it was drawn from (the processors, then
  the sampling warpers: temperature, top-k, top-p, min-p), kept by TRL as its sampling log-probs;
- ``env_mask``: 0 on the tokens the grammar forced (one token allowed: ``{"action": "`` and the like). Under
  the served distribution such a token has probability 1 and no gradient; the raw model's log-probability
  of it would still be pushed up or down by the advantage. Elsewhere the trainer's log-probs are the raw
  model's, as in TRL: how far they are from the served ones is logged (``rollout/served_minus_model_logp``,
  the mean over the tokens the model chose, with ``rollout/forced_fraction``).

    rollouts = ServedRollouts(train_dataset, cache_dir="outputs/terminal_fixtures")
    trainer = GRPOTrainer(..., train_dataset=train_dataset, rollout_func=rollouts)
"""

from __future__ import annotations

import copy
import json
import torch
from transformers import (
    LogitsProcessor,
    LogitsProcessorList,
    MinPLogitsWarper,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from rusty_hf.inference.decoding import MAX_PHRASE_REPEATS, reply_processors
from rusty_hf.tokenizer import generation_eos_ids


def _key(prompt: list[dict]) -> str:
    return json.dumps([[m.get("role"), m.get("content")] for m in prompt])


class _SampledLogProbs(LogitsProcessor):
    """The last processor of a sampled `generate`: per step, each row's log-probabilities under the scores it
    is drawn from (those of the token drawn are read at the next step), the raw model's, and whether one token
    only was allowed."""

    def __init__(self, raw: "_RawScores | None" = None) -> None:
        self.raw = raw
        self.steps: list[tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        logps = torch.log_softmax(scores.float(), dim=-1)
        forced = torch.isfinite(scores).sum(dim=-1) == 1
        raw = None if self.raw is None or self.raw.last is None else self.raw.last
        self.steps.append((logps, raw, forced))
        return scores

    def gathered(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
        """(served log-probs, raw log-probs or None, forced) of ``tokens`` (B, steps), each (B, steps)."""
        served = torch.stack([lp.gather(1, tokens[:, t : t + 1])[:, 0] for t, (lp, _, _) in enumerate(self.steps)], 1)
        raw = None
        if self.raw is not None:
            raw = torch.stack([r.gather(1, tokens[:, t : t + 1])[:, 0] for t, (_, r, _) in enumerate(self.steps)], 1)
        forced = torch.stack([f for _, _, f in self.steps], 1)
        return served, raw, forced


class _RawScores(LogitsProcessor):
    """The first processor: keeps the model's own log-probabilities at ``temperature`` (what TRL's loss uses)."""

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature
        self.last: torch.Tensor | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self.last = torch.log_softmax(scores.float() / self.temperature, dim=-1)
        return scores


def _sampling_warpers(config) -> tuple[list[LogitsProcessor], dict]:
    """The sampling warpers ``config`` asks for, in transformers' order, and the settings that turn them off in
    the config (so that they run before the recorder, not after it)."""
    warpers: list[LogitsProcessor] = []
    if config.temperature is not None and config.temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(config.temperature))
    if config.top_k:
        warpers.append(TopKLogitsWarper(top_k=config.top_k, min_tokens_to_keep=1))
    if config.top_p is not None and config.top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=config.top_p, min_tokens_to_keep=1))
    if config.min_p is not None:
        warpers.append(MinPLogitsWarper(min_p=config.min_p, min_tokens_to_keep=1))
    # 0, not None: transformers fills an unset top_k with its global default (50)
    return warpers, {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": None}


class ServedRollouts:
    """TRL's ``rollout_func``: terminal prompts sampled with `reply_processors`, the rest as TRL samples them.

    Args:
        dataset: the trainer's training rows; those with a ``fixture`` (the terminal requests of
            `rusty_hf.training.rl_setup.terminal_dataset`) are decoded as served, on their fixture's work dir.
        cache_dir: where the fixtures are materialized (the terminal reward's ``terminal_cache_dir``).
        copy: the copy bias, as `rusty-terminal` uses it.
        max_phrase_repeats: the repeat bound, as served.
    """

    def __init__(self, dataset, cache_dir: str, *, copy: bool = True, max_phrase_repeats: int | None = MAX_PHRASE_REPEATS):
        from rusty_hf.data.terminal.dataset import fixture_from_row

        self.cache_dir, self.copy, self.max_phrase_repeats = cache_dir, copy, max_phrase_repeats
        fixtures: dict[str, dict[str, object]] = {}
        columns = dataset.column_names
        if "fixture" in columns:
            for prompt, fixture in zip(dataset["prompt"], dataset["fixture"]):
                if fixture:
                    fixtures.setdefault(_key(prompt), {})[fixture] = fixture_from_row(fixture)
        self._fixtures = fixtures  # prompt -> {fixture json: Fixture}: one prompt may be asked on several
        self._workspaces: dict[str, tuple[list[str], str | None]] = {}

    def served(self, prompt: list[dict]) -> bool:
        return _key(prompt) in self._fixtures

    def workspace(self, prompt: list[dict]) -> tuple[list[str], str | None]:
        """(the work dir's paths, its root) for a terminal prompt; a prompt asked on several fixtures gets the
        union of their paths and no root (no file to search for quoted values)."""
        from rusty_hf.data.terminal.fixtures import materialize, workspace_paths

        key = _key(prompt)
        if key not in self._workspaces:
            fixtures = list(self._fixtures[key].values())
            names = sorted({p for f in fixtures for p in workspace_paths(f)})
            root = str(materialize(fixtures[0], self.cache_dir)) if len(fixtures) == 1 else None
            self._workspaces[key] = (names, root)
        return self._workspaces[key]

    def __call__(self, prompts: list, trainer) -> dict:
        prompt_ids = trainer._tokenize_prompts(prompts)[0]  # TRL's own chat templating
        completions: list[list[int] | None] = [None] * len(prompts)
        logprobs: list[list[float] | None] = [None] * len(prompts)
        masks: list[list[int] | None] = [None] * len(prompts)
        served = [i for i, p in enumerate(prompts) if self.served(p)]
        plain = [i for i in range(len(prompts)) if i not in set(served)]
        stats = {"forced": 0, "tokens": 0, "gap": 0.0, "chosen": 0}
        for rows, as_served in ((served, True), (plain, False)):
            if rows:
                self._sample(trainer, [prompts[i] for i in rows], [prompt_ids[i] for i in rows], as_served,
                             rows, completions, logprobs, masks, stats)  # fmt: skip
        metrics = trainer._metrics["train" if trainer.model.training else "eval"]
        metrics["rollout/served_share"].append(len(served) / max(len(prompts), 1))
        if stats["tokens"]:
            metrics["rollout/forced_fraction"].append(stats["forced"] / stats["tokens"])
        if stats["chosen"]:
            metrics["rollout/served_minus_model_logp"].append(stats["gap"] / stats["chosen"])
        return {"prompt_ids": prompt_ids, "completion_ids": completions, "logprobs": logprobs, "env_mask": masks}

    def _sample(self, trainer, prompts, prompt_ids, as_served, rows, completions, logprobs, masks, stats) -> None:
        from trl.models.utils import unwrap_model_for_generation
        from trl.trainer.utils import pad

        tokenizer = trainer._tokenizer
        device = trainer.accelerator.device
        tensors = [torch.tensor(ids) for ids in prompt_ids]
        input_ids = pad(tensors, padding_value=tokenizer.pad_token_id, padding_side="left").to(device)
        attention_mask = pad([torch.ones_like(t) for t in tensors], padding_value=0, padding_side="left").to(device)
        config = copy.deepcopy(trainer.generation_config)
        eos = sorted(set(trainer.eos_token_ids) | set(generation_eos_ids(tokenizer)))
        config.eos_token_id = eos
        warpers, off = _sampling_warpers(config)
        for name, value in off.items():
            setattr(config, name, value)
        raw = _RawScores(trainer.temperature) if as_served else None
        recorder = _SampledLogProbs(raw)
        processors = LogitsProcessorList([raw] if raw is not None else [])
        if as_served:
            workspaces = [self.workspace(p) for p in prompts]
            processors.extend(reply_processors(
                tokenizer, prompts, max_new_tokens=config.max_new_tokens, copy=self.copy,
                workspace_names=[w[0] for w in workspaces], workspace_roots=[w[1] for w in workspaces],
                max_phrase_repeats=self.max_phrase_repeats))  # fmt: skip
        processors.extend([*warpers, recorder])
        with (
            unwrap_model_for_generation(
                trainer.model_wrapped, trainer.accelerator,
                gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
                generation_kwargs=trainer.generation_kwargs,
                gradient_checkpointing_kwargs=trainer.args.gradient_checkpointing_kwargs,
            ) as model,
            torch.no_grad(),
            trainer._dist.summon_full_params(trainer.model_wrapped, recurse=False),
        ):  # fmt: skip
            out = model.generate(input_ids=input_ids, attention_mask=attention_mask, generation_config=config,
                                 logits_processor=processors)  # fmt: skip
        tokens = out[:, input_ids.shape[1] :].cpu()
        served_lp, raw_lp, forced = recorder.gathered(tokens)
        for j, i in enumerate(rows):
            ids = tokens[j].tolist()
            end = next((t + 1 for t, token in enumerate(ids) if token in eos), len(ids))
            completions[i] = ids[:end]
            logprobs[i] = served_lp[j, :end].tolist()
            chosen = ~forced[j, :end]
            masks[i] = chosen.int().tolist() if as_served else [1] * end
            if not as_served:
                continue
            stats["tokens"] += end
            stats["forced"] += int(forced[j, :end].sum())
            if chosen.any():
                stats["gap"] += float((served_lp[j, :end] - raw_lp[j, :end])[chosen].sum())
                stats["chosen"] += int(chosen.sum())


__all__ = ["ServedRollouts"]
