"""A real browser on the Space: Debian's chromium, driven by playwright, types and sees a card.

Needs `apt-get install chromium` (tests/run.sh does it as root) and `pip install playwright`;
playwright's own browser download cannot be used here, so the system chromium is launched by path.
"""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def page(served_space):
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the dev extra has it)")
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH: apt-get install -y chromium (tests/run.sh does it when run as root)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(served_space[0], wait_until="domcontentloaded", timeout=60_000)
            yield page
        finally:
            browser.close()


def test_typed_message_shows_a_rendered_action_card(page):
    box = page.locator("#rusty-input textarea")
    box.wait_for(timeout=60_000)
    box.fill("list the files in src")
    box.press("Enter")
    card = page.locator("#rusty-chat .rusty-card.rusty-msg, #rusty-chat .rusty-card.rusty-cmd, #rusty-chat .rusty-card.rusty-edit")
    card.first.wait_for(timeout=90_000)
    assert page.locator("#rusty-chat").inner_text().count("list the files in src") == 1
    assert card.first.is_visible()


def test_page_shows_the_source_link(page):
    link = page.locator("#rusty-source a")
    assert link.get_attribute("href").startswith("https://github.com/")
