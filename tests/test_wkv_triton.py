"""The Triton WKV kernels (wkv_triton) against the reference, and `wkv` running them.

On a machine with CUDA they run on the GPU; without one, in Triton's CPU interpreter, which
tests/conftest.py switches on (TRITON_INTERPRET=1) before anything imports triton. Shapes are tiny
because the interpreter runs every lane in numpy.
"""

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from rusty_hf.models.tiny_rwkv.wkv import empty_wkv_state, wkv, wkv_backend, wkv_reference
from tests.conftest import wkv_inputs

wkv_module = importlib.import_module("rusty_hf.models.tiny_rwkv.wkv")  # the package exports a function `wkv`
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LEFT_PADDING = torch.tensor([[0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1], [1] * 12], device=DEVICE)
# Padding at the first and last steps and in between: the edges of the kernels' software pipeline (the
# step loaded ahead of the loop, the clamped load after the last step) and selects in both directions.
HOLES = torch.tensor([[1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]], device=DEVICE)


@pytest.fixture(scope="module")
def kernels():
    pytest.importorskip("triton", reason="triton is not installed: `pip install triton` to test its kernels")
    module = importlib.import_module("rusty_hf.models.tiny_rwkv.wkv_triton")
    if DEVICE.type == "cpu" and not module.INTERPRETED:
        pytest.skip("triton was imported before TRITON_INTERPRET=1 was set (tests/conftest.py sets it first)")
    return module


@pytest.fixture
def triton_backend(kernels, monkeypatch):
    """`wkv` with RUSTY_WKV_BACKEND=triton."""
    monkeypatch.setenv("RUSTY_WKV_BACKEND", "triton")
    assert wkv_module.triton_kernels() is not None
    torch._dynamo.reset()  # the backend is read when a graph is traced
    yield
    torch._dynamo.reset()


def _float32(*tensors):
    """Float32 leaves on the test device (the reference keeps running on the CPU)."""
    return [x.detach().to(DEVICE, torch.float32).requires_grad_() for x in tensors]


def _run(kernels, w, u, k, v, state=None, mask=None):
    B, _, C = k.shape
    state = state or empty_wkv_state(B, C, DEVICE)
    y, a, b, p = kernels.WKVTritonFunction.apply(w, u, k, v, *state, mask)
    return y.cpu(), (a.cpu(), b.cpu(), p.cpu())


def _reference(w, u, k, v, state=None, mask=None):
    to_cpu = lambda xs: None if xs is None else tuple(x.cpu() for x in xs)  # noqa: E731
    y, state = wkv_reference(*to_cpu((w, u, k, v)), state=to_cpu(state), mask=None if mask is None else mask.cpu())
    return y, state


def test_forward_matches_the_reference(kernels):
    w, u, k, v = _float32(*wkv_inputs(T=12, C=40))  # 40 channels: a partial block of 32
    torch.testing.assert_close(_run(kernels, w, u, k, v)[0], _reference(w, u, k, v)[0], rtol=0, atol=1e-5)


def test_incoming_state_carries_into_outputs_and_final_state(kernels):
    w, u, k, v = _float32(*wkv_inputs(T=9, C=24))
    gen = torch.Generator().manual_seed(1)
    state = tuple(x.to(DEVICE) for x in (torch.rand(2, 24, generator=gen), torch.rand(2, 24, generator=gen) + 1,
                                         torch.randn(2, 24, generator=gen)))
    y, final = _run(kernels, w, u, k, v, state=state)
    y_ref, final_ref = _reference(w, u, k, v, state=state)
    torch.testing.assert_close(y, y_ref, rtol=0, atol=1e-5)
    for got, want in zip(final, final_ref):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_bf16_keys_and_values_are_read_and_computed_in_float32(kernels):
    w, u, k, v = _float32(*wkv_inputs(T=10, C=32, key_scale=5.0))
    k16, v16 = k.detach().bfloat16(), v.detach().bfloat16()
    y, _ = _run(kernels, w, u, k16, v16)
    assert y.dtype == torch.float32
    torch.testing.assert_close(y, _reference(w, u, k16.float(), v16.float())[0], rtol=0, atol=1e-5)


