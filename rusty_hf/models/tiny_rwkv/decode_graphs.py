"""Decoding steps replayed as CUDA graphs: the whole trunk of a one-token step is one launch.

A decoding step of TinyRWKV is about a hundred small kernels (per block: two layer norms, token
shifts, seven matmuls, the WKV, the gates); at any batch a GPU runs each in microseconds, so the
step costs what launching them costs. `TinyRWKVModel.forward` hands a step here when it may be
replayed: this module captures the trunk (projection, blocks, final norm) once per batch size into
a `torch.cuda.CUDAGraph` over static input and state buffers, and each later step is a few copies
into those buffers and one `replay`. `generate()` stays the interface (for users, and for TRL's
GRPO/PPO rollouts): nothing changes outside the model's forward.

What makes replay safe:
- The state is fixed-size (5 x (batch, layers, channels) float32), so the buffers never grow; the
  graph writes the new state back into its input buffers. When the next step passes the very state
  tensors the last replay returned, unmodified, the copy-in is skipped.
- The padding mask is always an input of the graph (the masked path is exact), so the step never
  reads the mask on the host: no device synchronisation per token.
- The graph reads the parameters where they are. Optimizer steps update them in place, which the
  next replay sees; a parameter replaced by a new tensor, a changed module tree (peft, quantization,
  `.to()`), or any hook drops the graphs, and hooked or non-plain modules never use them.
- Autocast settings are part of a graph's key, and capture runs with autocast's weight cache off
  (a cached cast made before capture would be freed when its autocast region ends).
- Returned tensors are copies: a caller may keep any step's output.

`RUSTY_DECODE_GRAPHS`: ``auto`` (default) captures on CUDA; ``off`` (or ``0``) never does;
``eager`` runs the same static-buffer step without capturing, on any device (how the tests check
the buffer handling on machines without a GPU; it is slower than the normal path).
A capture that fails turns graphs off for that model with one warning; decoding goes on eagerly.
`decode_graph_counts()` says what happened in this process (captures, replays, static-buffer steps run
without capture, failed captures): a benchmark reads it to tell a graphed run from one that fell back.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections import OrderedDict

import torch
from torch import nn
from torch.nn.modules import module as module_impl

from .wkv_torch import MIN_EXPONENT

logger = logging.getLogger(__name__)

MODES = ("auto", "off", "eager")
MAX_GRAPHS = 4  # per model, least recently used dropped first (one per batch size and autocast setting)
CACHE_KEY = "_rusty_decode_graphs"  # where a backbone keeps its DecodeGraphs (in its __dict__, not a submodule)
WARMUP_STEPS = 2  # before capture, on a side stream: lazy initialisation (cuBLAS, Triton) happens there
_COUNTS = {"captures": 0, "replays": 0, "static_steps": 0, "failed_captures": 0}  # this process, every model


def decode_graph_counts() -> dict[str, int]:
    """Captures, replays, static-buffer steps run without capture (``eager`` mode) and failed captures so far
    in this process; take the difference around a run to see what it did."""
    return dict(_COUNTS)


def decode_graph_mode() -> str:
    value = os.environ.get("RUSTY_DECODE_GRAPHS", "auto").strip().lower() or "auto"
    value = {"0": "off", "false": "off", "1": "auto", "true": "auto", "on": "auto"}.get(value, value)
    if value not in MODES:
        raise ValueError(f"RUSTY_DECODE_GRAPHS={value!r}: expected one of {', '.join(MODES)}")
    return value


class ModuleSnapshot:
    """What must stay the same for cached work over a module tree to remain valid: every child module,
    and every parameter and buffer object with its storage (and, `with_versions`, its in-place version
    counter). Objects are held, not their ids, so a freed module's address cannot be mistaken for it.
    `current()` runs at every decoding step, so it is flat loops over what was recorded."""

    def __init__(self, root: nn.Module, with_versions: bool):
        modules = list(root.modules())
        # The root weakly: this snapshot is stored on the root, and a cycle would keep the weights and
        # any captured graph's memory alive after `del model`, until the garbage collector runs.
        self.root, self.modules = weakref.ref(root), modules[1:]
        self.with_versions = with_versions
        self.edges = [(m._modules, name, child) for m in modules for name, child in m._modules.items()]
        self.tensors = [
            (entries, name, t, t.data_ptr(), t._version if with_versions else 0)
            for m in modules
            for entries in (m._parameters, m._buffers)
            for name, t in entries.items()
            if t is not None
        ]

    def current(self) -> bool:
        for children, name, child in self.edges:
            if children.get(name) is not child:
                return False
        for entries, name, t, ptr, version in self.tensors:
            if entries.get(name) is not t or t.data_ptr() != ptr or (self.with_versions and t._version != version):
                return False
        return True

    def hooked(self) -> bool:
        """Whether any module has forward hooks or an accelerate hook (offloading, device maps)."""
        root = self.root()
        for m in self.modules if root is None else (root, *self.modules):
            if m._forward_hooks or m._forward_pre_hooks or "_hf_hook" in m.__dict__:
                return True
        return False


def global_module_hooks() -> bool:
    """Whether hooks registered for every module (`nn.modules.module.register_module_forward_hook`) exist."""
    return bool(getattr(module_impl, "_global_forward_hooks", None) or getattr(module_impl, "_global_forward_pre_hooks", None))


class CaptureError(RuntimeError):
    """A decoding step could not be captured, or its replay did not reproduce the eager step."""


class _StepGraph:
    """One captured (or, in ``eager`` mode, directly run) step for one batch size and setting."""

    def __init__(self, backbone: nn.Module, template: torch.Tensor, state_shape: tuple[int, ...], autocast: tuple,
                 capture: bool):
        device = template.device
        with torch.inference_mode(False), torch.no_grad():  # buffers callers may copy into from any mode
            self.embeds = torch.zeros_like(template)
            self.mask = torch.ones(template.shape[:2], dtype=torch.long, device=device)
            self.state = torch.zeros((5, *state_shape), dtype=torch.float32, device=device)
        self.backbone = weakref.ref(backbone)  # see ModuleSnapshot: no cycle through the cache
        self.autocast, self.graph = autocast, None
        self.mask_is_ones = True
        self.returned: tuple[tuple[torch.Tensor, ...], tuple[int, ...]] | None = None
        self.hidden: torch.Tensor | None = None
        if capture:
            self._capture(device)

    def _run(self) -> None:
        enabled, dtype = self.autocast
        with torch.autocast(self.embeds.device.type, dtype=dtype, enabled=enabled, cache_enabled=False):
            hidden, new_state, _ = self.backbone()._trunk(self.embeds, tuple(self.state.unbind(0)), self.mask)
            for buffer, value in zip(self.state.unbind(0), new_state):
                buffer.copy_(value)
        self.hidden = hidden

    def _probe_inputs(self) -> None:
        """Random embeddings and shifts, an empty WKV state: every output depends on the step's kernels."""
        generator = torch.Generator(device=self.embeds.device).manual_seed(0)
        self.embeds.copy_(torch.randn(self.embeds.shape, generator=generator, device=self.embeds.device))
        self.state.zero_()
        self.state[3].fill_(MIN_EXPONENT)
        for i in (0, 4):
            self.state[i].normal_(generator=generator)
        self.mask.fill_(1)

    def _capture(self, device: torch.device) -> None:
        """Warm up on a side stream, capture on that same stream (made on the model's device: torch's
        default capture stream belongs to whichever GPU captured first), then check one replay against
        the eager step. The caller's current stream is restored even when the capture fails (torch's
        context manager leaves it switched when `capture_end` raises)."""
        previous = None
        try:
            previous = torch.cuda.current_stream(device)
            with torch.cuda.device(device):
                side = torch.cuda.Stream(device)
                side.wait_stream(previous)
                with torch.cuda.stream(side):
                    self._probe_inputs()
                    for _ in range(WARMUP_STEPS):
                        self._run()
                previous.wait_stream(side)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph, stream=side, capture_error_mode="thread_local"):
                    self._run()
                captured = self.hidden  # where every replay writes its output
                self._probe_inputs()
                self._run()
                want_hidden, want_state = self.hidden.clone(), self.state.clone()
                self.hidden = captured
                self._probe_inputs()
                graph.replay()
                # Same kernels, so normally bit-equal; in bf16/fp16 cuBLAS may pick another algorithm inside a
                # capture, hence the looser bound there. An empty or wrong graph misses either by far.
                low = self.autocast[0] or self.embeds.dtype != torch.float32
                tol = dict(rtol=5e-2, atol=5e-2) if low else dict(rtol=1e-4, atol=1e-5)
                if not (torch.allclose(self.hidden.float(), want_hidden.float(), **tol)
                        and torch.allclose(self.state, want_state, **tol)):
                    raise CaptureError("the captured step's replay differs from the eager step")
        except CaptureError:
            raise
        except Exception as err:
            cause = err.__context__ if "invalidated" in str(err) and err.__context__ is not None else err
            raise CaptureError(f"{type(cause).__name__}: {cause}") from err
        finally:
            if previous is not None:
                torch.cuda.set_stream(previous)
        self.graph = graph

    def step(self, embeds: torch.Tensor, state: tuple[torch.Tensor, ...], mask: torch.Tensor | None):
        self.embeds.copy_(embeds)
        if mask is not None:
            self.mask.copy_(mask)
            self.mask_is_ones = False
        elif not self.mask_is_ones:
            self.mask.fill_(1)
            self.mask_is_ones = True
        last = self.returned
        if last is None or any(s is not r or s._version != v for s, r, v in zip(state, *last)):
            for buffer, value in zip(self.state.unbind(0), state):
                buffer.copy_(value)
        if self.graph is not None:
            with torch.cuda.device(self.embeds.device):  # the captured device, whichever is current
                self.graph.replay()
            _COUNTS["replays"] += 1
        else:
            self._run()
            _COUNTS["static_steps"] += 1
        with torch.inference_mode(False), torch.no_grad():  # normal tensors: they carry a version counter
            new_state = self.state.clone().unbind(0)  # one copy, five views
        self.returned = (new_state, tuple(s._version for s in new_state))
        return self.hidden.clone(), new_state


