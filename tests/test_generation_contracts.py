"""`generate` and `pipeline` as transformers users call them: each mode with the cache equals it without.

A recurrent state replaces the key/value cache, so every mode that carries a cache (beam search reorders it,
a continuation passes it back, left-padded batches mask into it) must give what decoding the whole sequence
again at every step (`use_cache=False`) gives.
"""

from __future__ import annotations

import pytest
import torch
from transformers import TextIteratorStreamer, pipeline

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.models.tiny_rwkv import TinyRWKVCache
from tests.conftest import randomise_zero_init, tiny_config


@pytest.fixture
def model():
    torch.manual_seed(0)
    return randomise_zero_init(TinyRWKVForCausalLM(tiny_config()), std=0.3).eval()


@pytest.fixture
def text_model(tiny_tokenizer):
    torch.manual_seed(0)
    config = tiny_config(vocab_size=len(tiny_tokenizer), pad_token_id=tiny_tokenizer.pad_token_id,
                         eos_token_id=tiny_tokenizer.eos_token_id, bos_token_id=tiny_tokenizer.bos_token_id)
    return randomise_zero_init(TinyRWKVForCausalLM(config), std=0.3).eval()


def _both(model, prompt, **kwargs):
    kwargs = dict(max_new_tokens=8, min_new_tokens=8, pad_token_id=1, **kwargs)
    return model.generate(prompt, **kwargs), model.generate(prompt, use_cache=False, **kwargs)


@pytest.mark.parametrize("mode", [
    dict(do_sample=False),
    dict(do_sample=False, repetition_penalty=1.5),
    dict(do_sample=False, no_repeat_ngram_size=2),
    dict(do_sample=False, num_beams=3),
    dict(do_sample=False, num_beams=4, num_return_sequences=2),
    dict(do_sample=False, num_beams=2, length_penalty=0.5),
], ids=["greedy", "repetition_penalty", "no_repeat_ngram", "beam3", "beam4_return2", "beam2_length_penalty"])
def test_each_deterministic_mode_with_the_cache_equals_it_without(model, mode):
    with_cache, without = _both(model, torch.randint(2, 99, (2, 5)), **mode)
    assert with_cache.tolist() == without.tolist()


def test_sampling_with_the_cache_equals_it_without_for_one_seed(model):
    prompt = torch.randint(2, 99, (3, 4))
    torch.manual_seed(3)
    with_cache = model.generate(prompt, do_sample=True, top_k=20, max_new_tokens=8, pad_token_id=1)
    torch.manual_seed(3)
    without = model.generate(prompt, do_sample=True, top_k=20, max_new_tokens=8, pad_token_id=1, use_cache=False)
    assert with_cache.tolist() == without.tolist()


def test_beam_search_reorders_the_cache_and_equals_rescoring_without_it(model):
    prompt = torch.randint(2, 99, (2, 6))
    kwargs = dict(num_beams=3, num_return_sequences=3, max_new_tokens=6, do_sample=False, pad_token_id=1,
                  return_dict_in_generate=True, output_scores=True)
    got, want = model.generate(prompt, **kwargs), model.generate(prompt, use_cache=False, **kwargs)
    assert got.sequences.tolist() == want.sequences.tolist()
    torch.testing.assert_close(got.sequences_scores, want.sequences_scores, rtol=0, atol=1e-5)


def test_a_generation_continued_from_its_returned_cache_equals_one_generation(model):
    prompt = torch.randint(2, 99, (2, 5))
    first = model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False, pad_token_id=1,
                           return_dict_in_generate=True)
    assert isinstance(first.past_key_values, TinyRWKVCache)
    assert first.past_key_values.get_seq_length() == first.sequences.shape[1] - 1  # the last token is not read yet
    continued = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=5,
                               min_new_tokens=5, do_sample=False, pad_token_id=1)
    whole = model.generate(prompt, max_new_tokens=9, min_new_tokens=9, do_sample=False, pad_token_id=1)
    assert continued.tolist() == whole.tolist()


