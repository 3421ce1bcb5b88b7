"""Rusty's actions as chat-template tool calls, so TRL's multi-turn GRPO (``environment_factory``) can drive them.

Rusty speaks one JSON action per turn. TRL's tool loop speaks OpenAI-style messages: an assistant
message with ``tool_calls=[{"type": "function", "function": {"name", "arguments"}}]`` followed by
``{"role": "tool", "name", "content"}`` results. This module maps one onto the other, in both
directions, without changing a single token of what Rusty emits:

- rendering (``TOOL_CHAT_TEMPLATE``): a tool call named ``CMD`` with ``{"command": "ls"}`` renders as
  the assistant turn ``{"action": "CMD", "command": "ls"}``; a ``tool`` (or later ``system``)
  message renders as a ``<|system|>...<|end|>`` turn, the same place protocol corrections go; an
  assistant turn that calls a tool does not end the sequence (no ``<|endoftext|>``), which keeps the
  template prefix-preserving, as TRL requires for multi-turn training. Conversations without tools
  render byte-identically to ``rusty_hf.tokenizer.CHAT_TEMPLATE`` (tests/agent/test_tool_calling.py).
- parsing (``RESPONSE_TEMPLATE``, transformers' ``tokenizer.parse_response`` format): an output that
  starts ``{"action": "CMD"`` or ``{"action": "EDIT"`` becomes one tool call named after the action,
  whose arguments are the object's other string fields; MSG and anything malformed stay plain
  content, which ends a TRL rollout.

So the tool *names* TRL sees are the protocol's action names; :func:`protocol_tool` gives a method
such a name (TRL keys tools by ``__name__``) while it keeps a readable Python name.

    from rusty_hf.agent.tool_calling import enable_tool_calling
    tokenizer = enable_tool_calling(tokenizer)   # before GRPOTrainer(..., environment_factory=CodingEnv)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from transformers import PreTrainedTokenizerBase

from rusty_hf.tokenizer import CHAT_TEMPLATE, check_tokenizer

F = TypeVar("F", bound=Callable)

TOOL_ACTIONS = ("CMD", "EDIT")

# The assistant branch and the closing branch of the Rusty template, with tool support added. Built
# from CHAT_TEMPLATE by replacing exactly these two snippets, so the rest cannot drift from it.
_ASSISTANT_TURN = """{%- generation -%}
            {{- message['content'] + '<|end|>' -}}
        {%- endgeneration -%}"""
_ASSISTANT_TURN_WITH_TOOLS = """{%- generation -%}
            {%- if message.get('tool_calls') -%}
                {%- for call in message['tool_calls'] -%}
                    {%- set function = call['function'] if call['function'] is defined else call -%}
                    {{- '{"action": ' + function['name'] | tojson -}}
                    {%- for key, value in function['arguments'].items() -%}
                        {{- ', ' + key | tojson + ': ' + value | tojson -}}
                    {%- endfor -%}
                    {{- '}' -}}
                {%- endfor -%}
            {%- else -%}
                {{- message['content'] -}}
            {%- endif -%}
            {{- '<|end|>' -}}
        {%- endgeneration -%}
    {%- elif message['role'] == 'tool' or message['role'] == 'system' -%}
        {{- '<|system|>' + message['content'] + '<|end|>' -}}"""
_END_OF_CONVERSATION = "{%- elif turns and turns[-1]['role'] == 'assistant' -%}"
_END_OF_CONVERSATION_WITH_TOOLS = (
    "{%- elif turns and turns[-1]['role'] == 'assistant' and not turns[-1].get('tool_calls') -%}"
)


def _tool_template(base: str) -> str:
    for old in (_ASSISTANT_TURN, _END_OF_CONVERSATION):
        if base.count(old) != 1:
            raise RuntimeError("rusty_hf.tokenizer.CHAT_TEMPLATE changed shape; update rusty_hf/agent/tool_calling.py")
    base = base.replace(_ASSISTANT_TURN, _ASSISTANT_TURN_WITH_TOOLS)
    return base.replace(_END_OF_CONVERSATION, _END_OF_CONVERSATION_WITH_TOOLS)


TOOL_CHAT_TEMPLATE = _tool_template(CHAT_TEMPLATE)

# A JSON string literal, escapes included; the actions' fields are all strings.
_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
RESPONSE_TEMPLATE: dict = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|assistant|>",
    "fields": {
        "tool_calls": {
            "open_pattern": r'\{\s*"action"\s*:\s*"(?P<name>' + "|".join(TOOL_ACTIONS) + r')"\s*,?',
            "close_pattern": r"\}\s*(?:<\|end\|>|<\|endoftext\|>|$)",
            "content": "xml-inline",  # key/value pairs found by a regex, each value parsed as JSON
            "content_args": {
                "tag_pattern": r'"(?P<key>[A-Za-z_]\w*)"\s*:\s*(?P<value>' + _JSON_STRING + ")",
                "value_parser": {"name": "json"},
            },
            "repeats": True,
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|end\|>|<\|endoftext\|>", "content": "text"},
    },
}


def enable_tool_calling(tokenizer: PreTrainedTokenizerBase) -> PreTrainedTokenizerBase:
    """Give a Rusty tokenizer the tool-aware chat template and the response template (in place; returned).

    TRL's GRPOTrainer checks both when tools or ``environment_factory`` are used: the template must
    render ``tool_calls`` and ``tool`` messages and stay prefix-preserving, and
    ``tokenizer.response_template`` must parse a generation back into tool calls.

    Raises:
        ValueError: ``tokenizer`` is not a Rusty tokenizer (see ``rusty_hf.tokenizer.check_tokenizer``).
    """
    check_tokenizer(tokenizer)
    tokenizer.chat_template = TOOL_CHAT_TEMPLATE
    tokenizer.response_template = RESPONSE_TEMPLATE
    return tokenizer


def protocol_tool(action: str) -> Callable[[F], F]:
    """Name a tool method after the protocol action that calls it (TRL dispatches on ``__name__``).

    >>> @protocol_tool("CMD")
    ... def run_command(command: str) -> str:
    ...     return command
    >>> run_command.__name__
    'CMD'
    """
    if action not in TOOL_ACTIONS:
        raise ValueError(f"protocol tools are {TOOL_ACTIONS}, got {action!r}")

    def rename(func: F) -> F:
        func.__name__ = action
        func.__qualname__ = func.__qualname__.rsplit(".", 1)[0] + "." + action if "." in func.__qualname__ else action
        return func

    return rename
