"""GRPO's rollouts on terminal prompts are decoded as rusty-terminal decodes a reply (issue 37, item 2)."""

import json

import pytest
import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, LogitsProcessorList, TemperatureLogitsWarper
from trl import GRPOConfig, GRPOTrainer

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.inference.decoding import reply_processors
from rusty_hf.protocol.actions import parse_action
from rusty_hf.errors import UserError
from rusty_hf.trainers.served_rollouts import ServedRollouts
from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.training.rl_setup import build_task_dataset, served_rollouts
from tests.conftest import randomise_zero_init, tiny_config

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def setting(tmp_path_factory, tiny_tokenizer):
    """A saved tiny model, the RL dataset with four terminal requests, and a batch of two requests and two tasks."""
    folder = tmp_path_factory.mktemp("tiny")
    torch.manual_seed(0)
    cfg = tiny_config(vocab_size=len(tiny_tokenizer), eos_token_id=tiny_tokenizer.eos_token_id,
                      pad_token_id=tiny_tokenizer.pad_token_id, bos_token_id=tiny_tokenizer.bos_token_id)  # fmt: skip
    randomise_zero_init(TinyRWKVForCausalLM(cfg), std=0.2).save_pretrained(folder)
    tiny_tokenizer.save_pretrained(folder)
    args = RLScriptArguments(task_languages=["python"], num_terminal=4, reward_funcs=["protocol"],
                             terminal_cache_dir=str(tmp_path_factory.mktemp("fixtures")))  # fmt: skip
    dataset = build_task_dataset(args)
    terminal = [row for row in dataset if row["language"] == "terminal"][:2]
    tasks = [row for row in dataset if row["language"] == "python"][:2]
    return folder, args, dataset, Dataset.from_list(terminal + tasks)


def length_reward(completions, **kwargs):
    return [len(json.dumps(c)) / 100.0 for c in completions]


def _trainer(setting, tmp_path, rollouts, **config):
    folder, _, _, batch = setting
    args = GRPOConfig(output_dir=str(tmp_path / "grpo"), max_steps=2, per_device_train_batch_size=4, num_generations=2,
                      max_completion_length=40, learning_rate=1e-3, logging_steps=1, report_to="none", use_cpu=True,
                      save_strategy="no", temperature=0.7, seed=0, gradient_checkpointing=False, **{"beta": 0.0, **config})  # fmt: skip

    model = AutoModelForCausalLM.from_pretrained(folder)
    return GRPOTrainer(model=model, reward_funcs=length_reward, args=args, train_dataset=batch,
                       processing_class=_tokenizer(folder), rollout_func=rollouts)  # fmt: skip


def _tokenizer(folder):
    from rusty_hf.tokenizer import load_tokenizer

    return load_tokenizer(str(folder))


def test_the_recipe_builds_it_only_for_terminal_prompts(setting):
    _, args, dataset, _ = setting
    rollouts = served_rollouts(args, GRPOConfig(output_dir="unused", use_cpu=True), dataset)
    assert isinstance(rollouts, ServedRollouts)
    terminal = [row["prompt"] for row in dataset if row["language"] == "terminal"]
    tasks = [row["prompt"] for row in dataset if row["language"] == "python"]
    assert all(map(rollouts.served, terminal)) and not any(map(rollouts.served, tasks))
    names, root = rollouts.workspace(terminal[0])
    assert names and root is not None  # the work dir the evaluation gives the same request
    misread = GRPOConfig(output_dir="unused", use_cpu=True, use_vllm=True)
    with pytest.raises(UserError, match="served_decoding false"):  # vLLM samples without the processors
        served_rollouts(args, misread, dataset)
    # TRL's off-policy mask reads the sampling log-probs against the trainer's: both are the served distribution's.
    assert served_rollouts(args, GRPOConfig(output_dir="unused", use_cpu=True, off_policy_mask_threshold=0.5), dataset)
    args.served_decoding = False
    try:
        assert served_rollouts(args, misread, dataset) is None
    finally:
        args.served_decoding = True


