"""rusty_hf.inference.decoding: rusty-terminal, the Space and the terminal evaluation decode one reply alike."""

import copy

import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.agent.session import AgentSession
from rusty_hf.agent.tool_calling import enable_tool_calling
from rusty_hf.agent.workspace import Workspace
from rusty_hf.evaluation.terminal import generate_replies
from rusty_hf.protocol import parse_action
from tests.conftest import randomise_zero_init, tiny_config
from tests.space.conftest import import_space_app

# A command's output went back to the model, so the copy bias has the request, the output and the work dir.
CONVERSATION = [
    {"role": "user", "content": "what files are here?"},
    {"role": "assistant", "content": '{"action": "CMD", "command": "ls"}'},
    {"role": "tool", "name": "CMD", "content": "README.md\nhello.py\nnotes.txt"},
]


def test_the_terminal_the_space_and_the_evaluation_decode_the_same_reply(tiny_tokenizer):
    tokenizer = enable_tool_calling(copy.deepcopy(tiny_tokenizer))
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tokenizer)))).eval()
    app = import_space_app()
    session = app.Session()  # the Space's demo files in a fresh work dir, which the others get too
    try:
        session.turns = [dict(m) for m in CONVERSATION]
        space = list(app.reply_stream(model, tokenizer, session, constrained=True, max_new_tokens=40))[-1]
        agent = AgentSession(model, tokenizer, Workspace(session.workdir), max_new_tokens=40)
        agent.messages = [dict(m) for m in CONVERSATION]
        terminal = agent.generate()
        (evaluation,) = generate_replies(model, tokenizer, [CONVERSATION], max_new_tokens=40,
                                         workspace_names=[sorted(session.files())], workspace_roots=[session.workdir])  # fmt: skip
    finally:
        session.close()
    assert terminal.strip() == space.strip() == evaluation
    assert parse_action(evaluation)
