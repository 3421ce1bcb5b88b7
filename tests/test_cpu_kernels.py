"""The compiled CPU paths of inference: packed few-row linear layers and the fused decoding step.

Each is checked against the PyTorch modules it replaces, and for falling back to them whenever
the modules are not the plain ones (hooks, replaced layers, autograd).
"""

import shutil

import pytest
import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.models.tiny_rwkv import cpu_decode, cpu_kernels, decoding_session, modeling_tiny_rwkv
from tests.conftest import randomise_zero_init, tiny_config

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler: PyTorch's operators serve")


@pytest.fixture(scope="module")
def kernel():
    module = cpu_kernels.load_kernel()
    assert module is not None, "a C++ compiler exists but the CPU kernels did not build (see the warning log)"
    return module


@pytest.mark.parametrize("rows", [1, 5, 6, 7, 16, 24, 25, 64, 301])
def test_packed_linear_equals_f_linear_at_every_tile_edge(kernel, rows):
    # 83 outputs: five full panels of 16 and a partial one; K = 37 is not a multiple of the vector width.
    # Up to 24 rows the tiles prefetch the next panel, from 25 on they do not.
    weight, x = torch.randn(83, 37), torch.randn(rows, 37)
    packed = cpu_kernels.packed_linear_weight(weight)
    torch.testing.assert_close(cpu_kernels.packed_linear(x, packed, 83), torch.nn.functional.linear(x, weight))


@pytest.mark.parametrize(("outputs", "rows"), [(2048, 1), (2048, 16), (24000, 16)])
def test_packed_linear_does_not_depend_on_the_thread_count(kernel, outputs, rows):
    weight, x = torch.randn(outputs, 512), torch.randn(rows, 512)
    packed = cpu_kernels.packed_linear_weight(weight)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = cpu_kernels.packed_linear(x, packed, outputs)
        torch.set_num_threads(2)
        two = cpu_kernels.packed_linear(x, packed, outputs)
    finally:
        torch.set_num_threads(threads)
    assert torch.equal(one, two)


@pytest.mark.parametrize("rows", [1, 16])
def test_a_packed_weight_of_2_mib_or_more_lives_in_its_own_memory_and_multiplies_the_same(kernel, rows):
    # 1,100 x 512 floats pack into 69 panels, 2.2 MiB: the huge-page allocation, freed with the tensor
    weight, x = torch.randn(1100, 512), torch.randn(rows, 512)
    packed = cpu_kernels.packed_linear_weight(weight)
    assert packed.untyped_storage().nbytes() >= 2 << 20
    want = torch.nn.functional.linear(x, weight)  # sums of 512 terms in another order: fp32 rounding apart
    torch.testing.assert_close(cpu_kernels.packed_linear(x, packed, 1100), want, rtol=1e-5, atol=1e-4)
    clone = packed.clone()
    del packed
    torch.testing.assert_close(cpu_kernels.packed_linear(x, clone, 1100), want, rtol=1e-5, atol=1e-4)


def test_a_weight_packed_for_other_shapes_is_refused(kernel):
    packed = cpu_kernels.packed_linear_weight(torch.randn(64, 48))
    with pytest.raises(RuntimeError, match="does not fit"):
        cpu_kernels.packed_linear(torch.randn(2, 48), packed, 96)  # more outputs than were packed
    with pytest.raises(RuntimeError, match="does not fit"):
        cpu_kernels.packed_linear(torch.randn(2, 32), packed, 64)  # another input width


def _decode(model, prompt, steps, fused=True):
    """Prefill `prompt`, then feed `steps` tokens one at a time in a decoding session (where the fused step
    may run); every step's logits and the state."""
    original = cpu_decode.fused_decode_params
    if not fused:
        modeling_tiny_rwkv.fused_decode_params = lambda *args: None
    try:
        with torch.no_grad(), decoding_session():
            out = model(prompt, use_cache=True)
            logits = [out.logits[:, -1]]
            for t in range(steps.shape[1]):
                out = model(steps[:, t : t + 1], state=out.state, use_cache=True)
                logits.append(out.logits[:, -1])
    finally:
        modeling_tiny_rwkv.fused_decode_params = original
    return torch.stack(logits, 1), out.state


def _fused(model, hidden, mask):
    return cpu_decode.fused_decode_params(model.model.blocks, hidden, mask, modeling_tiny_rwkv._BLOCK_TYPES)


@pytest.fixture
def model():
    torch.manual_seed(0)
    return randomise_zero_init(TinyRWKVForCausalLM(tiny_config(n_layers=3))).eval()


@pytest.mark.parametrize("batch", [1, 3])
def test_fused_decoding_step_equals_the_modules(kernel, model, batch):
    prompt, steps = torch.randint(2, 99, (batch, 6)), torch.randint(2, 99, (batch, 9))
    fused_logits, fused_state = _decode(model, prompt, steps)
    module_logits, module_state = _decode(model, prompt, steps, fused=False)
    torch.testing.assert_close(fused_logits, module_logits, rtol=1e-5, atol=1e-5)
    for got, want in zip(fused_state, module_state):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_fused_decoding_step_leaves_the_incoming_state_untouched(kernel, model):
    with torch.no_grad(), decoding_session():
        state = model(torch.randint(2, 99, (2, 5)), use_cache=True).state
        before = [s.clone() for s in state]
        model(torch.randint(2, 99, (2, 1)), state=state, use_cache=True)
    assert all(torch.equal(s, b) for s, b in zip(state, before))


