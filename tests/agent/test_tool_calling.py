"""rusty_hf.agent.tool_calling: Rusty's JSON actions render and parse as TRL tool calls."""

import copy

import pytest
from trl.chat_template_utils import (
    is_chat_template_prefix_preserving,
    parse_response,
    supports_tool_calling,
)

from rusty_hf.agent.tool_calling import enable_tool_calling, protocol_tool

CONVERSATION = [
    {"role": "system", "content": "Be terse."},
    {"role": "user", "content": "find the TODOs"},
    {"role": "assistant", "content": '{"action": "CMD", "command": "grep -rn TODO ."}'},
    {"role": "user", "content": "thanks"},
    {"role": "assistant", "content": '{"action": "MSG", "message": "Done."}'},
]


@pytest.fixture
def tok(tiny_tokenizer):
    return enable_tool_calling(copy.deepcopy(tiny_tokenizer))  # the session fixture stays untouched


def _generated(tok, text):
    return tok.encode(text, add_special_tokens=False)


def test_conversations_without_tools_render_as_before(tok, tiny_tokenizer):
    for prompt in (False, True):
        messages = CONVERSATION if not prompt else CONVERSATION[:4]
        assert tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=prompt) == (
            tiny_tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=prompt)
        )


def test_trl_accepts_the_template_for_multi_turn_tool_calling(tok):
    assert supports_tool_calling(tok)
    assert is_chat_template_prefix_preserving(tok)


def test_tool_call_renders_as_the_protocol_action_and_result_as_a_system_turn(tok):
    call = {"type": "function", "function": {"name": "EDIT", "arguments": {"path": "a.py", "content": 'x = "1"\n'}}}
    messages = [
        {"role": "user", "content": "write it"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "name": "EDIT", "content": "wrote a.py"},
    ]
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text.endswith(
        '<|assistant|>{"action": "EDIT", "path": "a.py", "content": "x = \\"1\\"\\n"}<|end|>'
        "<|system|>wrote a.py<|end|><|assistant|>"
    )


@pytest.mark.parametrize(
    "text, name, arguments",
    [
        ('{"action": "CMD", "command": "ls -la"}<|end|>', "CMD", {"command": "ls -la"}),
        ('{"action": "EDIT", "path": "s.py", "content": "d = {}\\nq = \\"}\\""}<|end|>', "EDIT",
         {"path": "s.py", "content": 'd = {}\nq = "}"'}),
    ],
)
def test_cmd_and_edit_parse_into_one_tool_call(tok, text, name, arguments):
    parsed = parse_response(tok, _generated(tok, text), prefix=[])
    assert parsed["tool_calls"] == [{"type": "function", "function": {"name": name, "arguments": arguments}}]


@pytest.mark.parametrize("text", ['{"action": "MSG", "message": "Done."}<|end|>', "no json at all<|end|>"])
def test_msg_and_malformed_output_stay_plain_content(tok, text):
    parsed = parse_response(tok, _generated(tok, text), prefix=[])
    assert "tool_calls" not in parsed
    assert parsed["content"].strip() == text.removesuffix("<|end|>")


def test_protocol_tool_renames_for_dispatch_only():
    class Env:
        @protocol_tool("CMD")
        def run_command(self, command: str) -> str:
            return command

    assert Env().run_command.__name__ == "CMD" and Env().run_command("ls") == "ls"
    with pytest.raises(ValueError, match="CMD"):
        protocol_tool("RUN")


def test_foreign_tokenizer_is_refused(tiny_tokenizer):
    from transformers import PreTrainedTokenizerFast

    foreign = PreTrainedTokenizerFast(tokenizer_object=tiny_tokenizer.backend_tokenizer)
    with pytest.raises(ValueError, match="eos/pad"):
        enable_tool_calling(foreign)
