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


def _trainer(setting, tmp_path, rollouts, **config):
    folder, _, _, batch = setting
    args = GRPOConfig(output_dir=str(tmp_path / "grpo"), max_steps=2, per_device_train_batch_size=4, num_generations=2,
                      max_completion_length=40, learning_rate=1e-3, beta=0.0, logging_steps=1, report_to="none",
                      use_cpu=True, save_strategy="no", temperature=0.7, seed=0, gradient_checkpointing=False, **config)  # fmt: skip

    def length_reward(completions, **kwargs):
        return [len(json.dumps(c)) / 100.0 for c in completions]

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
    misread = GRPOConfig(output_dir="unused", use_cpu=True, off_policy_mask_threshold=0.5)
    with pytest.raises(UserError, match="served_decoding false"):  # would read the decoder as policy drift
        served_rollouts(args, misread, dataset)
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
