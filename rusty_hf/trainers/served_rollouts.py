"""RL rollouts decoded as Rusty is served: terminal prompts through the processors `rusty-terminal` uses.

`rusty-terminal`, the Space and the terminal evaluation decode a reply under the action grammar with the
copy bias and the repeat bound (`rusty_hf.inference.decoding.reply_processors`). Plain GRPO samples the raw
model instead, so the policy would be trained on a decoder it is not served with. :class:`ServedRollouts` is
TRL's ``rollout_func`` hook (GRPOTrainer's, and so our PPO's): the terminal rows of a batch are sampled with
those processors (their work dir's paths and root, as the evaluation gives them); the other rows (the coding
tasks) are sampled as TRL samples them. Per completion it returns:

- ``logprobs``: each token's log-probability under the distribution it was drawn from (the processors, then
  the sampling warpers: temperature, top-k, top-p, min-p), kept by TRL as its sampling log-probs;
- ``env_mask``: 0 on the tokens the grammar forced (it allowed one token, counted before the sampling warpers).
  Under the served distribution such a token has probability 1 and no gradient; the raw model's log-probability
  of it would still be pushed up or down by the advantage. Elsewhere the trainer's log-probs are the raw
  model's, as in TRL: how far they are from the served ones is logged (``rollout/served_minus_model_logp``,
  the mean over the tokens the model chose, with ``rollout/forced_fraction``; sums over processes). TRL's
  completion-length metrics then count the unmasked tokens only.

One ``generate`` call serves the whole local batch, the processors applied to the terminal rows only, as TRL's
own path makes one call (under FSDP every process must). The recorders hold one step's distribution at a time.
The served log-probs are not the policy's: `rusty_hf.training.rl_setup.served_rollouts` refuses the TRL settings
that would read them as the policy's drift (``off_policy_mask_threshold``) and vLLM generation (its own sampler).

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


class _StepLogProbs(LogitsProcessor):
    """Each drawn token's log-probability under the scores this processor sees (divided by ``scale``): a step's
    log-softmax is kept until the next call, where the token drawn from it is read (``input_ids[:, -1]``), so
    one (batch, vocabulary) tensor is held at a time, and the values stay on the device until `finish` (no host
    sync per token); `finish` reads the last step's token."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self.last: torch.Tensor | None = None
        self.values: list[torch.Tensor] = []

    def _read(self, drawn: torch.Tensor) -> None:
        if self.last is not None:
            self.values.append(self.last.gather(1, drawn.to(self.last.device).view(-1, 1))[:, 0])

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self._read(input_ids[:, -1])
        self.last = torch.log_softmax(scores.float() / self.scale, dim=-1)
        return scores

    def finish(self, last_tokens: torch.Tensor) -> torch.Tensor:
        """(batch, steps): the log-probability of every drawn token."""
        self._read(last_tokens)
        self.last = None
        return torch.stack(self.values, dim=1).cpu()


class _Forced(LogitsProcessor):
    """Per step, which rows the grammar left one token (placed right after it, before the sampling warpers)."""

    def __init__(self) -> None:
        self.steps: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self.steps.append(torch.isfinite(scores).sum(dim=-1) == 1)  # on the device: read once, after generate
        return scores


class _OnRows(LogitsProcessor):
    """``inner`` applied to ``rows`` of the batch only (the terminal prompts); the other rows' scores pass as they
    are. One `generate` call serves the whole batch, as TRL's own path does (under FSDP every process must make
    the same calls)."""

    def __init__(self, inner: LogitsProcessor, rows: list[int]) -> None:
        self.inner, self.rows = inner, rows

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        index = torch.tensor(self.rows, device=scores.device)
        scores = scores.clone()
        scores[index] = self.inner(input_ids[index.to(input_ids.device)], scores[index])
        return scores


