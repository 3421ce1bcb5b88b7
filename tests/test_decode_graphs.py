"""CUDA-graph decoding (`decode_graphs`): the static-buffer step, checked on CPU.

`RUSTY_DECODE_GRAPHS=eager` runs exactly the step a CUDA graph captures (static input, mask and
state buffers, the state written back in place, copies returned, the copy-in skipped for the state
the last step returned) without capturing, so its buffer handling and cache rules are tested here
against the normal forward. The capture itself needs CUDA: benchmarks/gpu_speed.py measures it and
checks its tokens against the normal path.
"""

import logging

import pytest
import torch

from rusty_hf.models.tiny_rwkv import decode_graphs
from rusty_hf.models.tiny_rwkv import TinyRWKVForCausalLMWithValueHead
from tests.conftest import randomise_zero_init, tiny_config


def _graphs(model):
    return model.model.__dict__.get("_rusty_decode_graphs")


def _generate(model, ids, mask, mode, monkeypatch, **kwargs):
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", mode)
    out = model.generate(ids, attention_mask=mask, max_new_tokens=12, do_sample=False, pad_token_id=1,
                         output_scores=True, return_dict_in_generate=True, **kwargs)
    return out.sequences, torch.stack(out.scores)


def _step(model, token, state, mask=None):
    with torch.no_grad():
        out = model(input_ids=token, state=state, attention_mask=mask, use_cache=True)
    return out.logits, out.state


def _prefill(model, batch=3, length=5, seed=0):
    ids = torch.randint(2, 99, (batch, length), generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        return model(input_ids=ids, use_cache=True).state


def test_left_padded_generation_through_the_static_step_equals_the_normal_path(tiny_model, monkeypatch):
    ids = torch.tensor([[1, 1, 5, 6, 7], [8, 9, 10, 11, 12], [1, 1, 1, 3, 4]])
    mask = (ids != 1).long()
    want_ids, want_scores = _generate(tiny_model, ids, mask, "off", monkeypatch)
    assert _graphs(tiny_model) is None
    got_ids, got_scores = _generate(tiny_model, ids, mask, "eager", monkeypatch)
    assert torch.equal(got_ids, want_ids)
    torch.testing.assert_close(got_scores, want_scores, rtol=1e-5, atol=1e-5)
    graphs = _graphs(tiny_model)
    assert graphs is not None and len(graphs.graphs) == 1  # one batch size, one step reused for 11 tokens


def test_a_padded_row_in_a_decoding_step_keeps_its_state(tiny_model, monkeypatch):
    state = _prefill(tiny_model)
    token, mask = torch.tensor([[4], [5], [6]]), torch.tensor([[1], [0], [1]])
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    want_logits, want_state = _step(tiny_model, token, state, mask)
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    got_logits, got_state = _step(tiny_model, token, state, mask)
    torch.testing.assert_close(got_logits, want_logits, rtol=1e-5, atol=1e-6)
    for got, want, before in zip(got_state, want_state, state):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        assert torch.equal(got[1], before[1])  # the padded row's state is untouched
    # the next step without a mask must not reuse the zero left in the static mask buffer
    got_logits, _ = _step(tiny_model, token, got_state)
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    want_next, _ = _step(tiny_model, token, want_state)
    torch.testing.assert_close(got_logits, want_next, rtol=1e-5, atol=1e-6)


def test_returned_tensors_are_copies_and_an_edited_state_is_copied_in(tiny_model, monkeypatch):
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    state = _prefill(tiny_model)
    token = torch.tensor([[4], [5], [6]])
    _, first = _step(tiny_model, token, state)
    kept = [s.clone() for s in first]
    _, second = _step(tiny_model, token, first)  # first is what the last step returned: copy-in skipped
    assert all(torch.equal(a, b) for a, b in zip(first, kept)), "a later step overwrote a returned state"
    assert not any(torch.equal(a, b) for a, b in zip(first[1:4], second[1:4]))
    first[1].mul_(2.0)  # edited in place after it was returned: the step must read the edit
    got, _ = _step(tiny_model, token, first)
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    want, _ = _step(tiny_model, token, first)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_weight_updates_in_place_keep_the_graphs_and_replaced_weights_drop_them(tiny_model, monkeypatch):
    state, token = _prefill(tiny_model), torch.tensor([[4], [5], [6]])

    def both():
        monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
        got, _ = _step(tiny_model, token, state)
        monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
        want, _ = _step(tiny_model, token, state)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)

    both()
    graphs = _graphs(tiny_model)
    key = tiny_model.model.blocks[0].att.key
    with torch.no_grad():
        key.weight.mul_(1.5)  # what an optimizer step does: a captured graph reads it where it is
    both()
    assert _graphs(tiny_model) is graphs
    key.weight = torch.nn.Parameter(key.weight.detach() * 0.5)  # a new tensor: the graph would read the old one
    both()
    assert _graphs(tiny_model) is not graphs


