"""Fixtures for the Space: space/app.py imported from its folder, and one in-process server.

The server runs `build_demo` on a tiny random TinyRWKV and the tiny BPE, saved with
`save_pretrained` and loaded back through `load_model(..., quantization="int8")`, the path the
Space itself takes. It listens on loopback for the whole session; tests talk to it over HTTP.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

import pytest
import torch

from rusty_hf import TinyRWKVForCausalLM
from tests.conftest import randomise_zero_init, tiny_config

SPACE_DIR = Path(__file__).resolve().parents[2] / "space"
MAX_NEW_TOKENS = 24
MAX_INPUT_CHARS = 200
CONCURRENCY_LIMIT = 4


def import_space_app():
    sys.path.insert(0, str(SPACE_DIR))
    spec = importlib.util.spec_from_file_location("rusty_space_app", SPACE_DIR / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def space_app():
    return import_space_app()


@pytest.fixture(scope="session")
def served_space(space_app, tiny_tokenizer, tmp_path_factory):
    """(url, demo, peak) of a running Space on a tiny int8 model; peak["max"] is the most
    generations that ever ran at once (model.generate is wrapped to count them)."""
    from rusty_hf.inference import load_model

    folder = tmp_path_factory.mktemp("space-model")
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer))))
    model.save_pretrained(folder)
    tiny_tokenizer.save_pretrained(folder)
    model = load_model(folder, quantization="int8", device="cpu")
    peak, lock, generate = {"now": 0, "max": 0}, threading.Lock(), model.generate

    def counted_generate(*args, **kwargs):
        with lock:
            peak["now"] += 1
            peak["max"] = max(peak["max"], peak["now"])
        try:
            return generate(*args, **kwargs)
        finally:
            with lock:
                peak["now"] -= 1

    model.generate = counted_generate
    demo = space_app.build_demo(
        model,
        tiny_tokenizer,
        max_new_tokens=MAX_NEW_TOKENS,
        max_input_chars=MAX_INPUT_CHARS,
        concurrency_limit=CONCURRENCY_LIMIT,
    )
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, css=space_app.CSS)
    yield url, demo, peak
    demo.close()