def test_a_terminal_rollout_is_the_served_decoder_token_for_token(setting, tmp_path):
    """Same seed, same tokens: the rollout of a terminal prompt is what `reply_processors` + sampling at the
    trainer's temperature draw; its log-probs are those of that distribution; forced tokens are masked."""
    _, args, dataset, batch = setting
    rollouts = ServedRollouts(dataset, args.terminal_cache_dir)
    trainer = _trainer(setting, tmp_path, rollouts)
    prompt = batch[0]["prompt"]
    torch.manual_seed(123)
    out = rollouts([prompt], trainer)
    ids = out["completion_ids"][0]

    tokenizer = trainer.processing_class
    names, root = rollouts.workspace(prompt)
    inputs = torch.tensor([out["prompt_ids"][0]])
    processors = reply_processors(tokenizer, [prompt], max_new_tokens=40, workspace_names=[names],
                                  workspace_roots=[root])  # fmt: skip
    processors.append(TemperatureLogitsWarper(0.7))
    recorded = []

    class Keep:
        def __call__(self, input_ids, scores):
            recorded.append(scores.clone())
            return scores

    processors.append(Keep())
    torch.manual_seed(123)
    model = trainer.model
    with torch.no_grad():
        served = model.generate(input_ids=inputs, attention_mask=torch.ones_like(inputs), do_sample=True,
                                max_new_tokens=40, logits_processor=LogitsProcessorList(processors),
                                eos_token_id=sorted(set(trainer.eos_token_ids) | {tokenizer.convert_tokens_to_ids("<|end|>")}),
                                pad_token_id=tokenizer.pad_token_id, temperature=1.0, top_k=0, top_p=1.0)  # fmt: skip
    assert served[0, inputs.shape[1] :].tolist()[: len(ids)] == ids
    text = tokenizer.decode(ids, skip_special_tokens=True)
    assert parse_action(text) is not None, text  # the grammar closes it within the budget
    expected = [torch.log_softmax(s[0].float(), -1)[t].item() for s, t in zip(recorded, ids)]
    assert out["logprobs"][0] == pytest.approx(expected, abs=1e-5)
    forced = [int(torch.isfinite(s[0]).sum()) == 1 for s in recorded[: len(ids)]]
    assert out["env_mask"][0] == [0 if f else 1 for f in forced]
    assert any(forced) and not all(forced)  # '{"action": "' is forced, the choice of action is not
    assert all(lp == pytest.approx(0.0, abs=1e-6) for lp, f in zip(out["logprobs"][0], forced) if f)


@pytest.mark.parametrize("beta", [0.0, 0.1])
def test_the_trainer_scores_a_served_completion_under_the_distribution_it_was_drawn_from(setting, tmp_path, beta):
    """TRL's per-token log-probs of a batch (the policy's, and the reference model's for the KL term) are those
    each token was sampled with: the served distribution on terminal rows, the raw model at the trainer's
    temperature on task rows. Scored by the raw model, as TRL alone does, the terminal rows are nats apart."""
    _, args, dataset, batch = setting
    rollouts = ServedRollouts(dataset, args.terminal_cache_dir)
    trainer = _trainer(setting, tmp_path, rollouts, beta=beta)
    torch.manual_seed(7)
    out = trainer._generate_and_score_completions([batch[0], batch[0], batch[2], batch[2]])
    ids = torch.cat([out["prompt_ids"], out["completion_ids"]], dim=1)
    mask = torch.cat([out["prompt_mask"], out["completion_mask"]], dim=1)
    width = out["completion_ids"].size(1)
    with torch.no_grad():
        logps, entropy, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, width, compute_entropy=True)
    sampled, scored = out["sampling_per_token_logps"], out["completion_mask"].bool()

    def gap(a, b, rows):  # mean |a - b| over each row's scored tokens
        return [float((a[r] - b[r])[scored[r]].abs().mean()) for r in rows]

    # The recurrent decoder and the parallel forward agree to ~1e-2 per token on this random model (the task rows
    # show the size); the served rows agree as closely.
    assert max(gap(logps, sampled, range(4))) < 0.02
    assert torch.isfinite(entropy[scored]).all()
    forced = scored & (out["tool_mask"] == 0)
    assert forced[:2].any() and torch.allclose(logps[forced], torch.zeros(()), atol=1e-5)  # probability 1 as served
    if beta:
        assert max(gap(out["ref_per_token_logps"], sampled, range(4))) < 0.02  # same weights at step 0
    for stored in rollouts._scoring.offsets.values():  # TRL's own scoring: the raw model
        stored.clear()
    with torch.no_grad():
        raw, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, width)
    assert min(gap(raw, sampled, range(2))) > 0.5
    assert torch.equal(raw[2:], logps[2:])  # task rows are TRL's, untouched


