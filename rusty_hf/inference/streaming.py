"""Stream one assistant reply from a chat, optionally constrained to a valid protocol action.

    from rusty_hf.inference import stream_reply
    for text_so_far in stream_reply(model, tokenizer, messages, max_new_tokens=256):
        show(text_so_far)

`model.generate` runs in a worker thread and feeds transformers' `TextIteratorStreamer`; `stream_pieces`
yields each piece the streamer decodes (what rusty-terminal prints), `stream_reply` the whole reply
decoded so far (what a chat UI re-renders). The processors and settings are `rusty_hf.inference.decoding`'s,
the ones the terminal evaluation batches with: constrained decoding (the default) and the copy bias of the
conversation and its work dir, built per call (a processor tracks the rows of one generation, so
concurrent requests must not share one) and given `max_new_tokens`, so the action is closed within the budget.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase, TextIteratorStreamer

from rusty_hf.inference.decoding import reply_processors, reply_settings
from rusty_hf.protocol.pointers import mark_conversation, strip_markers, uses_pointers


def chat_inputs(
    tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, str]], max_prompt_tokens: int | None
) -> dict[str, torch.Tensor]:
    """The chat template with the generation prompt, keeping the newest `max_prompt_tokens` tokens (None: all).

    Older turns are dropped whole-token from the left; the system prompt goes with them only for
    very long chats (the recurrent model has no window, the limit bounds the prefill cost).
    """
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True)["input_ids"]
    if max_prompt_tokens is not None:
        ids = ids[-max_prompt_tokens:]
    return {"input_ids": torch.tensor([ids]), "attention_mask": torch.ones(1, len(ids), dtype=torch.long)}


def stream_pieces(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    messages: list[dict[str, str]],
    max_new_tokens: int = 256,
    constrained: bool = True,
    do_sample: bool = False,
    temperature: float = 0.7,
    max_prompt_tokens: int | None = 2048,
    timeout_s: float | None = 120.0,
    copy: bool = True,
    workspace_names: Iterable[str] = (),
    workspace_root: str | os.PathLike | None = None,
) -> Iterator[str]:
    """Yield each piece of the reply as the streamer decodes it, until generation ends.

    ``copy`` (with ``constrained``): favour what the reply may copy from ``messages`` and the work dir
    (``workspace_names``: its paths; ``workspace_root``: where its files are searched for quoted values).
    A model trained with copy pointers reads the requests marked, and its pieces come without the markers.
    ``max_prompt_tokens`` None keeps the whole chat; ``timeout_s`` None waits for each piece as long as it takes.

    Raises whatever `generate` raised in its thread, after the stream ends.
    """
    pointing = uses_pointers(model)  # marked requests in, what runs out (`rusty_hf.protocol.pointers`)
    if pointing:
        messages = mark_conversation(messages)
    inputs = {k: v.to(model.device) for k, v in chat_inputs(tokenizer, messages, max_prompt_tokens).items()}
    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True, timeout=timeout_s)
    processors = reply_processors(tokenizer, [messages], max_new_tokens=max_new_tokens, constrained=constrained, copy=copy,
                                  workspace_names=[workspace_names], workspace_roots=[workspace_root],
                                  prompt_length=inputs["input_ids"].shape[1])  # fmt: skip
    kwargs = dict(**inputs, streamer=streamer,
                  **reply_settings(tokenizer, processors, max_new_tokens=max_new_tokens, do_sample=do_sample,
                                   temperature=temperature))  # fmt: skip
    failure: list[BaseException] = []

    def work() -> None:
        try:
            with torch.inference_mode():
                model.generate(**kwargs)
        except BaseException as err:  # noqa: BLE001 -- re-raised in the caller's thread below
            failure.append(err)
            streamer.end()

    worker = threading.Thread(target=work, name="rusty-generate", daemon=True)
    worker.start()
    for piece in streamer:
        yield strip_markers(piece) if pointing else piece
    worker.join()
    if failure:
        raise failure[0]


def stream_reply(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    messages: list[dict[str, str]],
    max_new_tokens: int = 256,
    **options: Any,
) -> Iterator[str]:
    """Yield the reply decoded so far, piece by piece, until generation ends. ``options`` are
    `stream_pieces`' (``constrained``, ``copy``, ``workspace_names``, ``do_sample``...).

    Raises whatever `generate` raised in its thread, after the stream ends.
    """
    text = ""
    for piece in stream_pieces(model, tokenizer, messages, max_new_tokens, **options):
        text += piece
        yield text


__all__ = ["chat_inputs", "stream_pieces", "stream_reply"]
