"""Inverse-CDF sampling inside `generate` on CPU (rusty_hf/models/tiny_rwkv/sampling.py): the distribution
torch.multinomial draws from, torch's own function outside a decoding session, torch's errors kept."""

import pytest
import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.models.tiny_rwkv import decoding_session, sampling
from tests.conftest import randomise_zero_init, tiny_config


@pytest.fixture(autouse=True)
def _wrapped():
    sampling.install()
    sampling.install()  # idempotent
    assert torch.multinomial._rusty_inverse_cdf


def test_draws_follow_the_weights_and_never_pick_a_zero_weight():
    torch.manual_seed(0)
    weights = torch.tensor([[0.0, 1.0, 2.0, 0.0, 5.0, 2.0], [3.0, 0.0, 0.0, 0.0, 0.0, 1.0]])
    n = 20_000
    with decoding_session():
        draws = torch.stack([torch.multinomial(weights, 1) for _ in range(n)])  # (n, rows, 1)
    assert draws.shape == (n, 2, 1) and draws.dtype == torch.long
    for row, w in enumerate(weights):
        counts = torch.bincount(draws[:, row, 0], minlength=6).float()
        p = w / w.sum()
        assert counts[w == 0].sum() == 0
        # each count within 5 binomial standard deviations of n * p
        assert ((counts - n * p).abs() <= 5 * (n * p * (1 - p)).sqrt() + 1).all(), (counts, n * p)


def test_outside_a_session_and_off_cpu_shapes_torch_decides():
    weights = torch.tensor([[1.0, 2.0, 3.0]])
    torch.manual_seed(3)
    ours_outside = torch.multinomial(weights, 1)
    torch.manual_seed(3)
    torchs = torch.multinomial._rusty_original(weights, 1)
    assert torch.equal(ours_outside, torchs)  # the same stream: torch's own draw
    with decoding_session():
        torch.manual_seed(3)
        two = torch.multinomial(weights, 2)  # more than one sample: torch's
        torch.manual_seed(3)
        assert torch.equal(two, torch.multinomial._rusty_original(weights, 2))


@pytest.mark.parametrize("bad", [[[1.0, -1.0, 2.0]], [[0.0, 0.0, 0.0]], [[1.0, float("nan"), 1.0]],
                                 [[1.0, float("inf"), 1.0]]])
def test_rows_torch_refuses_raise_torchs_error(bad):
    with decoding_session(), pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor(bad), 1)


def test_generate_samples_reproducibly_from_a_seed():
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config())).eval()
    prompt = torch.randint(2, 99, (4, 5))

    def sample():
        torch.manual_seed(7)
        return model.generate(prompt, do_sample=True, temperature=1.0, top_k=0, max_new_tokens=12, min_new_tokens=12)

    first = sample()
    assert torch.equal(first, sample())
    assert first.shape == (4, 17)


def test_rusty_cpu_sampling_off_leaves_the_draw_to_torch(monkeypatch):
    weights = torch.tensor([[1.0, 2.0, 3.0]])
    monkeypatch.setenv("RUSTY_CPU_SAMPLING", "off")
    with decoding_session():
        torch.manual_seed(3)
        ours = torch.multinomial(weights, 1)
    torch.manual_seed(3)
    assert torch.equal(ours, torch.multinomial._rusty_original(weights, 1))