def test_large_keys_are_exact_thanks_to_the_running_maximum(kernels):
    w, u, k, v = wkv_inputs(T=16, C=24, key_scale=20.0)  # |k| up to ~60: e^60 is far past float32's range
    assert k.abs().max() > 45
    y, state = _run(kernels, *_float32(w, u, k, v))
    y_ref, state_ref = _reference(w, u, k, v)
    torch.testing.assert_close(y.double(), y_ref, rtol=0, atol=1e-5)
    torch.testing.assert_close(state[2].double(), state_ref[2], rtol=1e-6, atol=0)  # the exponents


@pytest.mark.parametrize("mask", [LEFT_PADDING, HOLES], ids=["left-padding", "holes"])
def test_padded_steps_output_zero_keep_the_state_and_match_the_reference(kernels, mask):
    w, u, k, v = _float32(*wkv_inputs(T=12, C=40, key_scale=5.0))
    y, state = _run(kernels, w, u, k, v, mask=mask)
    y_ref, state_ref = _reference(w, u, k, v, mask=mask)
    assert not y[mask.cpu() == 0].any()
    torch.testing.assert_close(y, y_ref, rtol=0, atol=1e-5)
    for got, want in zip(state, state_ref):
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("T,mask", [(1, None), (1, torch.tensor([[0], [1]], device=DEVICE))], ids=["T1", "T1-masked"])
def test_a_single_step_is_exact_forward_and_backward(kernels, T, mask):
    w, u, k, v = wkv_inputs(T=T, C=24, key_scale=5.0)
    # one step: y never sees w (the decay acts between steps), so its gradient is zero
    want = torch.autograd.grad(_reference(w, u, k, v, mask=mask)[0].sum(), (w, u, k, v), allow_unused=True)
    inputs = _float32(w, u, k, v)
    y, _ = _run(kernels, *inputs, mask=mask)
    torch.testing.assert_close(y.double(), _reference(w, u, k, v, mask=mask)[0].detach(), rtol=0, atol=1e-5)
    for g, r, x in zip(torch.autograd.grad(y.sum(), inputs), want, (w, u, k, v)):
        torch.testing.assert_close(g.double(), torch.zeros_like(x) if r is None else r, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mask", [None, LEFT_PADDING, HOLES], ids=["no-mask", "left-padding", "holes"])
def test_gradients_match_autograd_through_the_reference_loop(kernels, mask):
    w, u, k, v = wkv_inputs(T=12, C=24, key_scale=10.0)
    gy = torch.randn(2, 12, 24, dtype=torch.float64)
    want = torch.autograd.grad((_reference(w, u, k, v, mask=mask)[0] * gy).sum(), (w, u, k, v))
    inputs = _float32(w, u, k, v)
    y, _ = _run(kernels, *inputs, mask=mask)
    got = torch.autograd.grad((y.double() * gy).sum(), inputs)
    for g, r in zip(got, want):
        torch.testing.assert_close(g.double().cpu(), r, rtol=1e-4, atol=1e-4)


def test_bf16_gradients_are_the_float32_ones_rounded_to_bf16(kernels):
    w, u, k, v = _float32(*wkv_inputs(T=6, C=32))
    k16, v16 = (x.detach().bfloat16().requires_grad_() for x in (k, v))
    k32, v32 = (x.detach().float().requires_grad_() for x in (k16, v16))
    got = torch.autograd.grad(_run(kernels, w, u, k16, v16)[0].sum(), (w, u, k16, v16))
    want = torch.autograd.grad(_run(kernels, w, u, k32, v32)[0].sum(), (w, u, k32, v32))
    assert [g.dtype for g in got] == [torch.float32, torch.float32, torch.bfloat16, torch.bfloat16]
    for g, r in zip(got, want):
        torch.testing.assert_close(g.float(), r, rtol=2**-7, atol=1e-6)  # within a bf16 ulp: one rounding


def test_chunks_with_carried_state_equal_one_run(kernels):
    w, u, k, v = _float32(*wkv_inputs(T=15, C=24, key_scale=5.0))
    y_all, s_all = _run(kernels, w, u, k, v)
    y1, s1 = _run(kernels, w, u, k[:, :6], v[:, :6])
    y2, s2 = _run(kernels, w, u, k[:, 6:], v[:, 6:], state=tuple(x.to(DEVICE) for x in s1))
    torch.testing.assert_close(torch.cat([y1, y2], 1), y_all, rtol=0, atol=1e-6)
    for got, want in zip(s2, s_all):
        torch.testing.assert_close(got, want, rtol=0, atol=1e-6)


# --- time chunks: the same function cut along T (what a GPU runs when rows x channels cannot fill it) -------

# Padding at a chunk's first and last step, a chunk with no real step at all (steps 4-7 of row 0 at 4 a chunk)
# and a row with every step real.
CHUNK_HOLES = torch.tensor([[0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1], [1] * 15], device=DEVICE)


@pytest.mark.parametrize("length", [1, 4, 6])
@pytest.mark.parametrize("mask", [None, CHUNK_HOLES], ids=["no-mask", "holes"])
def test_time_chunks_give_the_reference_outputs_state_and_gradients(kernels, monkeypatch, length, mask):
    """Forced chunk lengths (1: every step its own chunk; 6: a short last chunk), an incoming state, keys large
    enough to need the running maximum: outputs, final state and every gradient as the reference computes them."""
    monkeypatch.setenv(kernels.CHUNK_ENV, str(length))
    w, u, k, v = wkv_inputs(T=15, C=40, key_scale=8.0)
    gen = torch.Generator().manual_seed(2)
    state = (torch.rand(2, 40, generator=gen, dtype=torch.float64), torch.rand(2, 40, generator=gen, dtype=torch.float64) + 1,
             torch.randn(2, 40, generator=gen, dtype=torch.float64) * 3)
    gy = torch.randn(2, 15, 40, generator=gen, dtype=torch.float64)
    y_ref, state_ref = _reference(w, u, k, v, state=state, mask=mask)
    want = torch.autograd.grad((y_ref * gy).sum(), (w, u, k, v))
    inputs = _float32(w, u, k, v)
    y, final = _run(kernels, *inputs, state=tuple(x.float().to(DEVICE) for x in state), mask=mask)
    torch.testing.assert_close(y.double(), y_ref.detach(), rtol=0, atol=1e-5)
    for got, ref in zip(final, state_ref):
        torch.testing.assert_close(got.double(), ref.detach(), rtol=1e-5, atol=1e-5)
    got = torch.autograd.grad((y.double() * gy.to(y.device)).sum(), inputs)
    for g, r in zip(got, want):
        torch.testing.assert_close(g.double().cpu(), r, rtol=1e-4, atol=1e-4)


def test_time_chunks_match_one_pass_in_bf16(kernels, monkeypatch):
    """bf16 keys and values (what training under autocast feeds): chunked and one-pass results within float32
    rounding of each other, gradients within one bf16 rounding."""
    w, u, k, v = _float32(*wkv_inputs(T=20, C=24, key_scale=5.0))
    k16, v16 = (x.detach().bfloat16().requires_grad_() for x in (k, v))
    runs = []
    for length in ("off", "5"):
        monkeypatch.setenv(kernels.CHUNK_ENV, length)
        y, state = _run(kernels, w, u, k16, v16, mask=LEFT_PADDING.repeat(1, 2)[:, :20])
        runs.append((y, *state, *torch.autograd.grad((y * torch.linspace(-1, 1, 24)).sum(), (w, u, k16, v16))))
    for got, want in zip(*runs):
        torch.testing.assert_close(got.float(), want.float(), rtol=2**-7, atol=1e-5)


def test_chunk_length_is_one_pass_off_the_gpu_and_for_short_rows(kernels, monkeypatch):
    monkeypatch.delenv(kernels.CHUNK_ENV, raising=False)
    assert kernels.chunk_length(8, 1024, 512, torch.device("cpu")) == 1024
    monkeypatch.setenv(kernels.CHUNK_ENV, "off")
    assert kernels.chunk_length(8, 1024, 512, torch.device("cpu")) == 1024
    monkeypatch.setenv(kernels.CHUNK_ENV, "64")
    assert kernels.chunk_length(8, 1024, 512, torch.device("cpu")) == 64
    monkeypatch.delenv(kernels.CHUNK_ENV)
    monkeypatch.setitem(kernels._sm_counts, 0, 132)  # an H200's multiprocessors, without a GPU
    cuda = torch.device("cuda", 0)
    assert kernels.chunk_length(8, 1024, 512, cuda) == 32  # 4,096 channels x 32 chunks: 1,024 a multiprocessor
    assert kernels.chunk_length(1, 4096, 512, cuda) == kernels.MIN_CHUNK  # one packed row: 128 chunks
    assert kernels.chunk_length(64, 1024, 512, cuda) == 205  # 32,768 channels: 5 chunks fill the GPU
    assert kernels.chunk_length(8, 100, 512, cuda) == 100  # too short for 4 chunks of 32: one pass
    assert kernels.chunk_length(256, 1024, 512, cuda) == 1024  # rows x channels already fill the GPU
    assert kernels.chunk_length(0, 1024, 512, cuda) == 1024  # an empty batch: one (empty) pass
    monkeypatch.setenv(kernels.CHUNK_ENV, "auto")
    assert kernels.chunk_length(8, 1024, 512, cuda) == 32
    monkeypatch.setenv(kernels.CHUNK_ENV, "fast")
    with pytest.raises(ValueError, match="RUSTY_WKV_CHUNK"):
        kernels.chunk_length(8, 1024, 512, cuda)


# --- the dispatcher (wkv.wkv) with the triton backend --------------------------------------------------


def test_the_env_var_routes_wkv_through_the_triton_kernels(kernels, triton_backend, monkeypatch):
    calls = []
    patched = wkv_module._triton._replace(forward=lambda *a: calls.append(1) or kernels.wkv_triton_forward(*a))
    monkeypatch.setattr(wkv_module, "_triton", patched)
    w, u, k, v = _float32(*wkv_inputs(T=8, C=16))
    y, _ = wkv(w, u, k, v, mask=LEFT_PADDING[:, :8])
    assert calls == [1]
    torch.testing.assert_close(y, _reference(w, u, k, v, mask=LEFT_PADDING[:, :8])[0], rtol=0, atol=1e-5)


def test_auto_picks_triton_for_cuda_tensors(kernels, triton_backend, monkeypatch):
    monkeypatch.setenv("RUSTY_WKV_BACKEND", "auto")
    assert wkv_backend("cuda") == "triton"


def test_forcing_triton_on_cpu_without_the_interpreter_names_the_fix(kernels, triton_backend, monkeypatch):
    monkeypatch.setattr(wkv_module, "_triton", wkv_module._triton._replace(interpreted=False))
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"):
        wkv(*(x.detach().float() for x in wkv_inputs()))  # CPU tensors


def test_the_custom_op_compiles_without_graph_breaks_and_matches_eager(kernels, triton_backend):
    w, u, k, v = _float32(*wkv_inputs(T=8, C=16, key_scale=5.0))
    mask = LEFT_PADDING[:, :8]
    k16 = k.detach().bfloat16().requires_grad_()  # the triton path keeps k's dtype: its gradient too

    def run(w, u, k, v):
        y, (a, b, p) = wkv(w, u, k, v, mask=mask)
        return (y * torch.linspace(-1, 1, y.shape[-1], device=y.device)).sum() + a.sum(), b

    compiled = torch.compile(run, backend="aot_eager", fullgraph=True)
    for fn in (run, compiled):
        loss, b = fn(w, u, k16, v)
        grads = torch.autograd.grad(loss, (w, u, k16, v))
        if fn is run:
            want = (loss, b, *grads)
        else:
            for got, ref in zip((loss, b, *grads), want):
                assert got.dtype == ref.dtype and got.shape == ref.shape
                torch.testing.assert_close(got, ref, rtol=1e-6, atol=1e-6)


# --- the real compiler ----------------------------------------------------------------------------------

_COMPILE_FOR_H100 = textwrap.dedent(
    r"""
    import json, re
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from rusty_hf.models.tiny_rwkv import wkv_triton


    def time_loop(ptx):
        # the loop over time: from the label its back-edge branches to, up to that branch's line
        back = re.findall(r"@%p\d+ bra\s+(\$L__BB\d+_\d+);", ptx)[-1]
        body = ptx[ptx.index(back + ":"):ptx.rindex(back + ";")]
        lines = [line.strip() for line in body[:body.rindex("\n")].splitlines()]
        first_exp = next(i for i, line in enumerate(lines) if "ex2" in line)
        return {"branches": sum(" bra" in line for line in lines),
                "loads_before_math": sum("ld.global" in line for line in lines[:first_exp]),
                "loads_after_math": sum("ld.global" in line for line in lines[first_exp:]),
                "selects": sum("selp" in line for line in lines)}


    assert not wkv_triton.INTERPRETED
    bf16 = ("k_ptr", "v_ptr", "gk_ptr", "gv_ptr")
    variants = {  # name: (kernel, pointer arguments, constexprs)
        "_wkv_forward_kernel": (wkv_triton._wkv_forward_kernel, 16, {"SAVE_STATES": True, "LOCAL": False}),
        "_wkv_forward_kernel/local": (wkv_triton._wkv_forward_kernel, 16, {"SAVE_STATES": False, "LOCAL": True}),
        "_wkv_backward_kernel": (wkv_triton._wkv_backward_kernel, 17, {"LOCAL": False, "HAS_INIT": False}),
        "_wkv_backward_kernel/chunk": (wkv_triton._wkv_backward_kernel, 17, {"LOCAL": False, "HAS_INIT": True}),
        "_wkv_backward_kernel/local": (wkv_triton._wkv_backward_kernel, 17, {"LOCAL": True, "HAS_INIT": False}),
        "_wkv_carry_kernel": (wkv_triton._wkv_carry_kernel, 11, {"HAS_S0": True, "BACKWARD": False}),
        "_wkv_carry_kernel/backward": (wkv_triton._wkv_carry_kernel, 11, {"HAS_S0": False, "BACKWARD": True}),
    }
    loops = {}
    for name, (kernel, n_pointers, constexprs) in variants.items():
        for masked in (False, True):
            values = constexprs | {"HAS_MASK": masked, "BLOCK_C": 64}
            signature = {arg: "*fp32" for arg in kernel.arg_names[:n_pointers]}
            signature.update({arg: "*bf16" for arg in bf16 if arg in signature})
            signature.update({arg: "i32" for arg in kernel.arg_names[n_pointers:] if arg not in values})
            signature.update({arg: "constexpr" for arg in values})
            if "mask_ptr" in signature:
                signature["mask_ptr"] = "*i8"
            compiled = triton.compile(ASTSource(kernel, signature, constexprs=values), target=GPUTarget("cuda", 90, 32),
                                      options={"num_warps": 2})
            assert compiled.asm["cubin"]
            loops[name + ("/masked" if masked else "")] = time_loop(compiled.asm["ptx"]) if "carry" not in name else {}
    print(json.dumps(loops))
    """
)


@pytest.fixture(scope="module")
def compiled_for_h100(kernels) -> dict[str, dict[str, int]]:
    """The kernels compiled for sm_90 (front end, LLVM and ptxas, no driver needed) in a process without
    TRITON_INTERPRET; per variant, what the time loop of its PTX holds."""
    if importlib.util.find_spec("triton.backends.nvidia") is None:
        pytest.skip("this triton has no NVIDIA backend")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | {"TRITON_DEFAULT_FP_FUSION": "1"}
    proc = subprocess.run([sys.executable, "-c", _COMPILE_FOR_H100], cwd=Path(__file__).parents[1], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_kernels_compile_for_an_h100_without_a_gpu(compiled_for_h100):
    """The interpreter runs Python, so it accepts code Triton's compiler rejects: every variant must compile."""
    assert sorted(compiled_for_h100) == sorted(
        f"{kernel}{variant}{'/masked' if masked else ''}" for masked in (False, True) for kernel, variant in (
            ("_wkv_forward_kernel", ""), ("_wkv_forward_kernel", "/local"), ("_wkv_backward_kernel", ""),
            ("_wkv_backward_kernel", "/chunk"), ("_wkv_backward_kernel", "/local"), ("_wkv_carry_kernel", ""),
            ("_wkv_carry_kernel", "/backward")))


@pytest.mark.parametrize("kernel,loads", [("_wkv_forward_kernel", 3), ("_wkv_backward_kernel", 7),
                                          ("_wkv_forward_kernel/local", 3), ("_wkv_backward_kernel/chunk", 7),
                                          ("_wkv_backward_kernel/local", 7)])
def test_the_masked_kernels_load_ahead_and_never_branch_on_the_mask(compiled_for_h100, kernel, loads):
    """Inside the time loop every load (the next step's k, v and mask; in the backward also dy and the saved
    state) is issued before the step's first exp, nothing loads after it, and the mask selects (selp)
    instead of branching: the loop's body holds no branch, only its back-edge."""
    loop = compiled_for_h100[f"{kernel}/masked"]
    assert loop | {"selects": 0} == {"branches": 0, "loads_before_math": loads, "loads_after_math": 0, "selects": 0}
    assert loop["selects"] >= 4
    assert compiled_for_h100[kernel]["branches"] == 0  # the unmasked kernel: the same loop, no selects needed
