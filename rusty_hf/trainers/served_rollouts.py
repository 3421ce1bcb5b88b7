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
  Under the served distribution such a token has probability 1 and no gradient. TRL's completion-length
  metrics then count the unmasked tokens only.

The trainer scores those completions under the same distribution (`_ServedScoring`): TRL's per-token
log-probabilities of a terminal row, the policy's and the reference model's, are those of the raw logits plus
the offsets the processors added at each step, at the trainer's temperature. So GRPO's gradient is the policy
gradient of the decoder that is served, and its KL term compares two served policies. How far the raw model is
from the served distribution is logged (``rollout/served_minus_model_logp``, the mean over the tokens the model
chose, with ``rollout/forced_fraction``; sums over processes).

One ``generate`` call serves the whole local batch, the processors applied to the terminal rows only, as TRL's
own path makes one call (under FSDP every process must). The offsets of a generation's terminal rows are kept
until the next generation, on the host (terminal rows x tokens x vocabulary floats: up to 246 MB for the tiny
recipe's 16 x 160 x 24K; they are built on the generating device, one step at a time).
`rusty_hf.training.rl_setup.served_rollouts` refuses vLLM generation (its own sampler, without the processors).

    rollouts = ServedRollouts(train_dataset, cache_dir="outputs/terminal_fixtures")
    trainer = GRPOTrainer(..., train_dataset=train_dataset, rollout_func=rollouts)
"""

from __future__ import annotations

import copy
import json
import logging

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
from rusty_hf.protocol.pointers import mark_conversation, uses_pointers
from rusty_hf.tokenizer import generation_eos_ids

logger = logging.getLogger(__name__)


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
    the same calls). Each step's change to those rows' scores (``inner``'s output minus its input: the grammar's
    -inf, the copy bias) is kept in ``offsets``, so the trainer can score a token under the same distribution."""

    def __init__(self, inner: LogitsProcessor, rows: list[int]) -> None:
        self.inner, self.rows = inner, rows
        self.offsets: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        index = torch.tensor(self.rows, device=scores.device)
        scores = scores.clone()
        raw = scores[index]  # a copy: ``inner`` may write into its input
        processed = self.inner(input_ids[index.to(input_ids.device)], raw.clone())
        # where a processor ahead of these (generation_config's) already set -inf, -inf - -inf would be NaN
        self.offsets.append(torch.where(torch.isneginf(processed), float("-inf"), processed - raw))
        scores[index] = processed
        return scores

    def finish(self) -> torch.Tensor:
        """(rows, steps, vocabulary): the offset of every step, on the host."""
        return torch.stack(self.offsets, dim=1).cpu()


# A token the grammar forbids gets this logit under the served distribution (not -inf: the entropy multiplies p by
# log p, and 0 * -inf is NaN).
_FORBIDDEN = -1.0e9


def _served_log_probs(logits: torch.Tensor, offsets: torch.Tensor, labels: torch.Tensor, temperature: float):
    """Per-token log-probability of ``labels`` and entropy under ``softmax((logits + offsets) / temperature)``."""
    scores = (logits.float() + offsets.to(logits.device).clamp(min=_FORBIDDEN)) / temperature
    log_probs = torch.log_softmax(scores, dim=-1)
    entropy = -(log_probs.exp() * log_probs).sum(-1)
    return log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1), entropy