def test_served_scoring_indexes_each_row_as_the_full_logits_do(setting):
    """Rows of several prompt and reply lengths (left-padded prompts, right-padded replies, a task row between):
    the wrapped fused head gives each served row log_softmax((logits + offsets) / T) at its reply's tokens, read
    off the model's full logits, and the other row TRL's own values."""
    from trl.trainer.utils import add_fused_lm_head

    from rusty_hf.trainers.served_rollouts import _ServedScoring

    folder = setting[0]
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    add_fused_lm_head(model, temperature=0.7, outputs=("log_probs", "entropy"))
    plain = AutoModelForCausalLM.from_pretrained(folder).eval()
    scoring = _ServedScoring(0.7)
    scoring.install(model)
    torch.manual_seed(3)
    width, vocab = 12, model.config.vocab_size
    prompts, replies = [[5, 6, 7], [8, 9], [10, 11, 12]], [5, 9, 12]  # the middle row is a task (not served)
    rows, masks, offsets = [], [], {}
    for i, (prompt, n) in enumerate(zip(prompts, replies)):
        reply = torch.randint(20, vocab, (n,)).tolist()
        rows.append([0] * (3 - len(prompt)) + prompt + reply + [0] * (width - n))
        masks.append([0] * (3 - len(prompt)) + [1] * (len(prompt) + n) + [0] * (width - n))
        if i != 1:
            off = torch.randn(n, vocab) * 2
            off[torch.rand(n, vocab) < 0.3] = float("-inf")
            off[torch.arange(n), torch.tensor(reply)] = 1.5  # a drawn token is never forbidden
            offsets[i] = off
            scoring.add(True, tuple(prompt + reply), off)
    ids, mask = torch.tensor(rows), torch.tensor(masks)
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :3] = -100
    out = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    logits = plain(input_ids=ids, attention_mask=mask).logits.float()
    total = 0.0
    for i, n in enumerate(replies):
        scores = logits[i, 2 : 2 + n] + (offsets[i] if i in offsets else 0.0)
        expected = torch.log_softmax(scores / 0.7, -1).gather(-1, ids[i, 3 : 3 + n, None])[:, 0]
        assert torch.allclose(out.log_probs[i, 2 : 2 + n], expected, atol=1e-4), i
        assert not out.log_probs[i, 2 + n :].any() and not out.log_probs[i, :2].any()
        assert torch.isfinite(out.entropy[i]).all()
        total = total + expected.sum()
    # The gradient is that of the served log-probs, through the raw logits (the head and the backbone).
    out.log_probs.sum().backward()
    total.backward()
    for (name, a), b in zip(model.named_parameters(), plain.parameters()):
        if b.grad is not None:
            assert torch.allclose(a.grad, b.grad, atol=1e-5, rtol=1e-3), name


def test_an_offset_is_minus_inf_where_a_logit_was_already_minus_inf():
    """A processor ahead of the grammar (generation_config's) may have set -inf: the recorded offset stays -inf,
    not NaN (-inf - -inf)."""
    from rusty_hf.trainers.served_rollouts import _OnRows

    def mask_first_three(input_ids, scores):
        scores[:, :3] = float("-inf")
        return scores

    rows = _OnRows(mask_first_three, [1])
    scores = torch.zeros(2, 6)
    scores[:, 0] = float("-inf")
    rows(torch.zeros(2, 1, dtype=torch.long), scores)
    (offsets,) = rows.finish()
    assert not offsets.isnan().any() and offsets[0, :3].isneginf().all() and not offsets[0, 3:].any()


