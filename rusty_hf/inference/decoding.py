"""How Rusty decodes a reply, written once: rusty-terminal, the Space and the terminal evaluation all use it.

Greedy unless asked to sample. With ``constrained`` a `rusty_hf.protocol.ProtocolLogitsProcessor` lets
only valid actions out, closes the action within ``max_new_tokens`` and keeps a message from repeating a phrase
more than three times; with ``copy`` too, it favours
the names a reply may copy (`rusty_hf.protocol.copying`: the request's names, the command outputs since,
and the work dir's paths that confirm them; with the work dir's root, the quoted values its files hold).

    processors = reply_processors(tokenizer, [messages], max_new_tokens=96,
                                  workspace_names=[workspace.paths()], workspace_roots=[workspace.root])
    model.generate(**inputs, **reply_settings(tokenizer, processors, max_new_tokens=96))

A processor tracks the rows of one generation: build one per `generate` call, never share one between
concurrent requests. `rusty_hf.inference.streaming` streams one reply this way; the evaluation batches.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from transformers import LogitsProcessorList, PreTrainedTokenizerBase

from rusty_hf.protocol import ProtocolLogitsProcessor
from rusty_hf.protocol.copying import copy_sources, copy_targets, earlier_sources
from rusty_hf.protocol.pointers import is_marked, last_request, pointer_token_ids, unmarked
from rusty_hf.tokenizer import generation_eos_ids

MAX_PHRASE_REPEATS = 3  # issue 37: no reply repeats a phrase more than three times


def reply_processors(
    tokenizer: PreTrainedTokenizerBase,
    conversations: Sequence[list[dict]],
    *,
    max_new_tokens: int,
    constrained: bool = True,
    copy: bool = True,
    workspace_names: Sequence[Iterable[str]] | None = None,
    workspace_roots: Sequence[str | os.PathLike | None] | None = None,
    prompt_length: int | None = None,
    max_phrase_repeats: int | None = MAX_PHRASE_REPEATS,
) -> LogitsProcessorList:
    """The logits processors of one `generate` call, one batch row per conversation.

    Args:
        conversations: the chat of each row, as the model sees it (what its reply may copy from).
        constrained: decode under the protocol automaton; False gives no processor at all.
        copy: with ``constrained``, the copy bias of each row's conversation.
        workspace_names: per row, the paths of its work dir (None: no work dir).
        workspace_roots: per row, its work dir, whose files are searched for quoted values (None: none).
        prompt_length: where generated tokens start (None: the input length at the first step).
        max_phrase_repeats: with ``constrained``, a message writes no phrase (three words) more often than
            this (None: no bound); `ProtocolLogitsProcessor` says how.
    """
    processors = LogitsProcessorList()
    if not constrained:
        return processors
    names = None
    if copy:
        names = [copy_targets(copy_sources(chat), workspace_names[i] if workspace_names else (),
                              workspace_roots[i] if workspace_roots else None, earlier=earlier_sources(chat))
                 for i, chat in enumerate(map(unmarked, conversations))]  # fmt: skip
    pointers = None
    if any(is_marked(m["content"]) for c in conversations for m in c if m.get("role") == "user"):  # a pointer model's chat
        pointers = [pointer_token_ids(tokenizer, last_request(conversation)) for conversation in conversations]
    processors.append(ProtocolLogitsProcessor(tokenizer, prompt_length=prompt_length, max_new_tokens=max_new_tokens,
                                              copy_names=names, max_phrase_repeats=max_phrase_repeats, pointers=pointers))
    return processors


def reply_settings(
    tokenizer: PreTrainedTokenizerBase,
    processors: LogitsProcessorList,
    *,
    max_new_tokens: int,
    do_sample: bool = False,
    temperature: float = 0.7,
) -> dict:
    """The keyword arguments of ``model.generate`` for a reply (besides the inputs and a streamer):
    the budget, greedy or sampled, ``processors``, and the tokens that end a turn."""
    settings = dict(max_new_tokens=max_new_tokens, do_sample=do_sample, logits_processor=processors,
                    eos_token_id=generation_eos_ids(tokenizer), pad_token_id=tokenizer.pad_token_id)  # fmt: skip
    if do_sample:
        settings["temperature"] = temperature
    return settings


__all__ = ["MAX_PHRASE_REPEATS", "reply_processors", "reply_settings"]
