"""The WKV operator (wkv_torch, the C++ kernel) and `wkv`, its dispatcher and custom op, against the reference."""

import importlib
import shutil

import pytest
import torch

from rusty_hf.models.tiny_rwkv import cpu_kernels
from rusty_hf.models.tiny_rwkv.wkv import WKVFunction, empty_wkv_state, wkv, wkv_backend, wkv_reference
from tests.conftest import wkv_inputs

wkv_module = importlib.import_module("rusty_hf.models.tiny_rwkv.wkv")  # the package exports a function `wkv`


def _state(B, C, dtype):
    return tuple(s.to(dtype) for s in empty_wkv_state(B, C))


def test_gradcheck_float64():
    w, u, k, v = wkv_inputs()
    a, b, p = _state(2, 5, torch.float64)
    assert torch.autograd.gradcheck(lambda *x: WKVFunction.apply(*x, a, b, p, None)[0], (w, u, k, v))


def test_gradcheck_float64_with_left_padding_mask():
    w, u, k, v = wkv_inputs()
    mask = torch.tensor([[0, 0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1]])
    a, b, p = _state(2, 5, torch.float64)
    assert torch.autograd.gradcheck(lambda *x: WKVFunction.apply(*x, a, b, p, mask)[0], (w, u, k, v))


def test_gradients_match_autograd_through_the_reference_loop_with_large_keys():
    w, u, k, v = wkv_inputs(T=12, key_scale=25.0)
    gy = torch.randn(2, 12, 5, dtype=torch.float64)
    y_ref, _ = wkv_reference(w, u, k, v)
    y, _ = wkv(w, u, k, v)
    torch.testing.assert_close(y.double(), y_ref, rtol=0, atol=1e-5)
    want = torch.autograd.grad((y_ref * gy).sum(), (w, u, k, v))
    got = torch.autograd.grad((y.double() * gy).sum(), (w, u, k, v))
    for g, r in zip(got, want):
        torch.testing.assert_close(g, r, rtol=1e-4, atol=1e-4)


def test_carried_state_equals_one_long_run():
    w, u, k, v = (x.detach().float() for x in wkv_inputs(T=10, dtype=torch.float32))
    y_all, s_all = wkv(w, u, k, v)
    y1, s1 = wkv(w, u, k[:, :4], v[:, :4])
    y2, s2 = wkv(w, u, k[:, 4:], v[:, 4:], state=s1)
    torch.testing.assert_close(torch.cat([y1, y2], 1), y_all, rtol=0, atol=1e-6)
    for got, want in zip(s2, s_all):
        torch.testing.assert_close(got, want, rtol=0, atol=1e-6)


def test_huge_keys_stay_finite_in_float32():
    w, u, k, v = wkv_inputs(T=64, dtype=torch.float32, key_scale=80.0)  # e^80 overflows float32
    y, state = wkv(w, u, k, v)
    y.sum().backward()
    assert torch.isfinite(y).all() and all(torch.isfinite(s).all() for s in state)
    assert all(torch.isfinite(x.grad).all() for x in (w, u, k, v))


def test_masked_positions_leave_the_state_untouched_and_output_zero():
    w, u, k, v = (x.detach() for x in wkv_inputs(B=1, T=6))
    mask = torch.tensor([[1, 1, 0, 0, 1, 1]])
    y, state = wkv(w, u, k, v, mask=mask)
    keep = mask[0].bool()
    y_ref, state_ref = wkv(w, u, k[:, keep], v[:, keep])
    assert not y[0, ~keep].any()
    torch.testing.assert_close(y[:, keep], y_ref)
    for got, want in zip(state, state_ref):
        torch.testing.assert_close(got, want)


# --- the compiled CPU kernel (cpu_kernels) -------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel():
    if shutil.which("c++") is None:
        pytest.skip("no C++ compiler on this machine: the PyTorch operator is the only path")
    module = cpu_kernels.load_kernel()
    assert module is not None, "a C++ compiler exists but the WKV kernel did not build (see the warning log)"
    return module


def test_cpu_kernel_gradcheck_float64_with_mask_and_carried_state(kernel):
    w, u, k, v = wkv_inputs(C=70)  # 70 channels: one full block of 64 and a partial one
    mask = torch.tensor([[0, 0, 1, 1, 0, 1, 1], [1, 1, 1, 1, 1, 1, 1]])
    a, b, p = (torch.rand(2, 70, dtype=torch.float64), torch.rand(2, 70, dtype=torch.float64) + 1, torch.zeros(2, 70, dtype=torch.float64))
    assert torch.autograd.gradcheck(lambda *x: cpu_kernels.WKVCpuFunction.apply(*x, a, b, p, mask)[0], (w, u, k, v))