def test_ppo_trains_on_served_rows(setting, tmp_path):
    """Our PPO (a GRPOTrainer that reads its values from a hook on the backbone) with the served rollouts: one
    backbone pass per scoring, so the values line up with the rows, and the steps run."""
    from rusty_hf import TinyRWKVForCausalLMWithValueHead
    from rusty_hf.trainers import PPOConfig, PPOTrainer

    folder, args, dataset, batch = setting
    config = PPOConfig(output_dir=str(tmp_path / "ppo"), max_steps=2, per_device_train_batch_size=4, steps_per_generation=1,
                       num_iterations=2, max_completion_length=40, learning_rate=1e-3, beta=0.05, logging_steps=1,
                       report_to="none", use_cpu=True, bf16=False, save_strategy="no", activation_checkpointing=False,
                       temperature=0.7, seed=0)  # fmt: skip

    rollouts = ServedRollouts(dataset, args.terminal_cache_dir)
    trainer = PPOTrainer(model=TinyRWKVForCausalLMWithValueHead.from_pretrained(folder), reward_funcs=length_reward,
                         args=config, train_dataset=batch, processing_class=_tokenizer(folder), rollout_func=rollouts)  # fmt: skip
    trainer.train()
    logs = [log for log in trainer.state.log_history if "ppo/value_loss" in log]
    assert logs and all(torch.isfinite(torch.tensor(log["ppo/value_loss"])) for log in logs)
    assert rollouts._scoring._matched[True]  # the served rows were scored as served


def test_grpo_trains_with_it_and_logs_the_gap(setting, tmp_path):
    """Two GRPO steps with the hook: terminal completions are valid actions, task rows are sampled freely, the
    forced fraction and the served-minus-model log-prob gap are logged, and the weights move."""
    _, args, dataset, _ = setting
    rollouts = ServedRollouts(dataset, args.terminal_cache_dir)
    trainer = _trainer(setting, tmp_path, rollouts)
    seen = []
    original = rollouts.__call__

    def spy(prompts, trainer_):
        out = original(prompts, trainer_)
        seen.append((prompts, out))
        return out

    trainer.rollout_func = spy
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainer.train()
    logs = [log for log in trainer.state.log_history if "rollout/forced_fraction" in log]
    assert logs and all(0 < log["rollout/forced_fraction"] < 1 for log in logs)
    assert all("rollout/served_minus_model_logp" in log for log in logs)
    tokenizer = trainer.processing_class
    for prompts, out in seen:
        assert len(out["completion_ids"]) == len(prompts)
        for prompt, ids, mask, logps in zip(prompts, out["completion_ids"], out["env_mask"], out["logprobs"]):
            assert len(ids) == len(mask) == len(logps)
            if rollouts.served(prompt):
                assert parse_action(tokenizer.decode(ids, skip_special_tokens=True)) is not None
            else:
                assert all(mask)
    assert any(not torch.equal(p.detach(), before[n]) for n, p in trainer.model.named_parameters())


def test_a_pointer_models_terminal_prompt_is_rolled_out_marked(setting, tmp_path):
    """A model trained with copy pointers reads its terminal prompts marked in RL as it does when served; a coding
    task's prompt stays as it is."""
    from rusty_hf.protocol.pointers import mark_conversation, pointer_targets

    _, args, dataset, batch = setting
    rollouts = ServedRollouts(dataset, args.terminal_cache_dir)
    trainer = _trainer(setting, tmp_path, rollouts)
    trainer.model.config.copy_pointers = True
    prompt = next(row["prompt"] for row in dataset if row["language"] == "terminal" and pointer_targets(row["prompt"][-1]["content"]))
    task = next(row["prompt"] for row in batch if row["language"] == "python")
    out = rollouts([prompt, task], trainer)
    marked, plain = trainer._tokenize_prompts([mark_conversation(prompt), task])[0]
    assert out["prompt_ids"] == [marked, plain]
    assert marked != trainer._tokenize_prompts([prompt])[0][0]
