"""Stream one assistant reply from a chat, optionally constrained to a valid protocol action.

    from rusty_hf.inference import stream_reply
    for text_so_far in stream_reply(model, tokenizer, messages, max_new_tokens=256):
        show(text_so_far)

`model.generate` runs in a worker thread and feeds transformers' `TextIteratorStreamer`; each
yield is the whole reply decoded so far (what a chat UI re-renders). With `constrained=True`
(the default) a `rusty_hf.protocol.ProtocolLogitsProcessor` is built per call (it tracks the
rows of one generation, so concurrent requests must not share one) and given `max_new_tokens`,
so the action is closed within the budget.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import torch
from transformers import LogitsProcessorList, PreTrainedModel, PreTrainedTokenizerBase, TextIteratorStreamer

from rusty_hf.tokenizer import generation_eos_ids

if TYPE_CHECKING:
    from rusty_hf.protocol.copying import CopyTargets


def chat_inputs(
    tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, str]], max_prompt_tokens: int
) -> dict[str, torch.Tensor]:
    """The chat template with the generation prompt, keeping the newest `max_prompt_tokens` tokens.

    Older turns are dropped whole-token from the left; the system prompt goes with them only for
    very long chats (the recurrent model has no window, the limit bounds the prefill cost).
    """
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True)["input_ids"]
    ids = ids[-max_prompt_tokens:]
    return {"input_ids": torch.tensor([ids]), "attention_mask": torch.ones(1, len(ids), dtype=torch.long)}


def stream_reply(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    messages: list[dict[str, str]],
    max_new_tokens: int = 256,
    constrained: bool = True,
    do_sample: bool = False,
    temperature: float = 0.7,
    max_prompt_tokens: int = 2048,
    timeout_s: float = 120.0,
    copy_names: CopyTargets | list[str] | None = None,
) -> Iterator[str]:
    """Yield the reply decoded so far, token by token, until generation ends.

    ``copy_names`` (with ``constrained``): what the reply may copy, favoured by the protocol's copy
    bias (`rusty_hf.protocol.copying.copy_targets` of the request and the work dir's paths).

    Raises whatever `generate` raised in its thread, after the stream ends.
    """
    inputs = {k: v.to(model.device) for k, v in chat_inputs(tokenizer, messages, max_prompt_tokens).items()}
    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True, timeout=timeout_s)
    processors = LogitsProcessorList()
    if constrained:
        from rusty_hf.protocol import ProtocolLogitsProcessor  # the protocol package is optional here

        processors.append(
            ProtocolLogitsProcessor(tokenizer, prompt_length=inputs["input_ids"].shape[1], max_new_tokens=max_new_tokens,
                                    copy_names=None if copy_names is None else [copy_names])
        )
    kwargs = dict(
        **inputs,
        max_new_tokens=max_new_tokens,
        do_sample=do_sample,
        logits_processor=processors,
        streamer=streamer,
        eos_token_id=generation_eos_ids(tokenizer),
        pad_token_id=tokenizer.pad_token_id,
    )
    if do_sample:
        kwargs["temperature"] = temperature
    failure: list[BaseException] = []

    def work() -> None:
        try:
            with torch.inference_mode():
                model.generate(**kwargs)
        except BaseException as err:  # noqa: BLE001 -- re-raised in the caller's thread below
            failure.append(err)
            streamer.end()

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    text = ""
    for piece in streamer:
        text += piece
        yield text
    worker.join()
    if failure:
        raise failure[0]


__all__ = ["chat_inputs", "stream_reply"]