def _no_cache():
    return None


class DecodeGraphs:
    """The captured steps of one backbone (`TinyRWKVModel`), and the snapshot of the modules they were made from.

    Not copied: `copy.deepcopy(model)` and pickling (`torch.save(model)`) give the copy no cache (a
    CUDA graph cannot be copied), and the copy captures its own. One lock per model: callers in
    several threads (streaming generation) take turns on the static buffers."""

    def __init__(self, backbone: nn.Module):
        self.snapshot = ModuleSnapshot(backbone, with_versions=False)
        self.graphs: OrderedDict[tuple, _StepGraph] = OrderedDict()
        self.failed: str | None = None
        self.lock = threading.Lock()

    def __deepcopy__(self, memo):
        return None

    def __reduce__(self):
        return _no_cache, ()

    def step(self, backbone, embeds, state, mask, capture: bool):
        device = embeds.device
        autocast = (torch.is_autocast_enabled(device.type), torch.get_autocast_dtype(device.type))
        # What a capture bakes in: shapes, dtypes, autocast, and the WKV backend chosen when it ran.
        key = (tuple(embeds.shape), embeds.dtype, device, autocast, os.environ.get("RUSTY_WKV_BACKEND"), capture)
        with self.lock:
            graph = self.graphs.get(key)
            if graph is None:
                graph = _StepGraph(backbone, embeds, tuple(state[0].shape), autocast, capture)
                _COUNTS["captures"] += capture
                self.graphs[key] = graph
                while len(self.graphs) > MAX_GRAPHS:
                    self.graphs.popitem(last=False)
            self.graphs.move_to_end(key)
            try:
                return graph.step(embeds, state, mask)
            except Exception:  # drop this graph; the caller runs the normal forward, which explains the input
                self.graphs.pop(key, None)
                return None


