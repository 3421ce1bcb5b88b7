"""The fused CPU decoding step: one compiled call per block for a one-token step, inside a decoding session.

`TinyRWKVModel._trunk` asks `fused_decode_params` for the arguments of `cpu_kernels.decode_block` for every
block; it gets them only for a plain decoding step (see there) inside `inference_cache.decoding_session`,
where the packed weight copies the kernel reads are valid. The arguments are cached for the session with
a snapshot of the module tree, so a module replaced or hooked mid-session is noticed.

Imports only torch and modules of this folder (remote code).
"""

from __future__ import annotations

import torch
from torch import nn

from .cpu_kernels import PACKED_LINEAR_MAX_ROWS, load_kernel
from .decode_graphs import ModuleSnapshot, global_module_hooks
from .inference_cache import cached, inference_weights


class _DecodePlan:
    """The arguments of `cpu_kernels.decode_block` for every block, cached with what must stay the
    same for them to remain valid: the module tree, each parameter's object, storage and version.

    `args` is None when the blocks are not exactly the plain ones the kernel computes (peft,
    quantization or a subclass replaced something, or the weights are not float32 on CPU).
    """

    def __init__(self, blocks: nn.ModuleList, block_types: tuple[type, type, type]):
        self.snapshot = ModuleSnapshot(blocks, with_versions=True)
        self.args = self._arguments(blocks, block_types)

    @staticmethod
    def _arguments(blocks: nn.ModuleList, block_types: tuple[type, type, type]) -> list | None:
        block_type, time_mix_type, channel_mix_type = block_types
        args = []
        for block in blocks:
            if type(block) is not block_type:
                return None
            att, ffn = block.att, block.ffn
            if type(att) is not time_mix_type or type(ffn) is not channel_mix_type:
                return None
            linears = (att.key, att.value, att.receptance, att.output, ffn.key, ffn.receptance, ffn.value)
            norms = (block.ln1, block.ln2)
            if any(type(m) is not nn.Linear or m.bias is not None for m in linears) or any(
                type(m) is not nn.LayerNorm or m.weight is None or m.bias is None for m in norms
            ):
                return None
            vectors = (block.ln1.weight, block.ln1.bias, block.ln2.weight, block.ln2.bias, att.time_decay,
                       att.time_first, att.time_mix_k, att.time_mix_v, att.time_mix_r, ffn.time_mix_k, ffn.time_mix_r)
            weights = [m.weight for m in linears]
            if any(t.dtype != torch.float32 or t.device.type != "cpu" for t in (*vectors, *weights)):
                return None
            packed = [inference_weights(m)[0] for m in linears]  # inside a session, with the kernels: never None
            detached = [t.detach() for t in vectors]
            args.append(([*detached[:9], *packed[:4], *detached[9:], *packed[4:]], block.ln1.eps, block.ln2.eps))
        return args


def fused_decode_params(blocks: nn.ModuleList, hidden: torch.Tensor, mask: torch.Tensor | None,
                        block_types: tuple[type, type, type]) -> list | None:  # fmt: skip
    """Per block, what `cpu_kernels.decode_block` takes; None unless this call may use it.

    That is a decoding step (one token per row, no padding) on CPU in float32 without autograd,
    autocast or torch.compile (it cannot trace the kernel), inside a `decoding_session` (the weights
    promised unchanged), with at most PACKED_LINEAR_MAX_ROWS rows, and blocks exactly of `block_types`
    (block, time-mix, channel-mix) made of plain Linear and LayerNorm modules without hooks (peft,
    quantization and accelerate offloading replace or hook them, and then every module runs its own forward).
    """
    if (
        torch.is_grad_enabled()
        or torch.compiler.is_compiling()
        or mask is not None
        or hidden.shape[1] != 1
        or hidden.shape[0] > PACKED_LINEAR_MAX_ROWS
        or hidden.device.type != "cpu"
        or hidden.dtype != torch.float32
        or torch.is_autocast_enabled("cpu")
        or load_kernel() is None
        or global_module_hooks()
    ):
        return None
    plan = cached(blocks, "decode_plan", lambda: _DecodePlan(blocks, block_types), lambda plan: plan.snapshot.current())
    return plan.args if plan is not None and plan.args is not None and not plan.snapshot.hooked() else None


def decode_step(fused, hidden: torch.Tensor, state: tuple[torch.Tensor, ...], all_hidden: tuple | None):
    """The blocks of `TinyRWKVModel.forward` for one token per row, each block one compiled call:
    (hidden (B, 1, C), the new state, all_hidden)."""
    kernel = load_kernel()
    x = hidden[:, 0].contiguous()  # (B, C), updated in place block by block
    new_state = tuple(s.float().clone(memory_format=torch.contiguous_format) for s in state)
    for i, (params, eps1, eps2) in enumerate(fused):
        kernel.decode_block(x, [s[:, i] for s in new_state], params, eps1, eps2)
        if all_hidden is not None:
            all_hidden += (x.unsqueeze(1).clone(),)
    return x.unsqueeze(1), new_state, all_hidden


__all__ = ["decode_step", "fused_decode_params"]
