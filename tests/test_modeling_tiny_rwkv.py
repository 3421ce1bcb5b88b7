"""TinyRWKV modelling: each test checks one property of the transformers model."""

import pytest
import torch
from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

from rusty_hf import TinyRWKVConfig, TinyRWKVForCausalLM, TinyRWKVLM, TinyRWKVModel
from tests.conftest import randomise_zero_init, tiny_config

torch.manual_seed(0)


def _left_pad(rows: list[torch.Tensor], pad_id: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id)
    mask = torch.zeros(len(rows), width, dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, width - len(row) :] = row
        mask[i, width - len(row) :] = 1
    return ids, mask


def test_defaults_are_rusty_r2():
    cfg = TinyRWKVConfig()
    assert (cfg.n_layers, cfg.d_hidden, cfg.d_embed, cfg.vocab_size, cfg.d_ffn) == (4, 512, 256, 24000, 2048)
    assert cfg.model_type == "tiny_rwkv" and not cfg.tie_word_embeddings
    assert cfg.hidden_size == 512 and cfg.num_hidden_layers == 4  # names the ecosystem reads


def test_seed_alias_is_the_causal_lm():
    assert TinyRWKVLM is TinyRWKVForCausalLM


def test_auto_classes_resolve_in_process():
    cfg = AutoConfig.for_model("tiny_rwkv", vocab_size=99, d_embed=16, d_hidden=32, n_layers=2)
    assert isinstance(AutoModelForCausalLM.from_config(cfg), TinyRWKVForCausalLM)
    assert isinstance(AutoModel.from_config(cfg), TinyRWKVModel)


def test_every_linear_is_quantizable_by_bnb_4bit():
    with torch.device("meta"):
        model = TinyRWKVForCausalLM(TinyRWKVConfig())
    linears = [(n, m) for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)]
    assert linears and all(m.out_features % 32 == 0 for _, m in linears), [
        (n, m.out_features) for n, m in linears if m.out_features % 32
    ]


def test_head_is_untied_and_embedding_is_projected():
    model = TinyRWKVForCausalLM(tiny_config())
    assert model.get_output_embeddings().weight.data_ptr() != model.get_input_embeddings().weight.data_ptr()
    assert model.get_input_embeddings().weight.shape == (99, 16)
    assert model.get_output_embeddings().weight.shape == (99, 32)


def test_rwkv4_initialisation():
    model = TinyRWKVForCausalLM(tiny_config(n_layers=3))
    att0, att2 = model.model.blocks[0].att, model.model.blocks[2].att
    # time_decay ramps from -5 to +3 across channels; the exponent depends on depth
    assert att0.time_decay[0].item() == pytest.approx(-5.0) and att0.time_decay[-1].item() == pytest.approx(3.0)
    assert att2.time_decay[16].item() == pytest.approx(-5 + 8 * (16 / 31) ** 2.0, rel=1e-5)
    assert att0.time_first[:3].tolist() == pytest.approx([-1.204, -0.704, -1.704], abs=1e-3)
    for name in ("key", "receptance", "output"):
        assert not getattr(att0, name).weight.any()
    assert not model.model.blocks[0].ffn.value.weight.any() and model.model.blocks[0].ffn.key.weight.any()
    assert model.model.emb.weight.abs().max() <= 1e-4


def test_chunked_run_with_carried_state_equals_whole_run(tiny_model):
    ids = torch.randint(2, 99, (2, 24))
    with torch.no_grad():
        whole = tiny_model(ids, use_cache=True)
        first = tiny_model(ids[:, :9], use_cache=True)
        second = tiny_model(ids[:, 9:], state=first.state, use_cache=True)
    torch.testing.assert_close(torch.cat([first.logits, second.logits], 1), whole.logits, rtol=0, atol=1e-5)
    for got, want in zip(second.state, whole.state):
        torch.testing.assert_close(got, want, rtol=0, atol=1e-5)


def test_left_padding_changes_no_logit_of_any_row(tiny_model):
    rows = [torch.randint(2, 99, (n,)) for n in (17, 9, 3)]
    ids, mask = _left_pad(rows)
    with torch.no_grad():
        batch = tiny_model(ids, attention_mask=mask, use_cache=True)
        for i, row in enumerate(rows):
            alone = tiny_model(row[None], use_cache=True)
            torch.testing.assert_close(batch.logits[i, -len(row) :], alone.logits[0], rtol=0, atol=1e-5)
            for got, want in zip(batch.state, alone.state):
                torch.testing.assert_close(got[i], want[0], rtol=0, atol=1e-5)