def plain_modules(modules: list[nn.Module], allowed: tuple[type, ...]) -> bool:
    """Every module is exactly one of `allowed` with plain tensors (no peft, quantized, replaced or
    tensor-subclass weights: a subclass's storage can change without its `data_ptr` showing it)."""
    for m in modules:
        if type(m) not in allowed:
            return False
        for t in (*m._parameters.values(), *m._buffers.values()):
            if t is not None and (type(t) not in (nn.Parameter, torch.Tensor) or t.data_ptr() == 0):
                return False
    return True


def replayable(embeds: torch.Tensor, state, mask: torch.Tensor | None, mode: str, state_shape: tuple) -> bool:
    """Whether this call is a decoding step a static graph may run: one token per row, a float32
    state of `state_shape`, and CUDA unless ``eager``. Anything else (malformed input included) takes
    the normal forward, which explains itself."""
    if mode == "off" or state is None or embeds.dim() != 3 or embeds.shape[1] != 1 or len(state) != 5:
        return False
    if mode == "auto" and (embeds.device.type != "cuda" or torch.cuda.is_current_stream_capturing()):
        return False
    if any(s.dtype != torch.float32 or s.device != embeds.device or tuple(s.shape) != state_shape for s in state):
        return False
    return mask is None or (mask.device == embeds.device and tuple(mask.shape) == tuple(embeds.shape[:2]))


