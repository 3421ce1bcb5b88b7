"""PPOConfig: GRPOConfig's batching with one completion per prompt, and clear errors for bad PPO fields."""

import pytest

from rusty_hf.trainers import PPOConfig

BASE = {"output_dir": "unused", "use_cpu": True, "report_to": "none", "per_device_train_batch_size": 4}


def test_one_generation_per_prompt_is_accepted_and_the_rollout_maps_onto_grpo_batching():
    args = PPOConfig(**BASE, steps_per_generation=4, num_iterations=3)
    assert args.num_generations == 1
    assert (args.generation_batch_size, args.steps_per_generation, args.num_iterations) == (16, 4, 3)


def test_ddp_does_not_search_for_unused_parameters_by_default():
    # The value head's output reaches the loss beside the model's outputs; DDP's search would call it unused.
    assert PPOConfig(**BASE).ddp_find_unused_parameters is False


@pytest.mark.parametrize(
    "override, message",
    [
        ({"lam": 1.5}, "lam must be in [0, 1]"),
        ({"gamma": -0.1}, "gamma must be in [0, 1]"),
        ({"entropy_coef": 0.01, "entropy_floor": 0.1}, "must not exceed entropy_coef"),
        ({"entropy_decay": 0.0}, "entropy_decay must be in (0, 1]"),
        ({"cliprange_value": 0.0}, "or None to disable clipping"),
        ({"use_adaptive_entropy": True}, "Set use_adaptive_entropy: false"),
        ({"per_device_train_batch_size": 3}, "needs an even rollout"),
    ],
)
def test_bad_ppo_fields_fail_with_a_message_naming_the_fix(override, message):
    with pytest.raises(ValueError) as err:
        PPOConfig(**{**BASE, **override})
    assert message in str(err.value)