def test_a_left_padded_batch_continued_from_its_cache_equals_one_generation(model):
    ids = torch.randint(2, 99, (2, 7))
    mask = torch.ones_like(ids)
    ids[1, :3], mask[1, :3] = 1, 0
    kwargs = dict(do_sample=False, pad_token_id=1)
    first = model.generate(ids, attention_mask=mask, max_new_tokens=3, min_new_tokens=3,
                           return_dict_in_generate=True, **kwargs)  # fmt: skip
    mask2 = torch.cat([mask, torch.ones(2, 3, dtype=mask.dtype)], 1)
    continued = model.generate(first.sequences, attention_mask=mask2, past_key_values=first.past_key_values,
                               max_new_tokens=4, min_new_tokens=4, **kwargs)  # fmt: skip
    whole = model.generate(ids, attention_mask=mask, max_new_tokens=7, min_new_tokens=7, **kwargs)
    assert continued.tolist() == whole.tolist()


def test_forward_honours_past_key_values_and_updates_it_in_place(model):
    ids = torch.randint(2, 99, (2, 10))
    with torch.no_grad():
        whole = model(ids).logits
        cache = model(ids[:, :4], use_cache=True).past_key_values
        second = model(ids[:, 4:7], past_key_values=cache, use_cache=True)
        assert second.past_key_values is cache and cache.get_seq_length() == 7
        third = model(ids[:, 7:], past_key_values=cache, use_cache=True)
    torch.testing.assert_close(torch.cat([second.logits, third.logits], 1), whole[:, 4:], rtol=0, atol=1e-5)


def test_use_cache_is_on_by_default_and_survives_save_and_load(model, tmp_path):
    assert model.config.use_cache is True
    model.config.use_cache = False  # what gradient checkpointing in a Trainer leaves behind
    model.save_pretrained(tmp_path)
    loaded = TinyRWKVForCausalLM.from_pretrained(tmp_path)
    assert loaded.config.use_cache is True and loaded.generation_config.use_cache is not False


def test_stop_strings_streamer_and_the_text_generation_pipeline_work(text_model, tiny_tokenizer):
    import threading

    prompt = tiny_tokenizer("def add(a, b):", return_tensors="pt")
    full = text_model.generate(**prompt, max_new_tokens=12, do_sample=False)
    new_text = tiny_tokenizer.decode(full[0, prompt["input_ids"].shape[1]:])
    stop = new_text[2:4] if len(new_text) >= 4 else new_text
    stopped = text_model.generate(**prompt, max_new_tokens=12, do_sample=False, stop_strings=[stop],
                                  tokenizer=tiny_tokenizer)  # fmt: skip
    assert stopped.shape[1] <= full.shape[1] and stop in tiny_tokenizer.decode(stopped[0, prompt["input_ids"].shape[1]:])

    streamer = TextIteratorStreamer(tiny_tokenizer, skip_prompt=True)
    thread = threading.Thread(target=text_model.generate,
                              kwargs=dict(**prompt, max_new_tokens=12, do_sample=False, streamer=streamer))
    thread.start()
    streamed = "".join(streamer)
    thread.join()
    assert streamed == tiny_tokenizer.decode(full[0, prompt["input_ids"].shape[1]:], skip_special_tokens=True)

    generator = pipeline("text-generation", model=text_model, tokenizer=tiny_tokenizer)
    out = generator("def add(a, b):", max_new_tokens=12, do_sample=False, return_full_text=False)
    assert out[0]["generated_text"] == tiny_tokenizer.decode(full[0, prompt["input_ids"].shape[1]:],
                                                             skip_special_tokens=True)


def test_a_cache_cannot_be_cropped_and_says_why(model):
    cache = model(torch.randint(2, 99, (1, 4)), use_cache=True).past_key_values
    cache.crop(0)
    with pytest.raises(NotImplementedError, match="recurrent state"):
        cache.crop(1)
