"""The README's and the model card's Python snippets run as written in a process that cannot import rusty_hf.

Each snippet is extracted from the Markdown, every folder it loads from (``from_pretrained("...")``) is
made a copy of a tiny model saved locally (never the Hub, HF_HUB_OFFLINE=1), and the snippet runs in a
fresh interpreter (``python -I``, stdin closed) where ``import rusty_hf`` fails. It must exit 0, ask
nothing (transformers' "[y/N]" remote-code prompt) and print nothing on stderr except the
"Loading weights" progress bar transformers draws for every model (progress, not a warning).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.model_card import write_model_card
from rusty_hf.models.tiny_rwkv.cpu_kernels import load_kernel
from tests.conftest import randomise_zero_init, tiny_config

ROOT = Path(__file__).resolve().parents[1]
# Runs the snippet with `rusty_hf` made unimportable: a None entry in sys.modules fails every import of it.
RUNNER = "import runpy, sys; sys.modules['rusty_hf'] = None; runpy.run_path('snippet.py', run_name='__main__')"
PROGRESS_BAR = re.compile(r"^Loading weights: +\d+%\|")


def python_snippets(markdown: str) -> list[str]:
    """The ```python blocks of a Markdown text that load a model."""
    return [block for block in re.findall(r"```python\n(.*?)```", markdown, flags=re.DOTALL) if "from_pretrained(" in block]


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory, tiny_tokenizer) -> Path:
    """A tiny TinyRWKV and the tiny BPE saved with save_pretrained, as a recipe leaves them."""
    folder = tmp_path_factory.mktemp("saved") / "model"
    torch.manual_seed(0)
    randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))).save_pretrained(folder)
    tiny_tokenizer.save_pretrained(folder)
    load_kernel()  # the compiled kernels exist before the snippet runs, as after recipes/install.sh
    return folder


def run_snippet(code: str, workdir: Path, model: Path) -> subprocess.CompletedProcess:
    for name in set(re.findall(r'from_pretrained\("([^"]+)"', code)):
        if not (workdir / name).exists():
            shutil.copytree(model, workdir / name)
    (workdir / "snippet.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-I", "-c", RUNNER], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300, check=False)


def assert_clean(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stderr[-3000:]
    assert "[y/N]" not in result.stdout + result.stderr  # transformers' remote-code prompt
    noise = [line for line in re.split(r"[\r\n]+", result.stderr) if line.strip() and not PROGRESS_BAR.match(line)]
    assert not noise, noise
    assert result.stdout.strip()  # the snippet printed its reply


def test_the_runner_cannot_import_rusty_hf(tmp_path, saved_model):
    result = run_snippet("import rusty_hf  # from_pretrained(\n", tmp_path, saved_model)
    assert result.returncode != 0 and "ModuleNotFoundError" in result.stderr


def test_readme_snippets_run_as_written_without_rusty_hf(tmp_path, saved_model):
    snippets = python_snippets((ROOT / "README.md").read_text(encoding="utf-8"))
    assert snippets, "README.md has no snippet that loads a model"
    for i, code in enumerate(snippets):
        workdir = tmp_path / f"readme-{i}"
        workdir.mkdir()
        assert_clean(run_snippet(code, workdir, saved_model))


def test_model_card_snippet_runs_as_written_without_rusty_hf(tmp_path, saved_model):
    folder = tmp_path / "tiny-grpo"
    shutil.copytree(saved_model, folder)
    card = write_model_card(folder)
    (code,) = python_snippets(card.text)
    assert_clean(run_snippet(code, tmp_path, saved_model))  # the folder above the checkpoint, as the card says