def test_hooks_replaced_layers_autograd_and_other_devices_take_the_normal_path(tiny_model, monkeypatch):
    state, token = _prefill(tiny_model), torch.tensor([[4], [5], [6]])
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "auto")  # auto captures on CUDA only
    _step(tiny_model, token, state)
    assert _graphs(tiny_model) is None
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    calls = []
    handle = tiny_model.model.blocks[0].register_forward_hook(lambda *args: calls.append(1))
    _step(tiny_model, token, state)
    _step(tiny_model, token, state)
    assert len(calls) == 2 and not _graphs(tiny_model).graphs  # a hook runs every step, so nothing replays
    handle.remove()
    tiny_model(input_ids=token, state=state, use_cache=True)  # autograd on
    assert not _graphs(tiny_model).graphs
    _step(tiny_model, token, state)
    assert len(_graphs(tiny_model).graphs) == 1  # hook gone: replayed

    class Replaced(torch.nn.Linear):  # what peft or a quantizer puts in place of a layer
        pass

    old = tiny_model.model.blocks[1].ffn.key
    tiny_model.model.blocks[1].ffn.key = Replaced(old.in_features, old.out_features, bias=False)
    _step(tiny_model, token, state)
    assert _graphs(tiny_model) is None


def test_one_step_graph_per_batch_size_at_most_max_graphs(tiny_model, monkeypatch):
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    for batch in range(1, decode_graphs.MAX_GRAPHS + 3):
        _step(tiny_model, torch.full((batch, 1), 7), _prefill(tiny_model, batch=batch))
    graphs = _graphs(tiny_model).graphs
    assert len(graphs) == decode_graphs.MAX_GRAPHS
    assert [key[0][0] for key in graphs] == list(range(3, decode_graphs.MAX_GRAPHS + 3))  # least recent dropped


def test_value_head_model_and_inputs_embeds_use_the_same_step(monkeypatch):
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLMWithValueHead(tiny_config())).eval()
    state = _prefill(model, batch=2)
    embeds = model.get_input_embeddings()(torch.tensor([[3], [4]])).detach()
    outs = {}
    for mode in ("off", "eager"):
        monkeypatch.setenv("RUSTY_DECODE_GRAPHS", mode)
        with torch.no_grad():
            outs[mode] = model(inputs_embeds=embeds, state=state, use_cache=True)
    torch.testing.assert_close(outs["eager"].logits, outs["off"].logits, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(outs["eager"].value, outs["off"].value, rtol=1e-5, atol=1e-6)
    assert _graphs(model) is not None


def test_a_failed_step_drops_its_graph_and_the_normal_forward_answers(tiny_model, monkeypatch):
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    state, token = _prefill(tiny_model), torch.tensor([[4], [5], [6]])
    _step(tiny_model, token, state)
    monkeypatch.setattr(decode_graphs._StepGraph, "step", lambda *args: 1 / 0)
    got, _ = _step(tiny_model, token, state)
    graphs = _graphs(tiny_model)
    assert not graphs.graphs and graphs.failed is None  # dropped, not turned off: the next step captures anew
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    torch.testing.assert_close(got, _step(tiny_model, token, state)[0])


def test_a_failed_capture_turns_graphs_off_with_one_warning(tiny_model, monkeypatch, caplog):
    """What a GPU does when a kernel cannot be captured, driven on CPU: 'auto' mode made to accept CPU
    tensors, and a capture that raises."""
    state, token = _prefill(tiny_model), torch.tensor([[4], [5], [6]])
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "auto")
    monkeypatch.setattr(decode_graphs, "replayable", lambda embeds, state, *args: state is not None)

    def uncapturable(self, device):
        raise decode_graphs.CaptureError("RuntimeError: operation not permitted when stream is capturing")

    monkeypatch.setattr(decode_graphs._StepGraph, "_capture", uncapturable)
    with caplog.at_level(logging.WARNING, logger=decode_graphs.__name__):
        got, _ = _step(tiny_model, token, state)
        _step(tiny_model, token, state)
    warnings = [r.getMessage() for r in caplog.records if "CUDA-graph decoding turned off" in r.getMessage()]
    assert len(warnings) == 1 and "not permitted" in warnings[0] and "not permitted" in _graphs(tiny_model).failed
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    torch.testing.assert_close(got, _step(tiny_model, token, state)[0])