def graphed_step(backbone: nn.Module, embeds: torch.Tensor, state, mask: torch.Tensor | None,
                 trunk: list[nn.Module], allowed: tuple[type, ...]):
    """(hidden, new_state) from a replayed step of `backbone._trunk`, or None when the normal forward
    must run. `trunk`: the modules `_trunk` runs, each of a type in `allowed`.

    Never under autograd, torch.compile, TorchScript tracing or training with gradient checkpointing
    (its recomputation reads the RNG state), nor with hooks anywhere in the backbone."""
    if torch.is_grad_enabled() or torch.compiler.is_compiling() or torch.jit.is_tracing():
        return None
    graphs = backbone.__dict__.get(CACHE_KEY)
    if graphs is not None and not graphs.snapshot.current():
        del backbone.__dict__[CACHE_KEY]  # stale (weights moved or replaced): free the captures' memory now
        graphs = None
    mode = decode_graph_mode()
    config = backbone.config
    if not replayable(embeds, state, mask, mode, (embeds.shape[0], config.n_layers, config.d_hidden)):
        return None
    if backbone.training and getattr(backbone, "gradient_checkpointing", False):
        return None
    if graphs is None:
        if not plain_modules([m for module in trunk for m in module.modules()], allowed):
            return None
        graphs = DecodeGraphs(backbone)
        backbone.__dict__[CACHE_KEY] = graphs
    if graphs.failed is not None or global_module_hooks() or graphs.snapshot.hooked():
        return None
    try:
        return graphs.step(backbone, embeds, state, mask, capture=mode == "auto")
    except CaptureError as err:  # decode eagerly from now on
        _COUNTS["failed_captures"] += 1
        graphs.graphs.clear()
        graphs.failed = str(err)
        logger.warning("TinyRWKV: CUDA-graph decoding turned off for this model (%s); decoding eagerly. "
                       "Set RUSTY_DECODE_GRAPHS=off to skip the attempt.", graphs.failed)
        return None


__all__ = [
    "CACHE_KEY", "CaptureError", "DecodeGraphs", "MAX_GRAPHS", "MODES", "ModuleSnapshot", "decode_graph_counts",
    "decode_graph_mode",
    "global_module_hooks", "graphed_step",
]
