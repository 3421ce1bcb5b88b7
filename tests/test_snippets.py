"""Every command and snippet of README.md and docs/ runs in a test here, or says why it is not run in CI.

A fenced ``bash``/``python`` block carries a marker on the line before it: ``<!-- snippet: runs in
tests/test_snippets.py -->`` (run here, as written) or ``<!-- snippet: not run in CI (the reason) -->``.
Blocks that are not run are still checked: every repository file they name exists, and every recipe
command line in them parses with its recipe's own parser (a renamed flag or config fails here).

Python snippets: every folder a snippet loads from (``from_pretrained("...")``) is made a copy of a tiny
model saved locally (never the Hub, HF_HUB_OFFLINE=1), and the snippet runs in a fresh interpreter
(``python -I``, stdin closed). The README's snippets and the model card's run where ``import rusty_hf``
fails; a docs snippet that imports rusty_hf runs with it. Each must exit 0, print, and ask nothing
(transformers' "[y/N]" remote-code prompt); the README's and the card's also print nothing on stderr except
the "Loading weights" progress bar transformers draws for every model (progress, not a warning).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.hub.model_card import write_model_card
from rusty_hf.models.tiny_rwkv.cpu_kernels import load_kernel
from tests.conftest import randomise_zero_init, tiny_config

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "recipes" / "r2" / "README.md"]
RUNS = "<!-- snippet: runs in tests/test_snippets.py -->"
NOT_RUN = re.compile(r"<!-- snippet: not run in CI \((.+)\) -->")
FENCED = re.compile(r"^```(\w*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
REPO_DIRS = ("recipes/", "benchmarks/", "tests/", "docs/", "rusty_hf/", "space/", "tasks/", ".ci/")
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


class Block(NamedTuple):
    """A fenced code block of a document, with the marker line above it ("" when there is none)."""

    where: str
    lang: str
    code: str
    marker: str


def blocks(paths: list[Path] = DOCS) -> list[Block]:
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for match in FENCED.finditer(text):
            above = [line for line in text[: match.start()].splitlines() if line.strip()]
            line = text.count("\n", 0, match.start()) + 1
            found.append(Block(f"{path.relative_to(ROOT)}:{line}", match[1], match[2], above[-1] if above else ""))
    return found


def command_lines(code: str) -> list[list[str]]:
    """A shell block's commands as words: continuation lines joined, comments dropped."""
    return [words for line in code.replace("\\\n", " ").splitlines() if (words := shlex.split(line, comments=True))]


def inline_commands(paths: list[Path] = DOCS) -> list[list[str]]:
    """Commands in running text or tables (`` `python3 recipes/...` ``) as words, env settings dropped;
    spans with placeholders (<...>, a|b) are descriptions, not commands."""
    spans = [span for path in paths for span in re.findall(r"`([^`\n]+)`", FENCED.sub("", path.read_text(encoding="utf-8")))]
    commands = [span for span in spans if re.match(r"(?:[A-Z_]+=\S*\s+)*(?:bash|python3|accelerate)\s", span)]
    return [[w for w in shlex.split(c) if not re.fullmatch(r"[A-Z_]+=\S*", w)] for c in commands if not re.search(r"[<>|]", c)]