def test_left_padded_greedy_generation_equals_each_prompt_alone(tiny_model):
    rows = [torch.randint(2, 99, (n,)) for n in (12, 7, 2)]
    ids, mask = _left_pad(rows)
    kwargs = dict(max_new_tokens=10, min_new_tokens=10, do_sample=False, pad_token_id=1)
    batch = tiny_model.generate(ids, attention_mask=mask, **kwargs)
    for i, row in enumerate(rows):
        alone = tiny_model.generate(row[None], **kwargs)
        assert batch[i, ids.shape[1] :].tolist() == alone[0, len(row) :].tolist()


def test_generation_feeds_only_the_new_token_after_the_prompt(tiny_model):
    seen = []
    tiny_model.model.register_forward_hook(lambda mod, args, kwargs, out: seen.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    tiny_model.generate(torch.randint(2, 99, (1, 11)), max_new_tokens=6, min_new_tokens=6, do_sample=False)
    assert seen == [11, 1, 1, 1, 1, 1]


def test_sampling_with_state_runs_and_respects_length(tiny_model):
    torch.manual_seed(1)
    out = tiny_model.generate(torch.randint(2, 99, (4, 5)), max_new_tokens=8, min_new_tokens=8, do_sample=True, top_k=20)
    assert out.shape == (4, 13)


def test_parallel_forward_equals_token_by_token_with_large_keys():
    torch.manual_seed(3)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config()), std=2.0).eval()
    with torch.no_grad():
        for block in model.model.blocks:
            block.att.time_first.uniform_(-3, 3)
            block.att.time_decay.uniform_(-6, 2)
        ids = torch.randint(2, 99, (2, 128))
        whole = model(ids).logits
        state, steps = None, []
        for t in range(ids.shape[1]):
            out = model(ids[:, t : t + 1], state=state, use_cache=True)
            state = out.state
            steps.append(out.logits)
    assert state[3].abs().max() > 20  # the running exponent p saw large keys
    assert (torch.cat(steps, 1) - whole).abs().max().item() <= 1e-4


def test_loss_is_shifted_cross_entropy(tiny_model):
    ids = torch.randint(2, 99, (2, 10))
    out = tiny_model(ids, labels=ids)
    want = torch.nn.functional.cross_entropy(out.logits[:, :-1].reshape(-1, 99), ids[:, 1:].reshape(-1))
    torch.testing.assert_close(out.loss, want)


def test_logits_to_keep_computes_only_the_last_positions(tiny_model):
    ids = torch.randint(2, 99, (2, 10))
    with torch.no_grad():
        full = tiny_model(ids).logits
        last = tiny_model(ids, logits_to_keep=3).logits
    assert last.shape == (2, 3, 99)
    torch.testing.assert_close(last, full[:, -3:])


def test_activation_checkpointing_gives_the_same_gradients():
    ids = torch.randint(2, 99, (2, 16))
    grads = []
    for checkpointing in (False, True):
        torch.manual_seed(0)
        model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config())).train()
        if checkpointing:
            model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
        model(ids, labels=ids).loss.backward()
        grads.append({n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
    assert grads[0].keys() == grads[1].keys() and len(grads[0]) > 10
    for name in grads[0]:
        torch.testing.assert_close(grads[1][name], grads[0][name], rtol=1e-5, atol=1e-6)


def test_a_training_step_compiles_as_one_graph_with_the_same_loss_and_gradients():
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config())).train()
    ids = torch.randint(2, 99, (2, 12))
    params = list(model.parameters())
    results = []
    for run in (model, torch.compile(model, backend="aot_eager", fullgraph=True)):  # fullgraph: a break raises
        loss = run(ids, labels=ids).loss
        results.append((loss, torch.autograd.grad(loss, params)))
    (loss, grads), (want_loss, want_grads) = reversed(results)
    torch.testing.assert_close(loss, want_loss, rtol=1e-6, atol=0)
    for got, want in zip(grads, want_grads):  # eager runs the C++ kernels, compiled PyTorch's: summation order
        torch.testing.assert_close(got, want, rtol=0, atol=1e-5 * float(want.abs().max()))
    torch._dynamo.reset()


