"""Model arguments checked before loading: paths vs Hub ids, damaged folders, an unreachable Hub.

The end-to-end cases run `rusty-terminal` (python -m rusty_hf.agent.terminal) in a subprocess, online
(HF_HUB_OFFLINE=0) against a loopback "Hub": a listening socket that counts connections, or a closed port.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.hub.checkpoints import check_model_folder, check_model_source, looks_like_path
from rusty_hf.errors import CheckpointError, NoSuchPathError
from tests.conftest import tiny_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name, is_path", [
    ("/abs/model", True), ("./model", True), ("../model", True), ("~/model", True), ("outputs/tiny-grpo", True),
    ("data/x", True), ("a/b/c", True), ("rusty-hf/rusty-r2", False), ("gpt2", False), ("bad name/x", True),
])
def test_what_counts_as_a_path(name, is_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no folder of these names exists here
    assert looks_like_path(name) is is_path


def test_a_name_under_an_existing_folder_is_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user").mkdir()
    assert looks_like_path("user/model") and not looks_like_path("other/model")


class CountingServer:
    """A loopback TCP listener that accepts and counts connections: the Hub endpoint nothing should reach."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens here once the socket is closed


def _terminal(model: str, cwd: Path, endpoint: str, offline: str = "0") -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "HF_HUB_OFFLINE": offline, "HF_ENDPOINT": endpoint, "HF_HOME": str(cwd / "hf_home"),
           "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "rusty_hf.agent.terminal", "--model", model, "--workdir", str(cwd)],
                            cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)
    return result, time.monotonic() - start


def _one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    (line,) = result.stderr.strip().splitlines()
    return line


def test_a_missing_path_fails_at_once_without_any_hub_traffic(tmp_path):
    hub = CountingServer()
    result, seconds = _terminal("outputs/tiny-grpo", tmp_path, hub.url)  # the README's command, no outputs/ here
    assert _one_line(result).startswith("rusty-terminal: no such folder: outputs/tiny-grpo. Fix:")
    assert hub.connections == 0
    assert seconds < 10  # interpreter start included; retries would take 20 s or more


def test_an_unreachable_hub_fails_fast_without_retries(tmp_path):
    result, seconds = _terminal("someone/rusty-model", tmp_path, f"http://127.0.0.1:{_closed_port()}")
    line = _one_line(result)
    assert "cannot reach the Hub" in line and "Retrying" not in result.stderr
    assert seconds < 10


def test_offline_a_hub_id_must_be_in_the_cache(tmp_path):
    result, _ = _terminal("someone/rusty-model", tmp_path, f"http://127.0.0.1:{_closed_port()}", offline="1")
    assert "nor in the Hub cache, and HF_HUB_OFFLINE is set" in _one_line(result)


@pytest.fixture
def saved(tmp_path) -> Path:
    folder = tmp_path / "model"
    TinyRWKVForCausalLM(tiny_config()).save_pretrained(folder)
    return folder


def test_a_truncated_safetensors_is_one_line_from_the_terminal(saved, tmp_path, capsys):
    from rusty_hf.agent.terminal import main

    weights = saved / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    assert main(["--model", str(saved), "--workdir", str(tmp_path)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"rusty-terminal: {weights} is truncated") and "Fix: re-save the model" in line


def test_a_cut_header_is_named_too(saved):
    (saved / "model.safetensors").write_bytes(b"\x05\x00")
    with pytest.raises(CheckpointError, match="truncated or not a safetensors file"):
        check_model_folder(saved)


def test_a_folder_without_weights_or_config_is_named(saved):
    (saved / "model.safetensors").unlink()
    with pytest.raises(CheckpointError, match="has no weights"):
        check_model_source(str(saved))
    (saved / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="config.json is not valid JSON"):
        check_model_folder(saved)
    (saved / "config.json").unlink()
    with pytest.raises(CheckpointError, match="no config.json"):
        check_model_folder(saved)


def test_a_missing_shard_is_named(saved):
    (saved / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"w": "model-00001-of-00002.safetensors"}}))
    (saved / "model.safetensors").rename(saved / "whole.safetensors")
    with pytest.raises(CheckpointError, match="lacks weight shards"):
        check_model_folder(saved)


def test_a_tokenizer_that_does_not_fit_is_refused(saved, tiny_tokenizer):
    from rusty_hf.inference import load_model, load_tokenizer_for

    tiny_tokenizer.save_pretrained(saved)  # 288 tokens; the model has 99 rows
    with pytest.raises(CheckpointError, match="does not fit its model: tokenizer has 288 tokens"):
        load_tokenizer_for(load_model(saved), saved)


def test_a_missing_folder_is_a_file_not_found_error(tmp_path):
    with pytest.raises(NoSuchPathError) as info:
        check_model_source(str(tmp_path / "nope"))
    assert isinstance(info.value, FileNotFoundError)  # callers that catch the builtin type still do
