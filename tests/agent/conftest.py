"""A tiny Rusty checkpoint that has memorised a few dialogs, so agent tests drive a real model deterministically.

Built once per test session (about 10-20 s on 2 busy cores): a small BPE tokenizer trained on the
dialogs and the persona prompt, and a TinyRWKV fine-tuned on the assistant turns until greedy
decoding reproduces every reply. Saved with ``save_pretrained`` like any checkpoint.
"""

import json

import pytest
import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT, train_tokenizer
from tests.conftest import tiny_config

ADD_SOLUTION = "def add(a, b):\n    return a + b\n"
ADD_TESTS = "from solution import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
# user text -> the exact reply the model learns (the last one is deliberately not an action)
DIALOGS = {
    "list files": json.dumps({"action": "CMD", "command": "ls"}),
    "what files are here?": json.dumps({"action": "CMD", "command": "ls"}),  # recipes/tiny/e2e.py's question
    "write evil": json.dumps({"action": "EDIT", "path": "../evil.txt", "content": "pwned"}),
    "make notes": json.dumps({"action": "EDIT", "path": "notes.txt", "content": "remember the milk"}),
    "hello": json.dumps({"action": "MSG", "message": "Hi. What needs fixing?"}),
    "babble": "this is not json",
    "write add": json.dumps({"action": "EDIT", "path": "solution.py", "content": ADD_SOLUTION}),
}
# A short system prompt (the terminal's --system-prompt) keeps sequences ~25 tokens instead of ~200 with
# the full persona, which is what makes memorising affordable on a busy CPU.
SYSTEM_PROMPT = "You are Rusty. One JSON action per turn."
MAX_TRAIN_STEPS = 100
STOP_LOSS = 0.005  # below this, greedy decoding reproduces every reply (about 40-50 steps)


def _conversation(user: str, reply: str) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user},
        {"role": "assistant", "content": reply},
    ]


def _train(model, tokenizer) -> None:
    # Under the terminal's --system-prompt, and for the e2e question under the template's own persona (no
    # system message), as rusty-terminal and the Space send it without one.
    conversations = [_conversation(u, r) for u, r in DIALOGS.items()]
    conversations.append(_conversation("what files are here?", DIALOGS["what files are here?"])[1:])
    batch = tokenizer.apply_chat_template(
        conversations, return_dict=True, return_tensors="pt", padding=True, return_assistant_tokens_mask=True,
    )  # fmt: skip
    labels = batch["input_ids"].masked_fill(batch["assistant_masks"] == 0, -100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(MAX_TRAIN_STEPS):
        loss = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=labels).loss
        if loss.item() < STOP_LOSS:
            break
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()


@pytest.fixture(scope="session")
def rusty_checkpoint(tmp_path_factory):
    """Folder with a tokenizer and a TinyRWKV that answers each of DIALOGS' user texts with its reply."""
    texts = [RUSTY_SYSTEM_PROMPT, SYSTEM_PROMPT, *DIALOGS, *DIALOGS.values()] * 20
    tokenizer = train_tokenizer(texts, vocab_size=384, show_progress=False)
    torch.manual_seed(0)
    config = tiny_config(vocab_size=len(tokenizer), d_embed=32, d_hidden=64, n_layers=2)
    model = TinyRWKVForCausalLM(config)
    _train(model, tokenizer)
    folder = tmp_path_factory.mktemp("rusty-tiny")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
