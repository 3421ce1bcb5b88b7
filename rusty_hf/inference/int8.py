"""Int8 weight-only quantization for CPU inference, in plain PyTorch (no extra dependency).

    from rusty_hf.inference.int8 import quantize_int8_
    quantize_int8_(model)           # every nn.Linear -> Int8WeightOnlyLinear, in place

Each weight row (output channel) is stored as int8 with one float scale, symmetric, so a Linear
takes a quarter of its fp32 bytes. Activations are not quantized: on CPU the matmul runs in
ATen's weight-only int8 kernel (`torch._weight_int8pack_mm`, bf16 activations: its faster
variant here), which reads the int8 weights directly; elsewhere the weight is dequantized per
call. The output comes back in the input dtype.

Speed (R2 sizes, batch-1 greedy decoding, 2-core AVX2 VM shared with other jobs): with one
torch thread, int8 decodes at 0.9-1.1x fp32's speed (93 vs 102 tokens/s in `rusty-bench --threads 1`
on 2026-11-22 19:59 UTC, 119 vs 112 in a run at 18:00; it reads a quarter of the bytes, but fp32 decodes
through TinyRWKV's compiled CPU kernels, one call per block, while these layers run as separate
modules; before those kernels: 76-81 vs 63-69). With two threads on a busy machine the kernel's parallel split stalls on
the descheduled thread (~7.6 ms per call whatever the shape) and int8 falls to 0.2-0.3x fp32,
so serve with one thread per generation there (space/app.py does). Alternatives measured on
the 512->24,000 head at one row, busy machine, so rough: torchao 0.18 `Int8WeightOnlyConfig`
10-30x slower than fp32 (and a dependency); fbgemm dynamic int8 (`quantize_dynamic`,
deprecated) 1.5-6x slower with ~15x this module's logit error; this kernel with fp32
activations several times slower than with bf16.

The embedding stays float: a lookup reads one row, so quantizing it saves memory but no time,
and the 0.45x weight-memory target is met without it (0.39x for R2).
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn
from torch.nn import functional as F

_HAS_INT8PACK = hasattr(torch.ops.aten, "_weight_int8pack_mm")


class Int8WeightOnlyLinear(nn.Module):
    """A frozen Linear with int8 weights and one scale per output channel.

    `weight_int8` is (out_features, in_features) int8, `weight_scale` (out_features,) bf16:
    `W ~= weight_int8 * weight_scale[:, None]`. Inference only (no gradients flow to weights).
    The scale is kept in bf16 because the CPU kernel multiplies in bf16 anyway, and
    torch.compile's lowering of that kernel needs the scale as a stored tensor, not a cast.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = False):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.register_buffer("weight_int8", torch.zeros(out_features, in_features, dtype=torch.int8))
        self.register_buffer("weight_scale", torch.ones(out_features, dtype=torch.bfloat16))
        self.register_buffer("bias", torch.zeros(out_features) if bias else None)

    @classmethod
    def from_linear(cls, linear: nn.Linear) -> Int8WeightOnlyLinear:
        """Quantize `linear` (symmetric, per output channel, round to nearest)."""
        weight = linear.weight.detach().float()
        scale = weight.abs().amax(dim=1).clamp(min=1e-12) / 127.0  # (out,)
        q = torch.round(weight / scale[:, None]).clamp(-127, 127).to(torch.int8)
        module = cls(linear.in_features, linear.out_features, bias=linear.bias is not None)
        module.to(weight.device)
        module.weight_int8.copy_(q)
        module.weight_scale.copy_(scale)
        if linear.bias is not None:
            module.bias.copy_(linear.bias.detach().float())
        return module

    def dequantized_weight(self, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        return (self.weight_int8.to(dtype) * self.weight_scale[:, None].to(dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type == "cpu" and _HAS_INT8PACK:
            rows = x.reshape(-1, self.in_features).to(torch.bfloat16)  # (N, in)
            scale = self.weight_scale
            if scale.dtype != torch.bfloat16:  # a later model.to(dtype) cast it
                scale = scale.to(torch.bfloat16)
            out = torch.ops.aten._weight_int8pack_mm(rows, self.weight_int8, scale)
            out = out.to(x.dtype).view(*x.shape[:-1], self.out_features)
        else:
            out = F.linear(x, self.dequantized_weight(x.dtype))
        return out if self.bias is None else out + self.bias.to(out.dtype)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def quantize_int8_(model: nn.Module, skip: Iterable[str] = ()) -> list[str]:
    """Replace every `nn.Linear` of `model` whose qualified name contains none of `skip` by an
    `Int8WeightOnlyLinear`, in place. Returns the names replaced.

    transformers models pass their `_keep_in_fp32_modules` (TinyRWKV's value head) as `skip`.
    """
    skip = tuple(skip)
    targets = [
        (name, module)
        for name, module in model.named_modules()
        if type(module) is nn.Linear and not any(s in name for s in skip)
    ]
    for name, module in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, Int8WeightOnlyLinear.from_linear(module))
    return [name for name, _ in targets]


def weight_bytes(model: nn.Module) -> int:
    """Bytes of every parameter and buffer: the memory the weights take, whatever their dtype."""
    tensors = list(model.parameters()) + [b for b in model.buffers() if b is not None]
    return sum(t.numel() * t.element_size() for t in tensors)


__all__ = ["Int8WeightOnlyLinear", "quantize_int8_", "weight_bytes"]
