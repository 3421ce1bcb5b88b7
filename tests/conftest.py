"""Shared fixtures: tiny configs and models (vocab 99, width 32, 2 layers), a tiny tokenizer.

Nothing here touches the network: tokenizers are trained on a few KB of local text, models are
randomly initialised. Keep CPU threads low so several test processes can share 2 cores.
"""

import os

import pytest
import torch

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
# Without a GPU, the Triton WKV kernels are tested in Triton's CPU interpreter. Triton reads this
# when it defines a kernel, its own library's included, and importing rusty_hf imports triton (through
# torch._dynamo), so it is set here, first. Nothing else runs Triton kernels on a machine without CUDA.
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

from rusty_hf import TinyRWKVConfig, TinyRWKVForCausalLM  # noqa: E402


def tiny_config(**overrides) -> TinyRWKVConfig:
    """A TinyRWKV small enough that every test runs in a fraction of a second."""
    kwargs = dict(vocab_size=99, d_embed=16, d_hidden=32, n_layers=2, ffn_mult=4)
    kwargs.update(overrides)
    return TinyRWKVConfig(**kwargs)


def randomise_zero_init(model: torch.nn.Module, std: float = 0.5, seed: int = 0) -> torch.nn.Module:
    """RWKV-4 zero-initialises several projections; tests of mixing need them non-zero."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for param in model.parameters():
            if param.dim() == 2 and not param.any():
                param.copy_(torch.randn(param.shape, generator=gen) * std)
    return model


def wkv_inputs(B=2, T=7, C=5, dtype=torch.float64, key_scale=1.0, seed=0) -> list[torch.Tensor]:
    """(w, u, k, v) for the WKV operator, requiring grad: w in [-3.05, -0.05], keys scaled."""
    gen = torch.Generator().manual_seed(seed)
    w = -(torch.rand(C, generator=gen, dtype=dtype) * 3 + 0.05)
    u = torch.randn(C, generator=gen, dtype=dtype)
    k = torch.randn(B, T, C, generator=gen, dtype=dtype) * key_scale
    v = torch.randn(B, T, C, generator=gen, dtype=dtype)
    return [x.requires_grad_() for x in (w, u, k, v)]


@pytest.fixture
def tiny_model() -> TinyRWKVForCausalLM:
    torch.manual_seed(0)
    return randomise_zero_init(TinyRWKVForCausalLM(tiny_config())).eval()


@pytest.fixture(scope="session")
def tiny_tokenizer():
    """A real Rusty BPE tokenizer trained on a few KB of code and protocol text."""
    from rusty_hf.tokenizer import train_tokenizer

    texts = [
        "def add(a, b):\n    return a + b\n",
        'fn main() {\n    println!("hello");\n}\n',
        '{"action": "CMD", "command": "ls -la"}',
        '{"action": "MSG", "message": "Done. Tests pass."}',
        "import os\nfor name in os.listdir('.'):\n    print(name)\n",
    ] * 40
    return train_tokenizer(texts, vocab_size=288, show_progress=False)


@pytest.fixture
def no_bwrap(monkeypatch):
    """This host as one without bubblewrap (``RUSTY_SANDBOX_DISABLE=bwrap``) and without the opt-in;
    the sandbox's layers are detected again before and after."""
    from rusty_hf.sandbox import capabilities
    from rusty_hf.sandbox.capabilities import DISABLE_ENV
    from rusty_hf.sandbox.layers import ALLOW_ENV

    monkeypatch.setenv(DISABLE_ENV, "bwrap")
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    yield capabilities(refresh=True)
    monkeypatch.undo()
    capabilities(refresh=True)