# The settings that turn transformers' own warpers off (ours run before the recorder, not after it); top_k 0, not
# None: transformers fills an unset top_k with its global default (50).
_WARPERS_OFF = {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": None}


def _sampling_warpers(config) -> list[LogitsProcessor]:
    """The sampling warpers ``config`` asks for, in transformers' order."""
    warpers: list[LogitsProcessor] = []
    if config.temperature is not None and config.temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(config.temperature))
    if config.top_k:
        warpers.append(TopKLogitsWarper(top_k=config.top_k, min_tokens_to_keep=1))
    if config.top_p is not None and config.top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=config.top_p, min_tokens_to_keep=1))
    if config.min_p is not None:
        warpers.append(MinPLogitsWarper(min_p=config.min_p, min_tokens_to_keep=1))
    return warpers


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
        from trl.models.utils import unwrap_model_for_generation
        from trl.trainer.utils import pad

        prompt_ids = trainer._tokenize_prompts(prompts)[0]  # TRL's own chat templating
        served = [i for i, p in enumerate(prompts) if self.served(p)]
        tokenizer, device = trainer._tokenizer, trainer.accelerator.device
        tensors = [torch.tensor(ids) for ids in prompt_ids]
        input_ids = pad(tensors, padding_value=tokenizer.pad_token_id, padding_side="left").to(device)
        attention_mask = pad([torch.ones_like(t) for t in tensors], padding_value=0, padding_side="left").to(device)
        config = copy.deepcopy(trainer.generation_config)
        eos = sorted(set(trainer.eos_token_ids) | set(generation_eos_ids(tokenizer)))
        config.eos_token_id = eos
        warpers = _sampling_warpers(config)
        for name, value in _WARPERS_OFF.items():
            setattr(config, name, value)
        forced, drawn = _Forced(), _StepLogProbs()
        raw = _StepLogProbs(trainer.temperature) if served else None  # the model's own, for the logged gap
        processors = LogitsProcessorList([raw] if raw is not None else [])
        if served:
            workspaces = [self.workspace(prompts[i]) for i in served]
            protocol = reply_processors(
                tokenizer, [prompts[i] for i in served], max_new_tokens=config.max_new_tokens, copy=self.copy,
                workspace_names=[w[0] for w in workspaces], workspace_roots=[w[1] for w in workspaces],
                max_phrase_repeats=self.max_phrase_repeats)  # fmt: skip
            processors.extend([_OnRows(protocol, served), forced])
        processors.extend([*warpers, drawn])
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
        served_lp = drawn.finish(tokens[:, -1])
        raw_lp = raw.finish(tokens[:, -1]) if raw is not None else None
        is_forced = torch.stack(forced.steps, dim=1).cpu() if forced.steps else None
        completions, logprobs, masks = [], [], []
        totals = torch.zeros(6, dtype=torch.float64)  # forced, served tokens, gap, chosen, served rows, rows
        served_at = {i: j for j, i in enumerate(served)}
        for i, ids in enumerate(tokens.tolist()):
            end = next((t + 1 for t, token in enumerate(ids) if token in eos), len(ids))
            completions.append(ids[:end])
            logprobs.append(served_lp[i, :end].tolist())
            if i not in served_at:
                masks.append([1] * end)
                continue
            chosen = ~is_forced[served_at[i], :end]
            masks.append(chosen.int().tolist())
            gap = (served_lp[i, :end] - raw_lp[i, :end])[chosen]
            totals += torch.tensor([float(end - int(chosen.sum())), end, float(gap.sum()), int(chosen.sum()), 1, 0],
                                   dtype=torch.float64)  # fmt: skip
        totals[5] = len(prompts)
        self._log(trainer, totals)
        return {"prompt_ids": prompt_ids, "completion_ids": completions, "logprobs": logprobs, "env_mask": masks}

    @staticmethod
    def _log(trainer, totals: torch.Tensor) -> None:
        """The rollout metrics, summed over processes (every process gathers, whatever its rows)."""
        forced, tokens, gap, chosen, served, rows = trainer.accelerator.gather(
            totals.to(trainer.accelerator.device)).view(-1, 6).sum(0).tolist()  # fmt: skip
        metrics = trainer._metrics["train" if trainer.model.training else "eval"]
        metrics["rollout/served_share"].append(served / max(rows, 1))
        if tokens:
            metrics["rollout/forced_fraction"].append(forced / tokens)
        if chosen:
            metrics["rollout/served_minus_model_logp"].append(gap / chosen)


__all__ = ["ServedRollouts"]