class _ServedScoring:
    """The trainer's log-probabilities of a served completion, taken under the distribution it was drawn from.

    TRL scores every completion with the raw model (its fused LM head, `trl.trainer.utils.add_fused_lm_head`), and
    GRPO's gradient is then that of the raw model's log-probabilities at tokens the served decoder chose: a policy
    gradient for neither policy. This wraps the forward TRL patched: a row whose tokens are a served rollout of
    the current generation gets the log-probability and entropy of its completion under the raw logits plus the
    offsets the processors added when it was drawn (scaled by the trainer's temperature); every other row is TRL's.
    The served rows' logits come from the backbone's hidden states of the same forward (read by a hook, as our PPO
    reads its values), projected by the output embeddings as TRL's fused head projects them: no second pass. The
    offsets depend on the text only, so the same offsets give the reference model's served distribution: the KL
    term compares the two served policies."""

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature
        # per mode (training, evaluation): prompt + completion ids -> (completion, vocabulary); kept apart so that an
        # evaluation's rollouts do not drop the offsets of training rows still buffered
        self.offsets: dict[bool, dict[tuple[int, ...], torch.Tensor]] = {True: {}, False: {}}
        self._matched: dict[bool, int] = {True: 0, False: 0}

    def begin(self, training: bool) -> None:
        """A new generation in this mode: the last one's rows have been trained on (or evaluated)."""
        if self.offsets[training] and not self._matched[training]:
            logger.warning("served scoring: none of the last generation's %d served completions was found in the "
                           "trainer's batches, so they were scored by the raw model; check that TRL's batches keep "
                           "the rollout's prompt and completion ids", len(self.offsets[training]))  # fmt: skip
        self.offsets[training].clear()
        self._matched[training] = 0

    def add(self, training: bool, ids: tuple[int, ...], offsets: torch.Tensor) -> None:
        self.offsets[training][ids] = offsets

    def install(self, model) -> None:
        """Wrap ``model``'s (TRL-patched) forward once."""
        if getattr(model, "_rusty_served_scoring", None) is self:
            return
        inner = model.forward

        def forward(*args, fused_lm_head=False, labels=None, **kwargs):
            rows = self._rows(kwargs.get("input_ids"), kwargs.get("attention_mask")) if fused_lm_head else []
            if not rows:
                return inner(*args, fused_lm_head=fused_lm_head, labels=labels, **kwargs)
            hidden = []
            handle = model.base_model.register_forward_hook(lambda _m, _a, out: hidden.append(out.last_hidden_state))
            try:
                out = inner(*args, fused_lm_head=True, labels=labels, **kwargs)
            finally:
                handle.remove()
            return self._rescore(model, out, hidden[-1], rows, kwargs)

        model.forward = forward
        model._rusty_served_scoring = self

    def _rows(self, input_ids, attention_mask) -> list[tuple[int, torch.Tensor]]:
        """(row, its offsets) for each row of the batch that is a stored served completion (a mode's count of
        matches goes up)."""
        if input_ids is None or not any(self.offsets.values()):
            return []
        ids = input_ids.cpu()
        mask = torch.ones_like(ids, dtype=torch.bool) if attention_mask is None else attention_mask.bool().cpu()
        found = []
        for r in range(ids.size(0)):
            key = tuple(ids[r][mask[r]].tolist())
            for mode, stored in self.offsets.items():
                if key in stored:
                    found.append((r, stored[key]))
                    self._matched[mode] += 1
                    break
        return found

    def _rescore(self, model, out, hidden: torch.Tensor, rows, kwargs):
        """``out`` with the served rows' log-probs and entropies taken under their served distribution."""
        for name in ("log_sum_sq_probs", "mean_logits", "is_top1"):
            if getattr(out, name, None) is not None:
                raise NotImplementedError(f"served scoring gives log_probs and entropy, not {name}: leave {name} out of "
                                          "add_fused_lm_head's outputs, or run with served_decoding false")  # fmt: skip
        input_ids, attention_mask = kwargs["input_ids"], kwargs.get("attention_mask")
        valid = torch.ones_like(input_ids, dtype=torch.bool) if attention_mask is None else attention_mask.bool()
        row_index, positions, offsets = [], [], []
        for r, row_offsets in rows:
            end = int(torch.nonzero(valid[r]).max()) + 1  # the completion is the row's last len(row_offsets) tokens
            n = len(row_offsets)
            row_index += [r] * n
            positions.append(torch.arange(end - n - 1, end - 1))  # the positions that predict them
            offsets.append(row_offsets)
        device = out.log_probs.device
        row_index = torch.tensor(row_index, device=device)
        positions = torch.cat(positions).to(device)
        head = model.get_output_embeddings()
        logits = head(hidden.to(head.weight.device)[row_index, positions])
        labels = input_ids.to(device)[row_index, positions + 1]
        log_probs, entropy = _served_log_probs(logits, torch.cat(offsets), labels.to(logits.device), self.temperature)
        fields = dict(out.items())
        fields["log_probs"] = out.log_probs.index_put((row_index, positions), log_probs.to(device, out.log_probs.dtype))
        if out.entropy is not None:
            fields["entropy"] = out.entropy.index_put((row_index, positions), entropy.to(device, out.entropy.dtype))
        if out.loss is not None:  # TRL's: minus the mean log-prob (over num_items_in_batch if given), plus aux terms
            count = kwargs.get("num_items_in_batch") or out.label_mask.sum().clamp(min=1)
            fields["loss"] = out.loss + (out.log_probs.sum() - fields["log_probs"].sum()) / count
        return type(out)(**fields)


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
        self._scoring: _ServedScoring | None = None

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

        # a pointer model reads a terminal prompt marked (`protocol.pointers`), as it was trained and as it is served
        pointing = uses_pointers(trainer.accelerator.unwrap_model(trainer.model))
        shown = [mark_conversation(p) if pointing and self.served(p) else p for p in prompts]
        prompt_ids = trainer._tokenize_prompts(shown)[0]  # TRL's own chat templating
        scoring, training = self._scoring_for(trainer), trainer.model.training
        scoring.begin(training)
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
                tokenizer, [shown[i] for i in served], max_new_tokens=config.max_new_tokens, copy=self.copy,
                workspace_names=[w[0] for w in workspaces], workspace_roots=[w[1] for w in workspaces],
                max_phrase_repeats=self.max_phrase_repeats)  # fmt: skip
            protocol_rows = _OnRows(protocol, served)
            processors.extend([protocol_rows, forced])
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
        offsets = protocol_rows.finish() if served else None
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
            scoring.add(training, tuple(prompt_ids[i]) + tuple(ids[:end]), offsets[served_at[i], :end])
            chosen = ~is_forced[served_at[i], :end]
            masks.append(chosen.int().tolist())
            gap = (served_lp[i, :end] - raw_lp[i, :end])[chosen]
            totals += torch.tensor([float(end - int(chosen.sum())), end, float(gap.sum()), int(chosen.sum()), 1, 0],
                                   dtype=torch.float64)  # fmt: skip
        totals[5] = len(prompts)
        self._log(trainer, totals)
        return {"prompt_ids": prompt_ids, "completion_ids": completions, "logprobs": logprobs, "env_mask": masks}

    def _scoring_for(self, trainer) -> _ServedScoring:
        """The scoring wrapper, installed on the policy (its base model under PEFT, where TRL patched the head) and on
        the reference model, at the first rollout (the trainer exists by then)."""
        from accelerate.utils import is_peft_model

        if self._scoring is None:
            self._scoring = _ServedScoring(trainer.temperature)
        for model in (trainer.model, getattr(trainer, "ref_model", None)):
            if model is None:
                continue
            model = trainer.accelerator.unwrap_model(model)
            self._scoring.install(model.get_base_model() if is_peft_model(model) else model)
        return self._scoring

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