def test_left_padded_inference_compiles_as_one_graph_with_the_same_logits(tiny_model):
    torch._dynamo.reset()
    ids, mask = _left_pad([torch.randint(2, 99, (5,)), torch.randint(2, 99, (9,))])
    with torch.no_grad():
        want = tiny_model(ids, attention_mask=mask).logits
        got = torch.compile(tiny_model, backend="aot_eager", fullgraph=True)(ids, attention_mask=mask).logits
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()


def test_bf16_load_keeps_wkv_parameters_in_fp32(tmp_path):
    TinyRWKVForCausalLM(tiny_config()).save_pretrained(tmp_path)
    model = TinyRWKVForCausalLM.from_pretrained(tmp_path, dtype=torch.bfloat16)
    assert model.model.blocks[0].att.time_decay.dtype == torch.float32
    assert model.model.blocks[0].att.time_first.dtype == torch.float32
    assert model.lm_head.weight.dtype == torch.bfloat16
    out = model(torch.randint(2, 99, (1, 8)), use_cache=True)
    assert torch.isfinite(out.logits.float()).all() and out.state[1].dtype == torch.float32


def test_saved_weights_are_safetensors(tmp_path):
    TinyRWKVForCausalLM(tiny_config()).save_pretrained(tmp_path)
    assert (tmp_path / "model.safetensors").is_file() and not (tmp_path / "pytorch_model.bin").exists()


def test_mixing_weights_are_c_in_memory_and_1_1_c_in_files_either_file_layout_loads(tmp_path):
    from safetensors.torch import load_file, save_file

    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config())).eval()
    mix = {n: p for n, p in model.named_parameters() if ".time_mix_" in n}
    assert len(mix) == 5 * model.config.n_layers and {p.dim() for p in mix.values()} == {1}
    model.save_pretrained(tmp_path / "saved")
    weights = load_file(tmp_path / "saved" / "model.safetensors")
    assert {tuple(weights[n].shape) for n in mix} == {(1, 1, model.config.d_hidden)}  # RWKV-4's file layout
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "config.json").write_text((tmp_path / "saved" / "config.json").read_text())
    save_file({n: t.reshape(-1) if n in mix else t for n, t in weights.items()}, tmp_path / "flat" / "model.safetensors")
    ids = torch.randint(2, 99, (2, 7))
    with torch.no_grad():
        want = model(ids).logits
        for folder in ("saved", "flat"):
            loaded = TinyRWKVForCausalLM.from_pretrained(tmp_path / folder).eval()
            assert {tuple(loaded.get_parameter(n).shape) for n in mix} == {(model.config.d_hidden,)}
            torch.testing.assert_close(loaded(ids).logits, want, rtol=0, atol=0)
        # a Trainer resuming a checkpoint loads the file with torch's load_state_dict
        resumed = TinyRWKVForCausalLM(tiny_config()).eval()
        assert not resumed.load_state_dict(weights, strict=False).missing_keys
        torch.testing.assert_close(resumed(ids).logits, want, rtol=0, atol=0)


def test_state_of_the_wrong_batch_size_is_rejected(tiny_model):
    state = tiny_model(torch.randint(2, 99, (2, 4)), use_cache=True).state
    with pytest.raises(ValueError, match="batch size"):
        tiny_model(torch.randint(2, 99, (3, 1)), state=state)


def test_a_4d_attention_mask_is_rejected_with_the_fix(tiny_model):
    with pytest.raises(ValueError, match="2D padding mask"):
        tiny_model(torch.randint(2, 99, (1, 4)), attention_mask=torch.ones(1, 1, 4, 4))


def test_fast_inference_linear_equals_the_module_and_follows_weight_updates():
    from rusty_hf.models.tiny_rwkv import decoding_session, inference_cache
    from rusty_hf.models.tiny_rwkv.inference_cache import fast_linear

    for layer in (torch.nn.Linear(32, 64), torch.nn.Linear(16, 8192, bias=False)):  # plain and split head
        x = torch.randn(3, 1, layer.in_features)
        with torch.no_grad(), decoding_session():
            torch.testing.assert_close(fast_linear(layer, x), layer(x))
            layer.weight.mul_(2.0)  # a version bump inside a session is still seen
            torch.testing.assert_close(fast_linear(layer, x), layer(x))
    layer = torch.nn.Linear(32, 64)
    x = torch.randn(3, 32)
    with decoding_session():
        y = fast_linear(layer, x)  # with grad enabled it is the module itself
        assert y.requires_grad and not inference_cache.session_cache()
    assert inference_cache.session_cache() is None  # the session's copies are gone with it
