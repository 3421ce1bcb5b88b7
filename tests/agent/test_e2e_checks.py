"""recipes/tiny/e2e.py, the quickstart's last stage, on a small memorised model: it really drives a pty and a browser.

The quickstart runs the same checks on the model it trained; here a model that answers "what files
are here?" with `ls` must pass them, and the check must see the listing, not just the command.
"""

import importlib.util
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

E2E = Path(__file__).resolve().parents[2] / "recipes" / "tiny" / "e2e.py"


@pytest.fixture(scope="module")
def e2e():
    spec = importlib.util.spec_from_file_location("rusty_e2e", E2E)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_terminal_check_sees_the_listing_in_a_pty(e2e, rusty_checkpoint):
    ok, shown = e2e.check_terminal(str(rusty_checkpoint))
    assert ok, shown
    assert "$ ls" in shown and all(name in shown for name in e2e.FILES)


def test_the_space_check_sees_the_listing_in_chromium(e2e, rusty_checkpoint, monkeypatch):
    pytest.importorskip("playwright.sync_api", reason="pip install playwright (the dev extra has it)")
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("no chromium on PATH: apt-get install -y chromium (tests/run.sh does it when run as root)")
    monkeypatch.setenv("RUSTY_QUANTIZATION", "none")  # the memorised model keeps its replies only in fp32
    ok, shown = e2e.check_space(str(rusty_checkpoint))
    assert ok, shown