def test_a_capture_whose_replay_changes_nothing_is_caught_and_the_stream_restored(tiny_model, monkeypatch, caplog):
    """`_capture` itself, with CUDA's runtime faked on CPU: streams and devices as no-ops, and a graph
    that records nothing, so every replay does nothing (what torch's default capture stream gave on a
    second GPU). The check after capture must catch it, restore the caller's stream, and fall back."""
    import contextlib

    class FakeStream:
        def __init__(self, device=None):
            pass

        def wait_stream(self, other):
            pass

    class EmptyGraph:
        def replay(self):
            pass

    caller, restored = FakeStream(), []
    state, token = _prefill(tiny_model), torch.tensor([[4], [5], [6]])
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "auto")
    monkeypatch.setattr(decode_graphs, "replayable", lambda embeds, state, *args: state is not None)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: caller)
    monkeypatch.setattr(torch.cuda, "Stream", FakeStream)
    monkeypatch.setattr(torch.cuda, "stream", lambda stream: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "device", lambda device: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "set_stream", restored.append)
    monkeypatch.setattr(torch.cuda, "CUDAGraph", EmptyGraph)
    monkeypatch.setattr(torch.cuda, "graph", lambda graph, stream=None, capture_error_mode=None: contextlib.nullcontext())
    with caplog.at_level(logging.WARNING, logger=decode_graphs.__name__):
        got, _ = _step(tiny_model, token, state)
    assert "replay differs from the eager step" in _graphs(tiny_model).failed
    assert restored == [caller]
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    torch.testing.assert_close(got, _step(tiny_model, token, state)[0])


def test_copies_of_the_model_start_without_the_cache_and_nothing_keeps_a_deleted_model(tiny_model, monkeypatch):
    import copy
    import gc
    import io
    import weakref

    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    state, token = _prefill(tiny_model), torch.tensor([[4], [5], [6]])
    want, _ = _step(tiny_model, token, state)
    assert _graphs(tiny_model) is not None
    clone = copy.deepcopy(tiny_model)  # a reference model, an EMA copy: a CUDA graph cannot be copied
    buffer = io.BytesIO()
    torch.save(tiny_model, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    for other in (clone, loaded):
        assert _graphs(other) is None
        torch.testing.assert_close(_step(other, token, state)[0], want)
        assert _graphs(other) is not _graphs(tiny_model)
    alive = weakref.ref(clone)
    gc.disable()  # freed by reference counting alone: no cycle through the cache
    try:
        del clone, other
        assert alive() is None
    finally:
        gc.enable()


def test_threads_generating_at_once_each_get_their_own_tokens(tiny_model, monkeypatch):
    import threading

    prompts = [torch.tensor([[5, 6, 7, 8]]), torch.tensor([[9, 10, 11, 12]]), torch.tensor([[13, 3, 4, 2]])]
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    want = [_generate(tiny_model, p, None, "off", monkeypatch)[0] for p in prompts]
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    got = [None] * len(prompts)

    def run(i):
        with torch.no_grad():
            for _ in range(3):  # batch 1 everywhere: every thread replays the same static buffers
                got[i] = tiny_model.generate(prompts[i], max_new_tokens=12, do_sample=False, pad_token_id=1)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, w in zip(got, want):
        assert torch.equal(g, w)


def test_training_with_gradient_checkpointing_and_stale_caches(tiny_model, monkeypatch):
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    state, token = _prefill(tiny_model), torch.tensor([[4], [5], [6]])
    tiny_model.activation_checkpointing_enable()
    tiny_model.train()
    _step(tiny_model, token, state)  # no_grad rollouts of a model training with checkpointing: normal forward
    assert _graphs(tiny_model) is None
    tiny_model.activation_checkpointing_disable()
    tiny_model.eval()
    _step(tiny_model, token, state)
    assert _graphs(tiny_model) is not None
    head = tiny_model.model.ln_out
    head.weight = torch.nn.Parameter(head.weight.detach().clone())
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "off")
    _step(tiny_model, token, state)  # not replayable, but the stale cache is freed at once
    assert _graphs(tiny_model) is None


def test_an_unknown_mode_names_the_choices(tiny_model, monkeypatch):
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "sometimes")
    with pytest.raises(ValueError, match="auto, off, eager"):
        _step(tiny_model, torch.tensor([[4], [5], [6]]), _prefill(tiny_model))
    for spelling, mode in (("0", "off"), ("false", "off"), ("1", "auto"), ("", "auto"), ("EAGER", "eager")):
        monkeypatch.setenv("RUSTY_DECODE_GRAPHS", spelling)
        assert decode_graphs.decode_graph_mode() == mode


def test_counts_tell_static_steps_from_replays(tiny_model, monkeypatch):
    ids, mask = torch.tensor([[5, 6, 7]]), torch.ones(1, 3, dtype=torch.long)
    before = decode_graphs.decode_graph_counts()
    _generate(tiny_model, ids, mask, "off", monkeypatch)
    assert decode_graphs.decode_graph_counts() == before  # the normal forward: nothing counted
    _generate(tiny_model, ids, mask, "eager", monkeypatch)
    after = decode_graphs.decode_graph_counts()
    # 11 decoding steps after the prompt, each run on the static buffers; no capture on CPU, so no replay
    assert after["static_steps"] - before["static_steps"] == 11
    assert (after["captures"], after["replays"]) == (before["captures"], before["replays"])
