"""The console scripts (pyproject's [project.scripts]) answer --help without loading the heavy libraries,
and every option they take has help text. How fast --help is, is measured by benchmarks/cli_startup.py."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = {"rusty-terminal": "rusty_hf.agent.terminal", "rusty-bench": "rusty_hf.inference.bench"}
HEAVY = ("torch", "transformers", "trl", "gradio", "numpy", "huggingface_hub", "safetensors")
PROBE = """
import json, sys
from {module} import main
try:
    main(["--help"])
except SystemExit:
    pass
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}})))
"""


def test_every_console_script_is_checked_here():
    text = (ROOT / "pyproject.toml").read_text()
    declared = {line.split("=")[0].strip() for line in text.split("[project.scripts]")[1].split("\n\n")[0].splitlines()[1:]}
    assert declared == set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_imports_no_heavy_library(script):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", PROBE.format(module=SCRIPTS[script])], capture_output=True, text=True,
                         env=env, timeout=60, check=True).stdout
    lines = out.strip().splitlines()
    assert f"usage: {script}" in out
    assert not set(json.loads(lines[-1])) & set(HEAVY), lines[-1]


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_option_has_help_text(script):
    import importlib

    parser = importlib.import_module(SCRIPTS[script]).build_parser()
    silent = [a.option_strings for a in parser._actions
              if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert not silent


def test_the_terminals_quantization_choices_are_the_loaders():
    from rusty_hf.agent.terminal import QUANTIZATIONS
    from rusty_hf.inference import QUANTIZATIONS as LOADER_QUANTIZATIONS

    assert QUANTIZATIONS == LOADER_QUANTIZATIONS