def test_cpu_kernel_matches_the_pytorch_operator_in_float32(kernel):
    w, u, k, v = (x.detach().float().requires_grad_() for x in wkv_inputs(T=33, C=130, key_scale=20.0))
    mask = (torch.rand(2, 33) > 0.2).long()
    state = empty_wkv_state(2, 130)
    outs = [fn.apply(w, u, k, v, *state, mask) for fn in (WKVFunction, cpu_kernels.WKVCpuFunction)]
    for got, want in zip(outs[1], outs[0]):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    gy = torch.randn(2, 33, 130)
    grads = [torch.autograd.grad((o[0] * gy).sum(), (w, u, k, v)) for o in outs]
    for got, want in zip(grads[1], grads[0]):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_dispatcher_falls_back_to_the_pytorch_operator_without_the_kernel(monkeypatch):
    w, u, k, v = (x.detach().float() for x in wkv_inputs(T=9))
    with_kernel, _ = wkv(w, u, k, v)
    monkeypatch.setattr(cpu_kernels, "_tried", True)
    monkeypatch.setattr(cpu_kernels, "_kernel", None)
    without, _ = wkv(w, u, k, v)
    torch.testing.assert_close(without, with_kernel, rtol=1e-5, atol=1e-6)


# --- the dispatcher: backend choice and the custom op ------------------------------------------------


@pytest.fixture
def backend(request, monkeypatch):
    """RUSTY_WKV_BACKEND set to the parameter, with torch.compile's caches cleared around the test."""
    if request.param == "cpp" and cpu_kernels.load_kernel() is None:
        pytest.skip("the C++ kernel is unavailable here")
    monkeypatch.setenv("RUSTY_WKV_BACKEND", request.param)
    torch._dynamo.reset()  # the backend is read when a graph is traced
    yield request.param
    torch._dynamo.reset()


def test_auto_takes_the_cpp_kernel_on_cpu_and_torch_with_kernels_off(monkeypatch):
    monkeypatch.delenv("RUSTY_WKV_BACKEND", raising=False)
    assert wkv_backend("cpu") == ("cpp" if cpu_kernels.load_kernel() is not None else "torch")
    monkeypatch.setenv("RUSTY_CPU_KERNELS", "off")
    monkeypatch.setattr(cpu_kernels, "_tried", False)  # load_kernel reads the switch on its first call
    monkeypatch.setattr(cpu_kernels, "_kernel", None)
    assert wkv_backend("cpu") == "torch"


@pytest.mark.parametrize("backend", ["torch", "cpp"], indirect=True)
def test_the_env_var_forces_a_backend(backend, monkeypatch):
    calls = []
    for name in ("wkv_torch_forward", "wkv_cpu_forward"):
        original = getattr(wkv_module, name)
        monkeypatch.setattr(wkv_module, name, lambda *a, _f=original, _n=name: calls.append(_n) or _f(*a))
    w, u, k, v = (x.detach().float() for x in wkv_inputs(T=9))
    y, _ = wkv(w, u, k, v)
    assert calls == [{"torch": "wkv_torch_forward", "cpp": "wkv_cpu_forward"}[backend]]
    torch.testing.assert_close(y, wkv_reference(w, u, k, v)[0], rtol=0, atol=1e-5)


def test_forcing_cpp_on_cuda_tensors_names_the_fix(monkeypatch):
    monkeypatch.setenv("RUSTY_WKV_BACKEND", "cpp")
    with pytest.raises(RuntimeError, match="CPU tensors only.*RUSTY_WKV_BACKEND=auto"):
        wkv_backend("cuda")


def test_an_unknown_backend_name_is_rejected(monkeypatch):
    monkeypatch.setenv("RUSTY_WKV_BACKEND", "cuda")
    with pytest.raises(ValueError, match="auto, triton, cpp, torch"):
        wkv_backend("cpu")


@pytest.mark.parametrize("backend", ["torch", "cpp"], indirect=True)
def test_the_custom_op_compiles_without_graph_breaks_and_matches_eager(backend):
    w, u, k, v = (x.detach().float().requires_grad_() for x in wkv_inputs(T=9, C=6, key_scale=5.0))
    w, u = w.view(1, 1, 6), u.view(1, 1, 6)  # gradients must come back in exactly these shapes
    mask = torch.tensor([[0, 0, 1, 1, 1, 1, 1, 1, 1], [1] * 9])

    def run(w, u, k, v):
        y, (a, b, p) = wkv(w, u, k, v, mask=mask)
        return (y * torch.linspace(-1, 1, 6)).sum() + a.sum(), p

    results = []
    for fn in (run, torch.compile(run, backend="aot_eager", fullgraph=True)):
        loss, p = fn(w, u, k, v)
        results.append((loss, p, *torch.autograd.grad(loss, (w, u, k, v))))
    for got, want in zip(*reversed(results)):
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


def test_reimporting_the_module_reuses_its_registered_ops():
    importlib.reload(wkv_module)  # a re-executed module (transformers does this for changed remote code)
    w, u, k, v = (x.detach().float() for x in wkv_inputs())
    torch.testing.assert_close(wkv_module.wkv(w, u, k, v)[0], wkv_reference(w, u, k, v)[0], rtol=0, atol=1e-5)