def test_fused_decoding_step_follows_a_weight_update(kernel, model):
    prompt, steps = torch.randint(2, 99, (1, 4)), torch.randint(2, 99, (1, 3))
    before, _ = _decode(model, prompt, steps)
    with torch.no_grad():
        model.model.blocks[1].ffn.value.weight.mul_(3.0)  # an optimizer step between two generations
        model.model.blocks[0].ln2.weight.add_(0.5)
    after, _ = _decode(model, prompt, steps)
    reference, _ = _decode(model, prompt, steps, fused=False)
    assert not torch.allclose(after, before)
    torch.testing.assert_close(after, reference, rtol=1e-5, atol=1e-5)


def test_a_hooked_layer_runs_its_own_forward(kernel, model):
    calls = []
    handle = model.model.blocks[0].att.key.register_forward_hook(lambda *args: calls.append(1))
    try:
        _decode(model, torch.randint(2, 99, (1, 3)), torch.randint(2, 99, (1, 4)))
    finally:
        handle.remove()
    assert len(calls) == 5  # the prompt and each of the 4 steps


def test_a_replaced_layer_runs_its_own_forward(kernel, model):
    class Doubled(torch.nn.Linear):  # what peft and quantizers do: a different module in the same place
        def forward(self, x):
            return 2 * super().forward(x)

    prompt, steps = torch.randint(2, 99, (1, 3)), torch.randint(2, 99, (1, 4))
    old = model.model.blocks[1].att.output
    new = Doubled(old.in_features, old.out_features, bias=False)
    new.load_state_dict(old.state_dict())
    _decode(model, prompt, steps)  # builds and caches the fused plan with the plain layer
    model.model.blocks[1].att.output = new
    fused, _ = _decode(model, prompt, steps)
    reference, _ = _decode(model, prompt, steps, fused=False)
    torch.testing.assert_close(fused, reference)
    with torch.no_grad(), decoding_session():
        assert _fused(model, torch.zeros(1, 1, 32), None) is None


def test_autograd_padding_autocast_and_calls_outside_a_session_take_the_module_path(kernel, model):
    hidden = torch.zeros(2, 1, 32)
    with torch.no_grad(), decoding_session():
        assert _fused(model, hidden, None) is not None
        assert _fused(model, hidden, torch.tensor([[1], [0]])) is None
        assert _fused(model, torch.zeros(2, 3, 32), None) is None
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert _fused(model, hidden, None) is None
    with decoding_session():
        assert _fused(model, hidden, None) is None  # grad enabled
    with torch.no_grad():  # no session: nothing promises the weights stay as they are
        assert _fused(model, hidden, None) is None


def test_generate_runs_the_fused_step(kernel, model, monkeypatch):
    calls = []
    original = cpu_decode.decode_step
    monkeypatch.setattr(modeling_tiny_rwkv, "decode_step", lambda *args: calls.append(1) or original(*args))
    model.generate(torch.randint(2, 99, (2, 4)), max_new_tokens=5, min_new_tokens=5, do_sample=False)
    assert len(calls) == 4  # every step after the prompt


@pytest.mark.parametrize("num_items_in_batch", [None, torch.tensor(40)])
def test_causal_lm_loss_equals_transformers_loss_and_gradient(kernel, num_items_in_batch):
    from transformers.loss.loss_utils import ForCausalLMLoss

    logits = (torch.randn(3, 17, 1003) * 5).requires_grad_()
    logits.data[1, 2, 500:] = float("-inf")  # a masked vocabulary slice
    labels = torch.randint(0, 1003, (3, 17))
    labels[0, :5] = -100  # prompt tokens
    want = ForCausalLMLoss(logits, labels, 1003, num_items_in_batch=num_items_in_batch)
    got = modeling_tiny_rwkv.causal_lm_loss(logits, labels, 1003, num_items_in_batch=num_items_in_batch)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(torch.autograd.grad(got, logits)[0], torch.autograd.grad(want, logits)[0])


def test_cross_entropy_rejects_a_target_outside_the_vocabulary(kernel):
    with pytest.raises(IndexError, match="outside"):
        cpu_kernels.cross_entropy(torch.randn(2, 10), torch.tensor([3, 10]))


def test_relu_square_equals_autograd(kernel):
    x = torch.randn(4, 7, 300, requires_grad=True)
    grad = torch.randn(4, 7, 300)
    want = torch.square(torch.relu(x))
    got = cpu_kernels.relu_square(x)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(torch.autograd.grad(got, x, grad)[0], torch.autograd.grad(want, x, grad)[0])


def test_a_custom_loss_function_is_used_instead(model):
    model.loss_function = lambda logits, labels, **kwargs: logits.sum() * 0 + 7.0
    ids = torch.randint(2, 99, (2, 5))
    assert model(ids, labels=ids).loss.item() == 7.0


def test_a_logits_gradient_still_in_use_is_never_handed_out_again(kernel):
    # 200 x 24,000 floats: above the size at which the kernel recycles the freed gradient buffer
    grads = []
    for seed in range(3):
        logits = torch.randn(200, 24000, generator=torch.Generator().manual_seed(seed)).requires_grad_()
        target = torch.randint(0, 24000, (200,), generator=torch.Generator().manual_seed(seed))
        grad = torch.autograd.grad(cpu_kernels.cross_entropy(logits, target), logits)[0]
        want = torch.autograd.grad(torch.nn.functional.cross_entropy(logits, target), logits)[0]
        torch.testing.assert_close(grad, want)
        grads.append((grad, want))
        if seed == 1:
            del grads[0]  # freed: its buffer may serve the next call
    for grad, want in grads:  # the ones kept alive were not overwritten
        torch.testing.assert_close(grad, want)