def run_snippet(code: str, workdir: Path, model: Path, with_rusty_hf: bool = False) -> subprocess.CompletedProcess:
    for name in set(re.findall(r'from_pretrained\("([^"]+)"', code)):
        if not (workdir / name).exists():
            shutil.copytree(model, workdir / name)
    (workdir / "snippet.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    runner = "import runpy; runpy.run_path('snippet.py', run_name='__main__')" if with_rusty_hf else RUNNER
    return subprocess.run([sys.executable, "-I", "-c", runner], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
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


def test_every_command_block_runs_here_or_says_why_not():
    unmarked = [b.where for b in blocks() if b.lang in ("bash", "sh", "python")
                and b.marker != RUNS and not NOT_RUN.fullmatch(b.marker)]
    assert not unmarked, f"mark these with {RUNS!r} or '<!-- snippet: not run in CI (why) -->': {unmarked}"


@pytest.mark.parametrize("block", [b for b in blocks() if b.lang == "bash" and b.marker == RUNS], ids=lambda b: b.where)
def test_shell_blocks_marked_to_run_run_as_written(block):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", block.code], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.mark.parametrize("block", [b for b in blocks(DOCS[1:]) if b.lang == "python" and b.marker == RUNS],
                         ids=lambda b: b.where)
def test_docs_python_blocks_marked_to_run_run_as_written(block, tmp_path, saved_model):
    # stderr may speak here: a head built on a causal-LM checkpoint is reported as newly initialised, as it is.
    result = run_snippet(block.code, tmp_path, saved_model, with_rusty_hf="rusty_hf" in block.code)
    assert result.returncode == 0 and result.stdout.strip(), result.stderr[-3000:]
    assert "[y/N]" not in result.stdout + result.stderr


def documented_commands() -> list[list[str]]:
    """Every command of the docs as words: the shell blocks' lines and the inline ones."""
    return [words for b in blocks() if b.lang == "bash" for words in command_lines(b.code)] + inline_commands()


def test_files_the_commands_name_exist():
    named = {word.split("=", 1)[-1] for words in documented_commands() for word in words}
    missing = sorted(w for w in named if w.startswith(REPO_DIRS) and not (ROOT / w).exists())
    assert not missing, missing


def recipe_parsers() -> dict[str, Callable[[list[str]], object]]:
    """Each documented script's own parser, as a function of its arguments (GPU-only settings overridden)."""
    from transformers import HfArgumentParser
    from trl import TrlParser

    from rusty_hf.data.code_corpus import CorpusConfig
    from tests.test_recipe_configs import PARSERS

    def script(name: str):  # a recipe file as a module: its parser or its argument dataclass lives there
        spec = importlib.util.spec_from_file_location(f"recipe_{name}", ROOT / "recipes" / f"{name}.py")
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # dataclasses look their module up
        spec.loader.exec_module(module)
        return module

    cpu = ["--use_cpu", "true", "--bf16", "false", "--optim", "adamw_torch"]
    parsers = {name: lambda args, c=classes: TrlParser(c).parse_args_and_config(args=[*args, *cpu])
               for name, classes in PARSERS.items()}
    parsers["evaluate"] = lambda args: TrlParser((script("evaluate").EvalArguments,)).parse_args_and_config(args=args)
    parsers["build_code_corpus"] = lambda args: HfArgumentParser(
        (script("build_code_corpus").CodeCorpusArguments, CorpusConfig)).parse_args_into_dataclasses(args=args)
    for name in ("reward_gain", "generate"):
        parsers[name] = lambda args, n=name: script(n).build_parser().parse_args(args)
    return parsers


def unparsed_recipe_lines(commands: list[list[str]]) -> list[str]:
    """The recipe command lines (``... recipes/NAME.py ARGS``) that their recipe's parser refuses, with why."""
    os.chdir(ROOT)  # configs are named relative to the repository
    parsers, refused = recipe_parsers(), []
    for words in commands:
        at = next(i for i, w in enumerate(words) if re.fullmatch(r"recipes/\w+\.py", w))
        name = Path(words[at]).stem
        try:
            parsers[name](words[at + 1:])
        except (SystemExit, ValueError, KeyError, OSError) as exc:
            refused.append(f"{' '.join(words)}: {type(exc).__name__}: {exc}")
    return refused


def test_documented_recipe_command_lines_parse():
    commands = [words for words in documented_commands() if any(re.fullmatch(r"recipes/\w+\.py", w) for w in words)]
    assert len(commands) >= 10
    witness = ["python3", "recipes/grpo.py", "--config", "recipes/tiny/grpo.yaml", "--no_such_flag", "1"]  # must be refused
    commands.append(witness)
    # In a process of its own: the recipe modules install their warning filters when imported.
    check = "import json, sys; from tests.test_snippets import unparsed_recipe_lines as u; print(json.dumps(u(json.load(sys.stdin))))"
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, input=json.dumps(commands), capture_output=True,
                            text=True, timeout=300, check=False, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    refused = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(refused) == 1 and refused[0].startswith(" ".join(witness)), refused
