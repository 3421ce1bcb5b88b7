"""End-to-end checks of a trained Rusty as a user meets it: the terminal in a real pty, the Space in a real browser.

    python recipes/tiny/e2e.py --model outputs/tiny-grpo            # both (the browser one needs playwright + chromium)
    python recipes/tiny/e2e.py --model outputs/tiny-grpo --only terminal

- terminal: ``rusty-terminal`` runs in a pseudo-terminal (stdlib ``pty``) in a folder of three files; asked
  "what files are here?", it must run a command whose output, shown in the terminal, names all three.
- space: ``space/app.py`` serves the model with sandboxed commands (``RUSTY_SANDBOX_EXEC=1``); Debian's
  chromium, driven by playwright, types the same question, and the command card must show the listing
  of the visitor's demo project.

Prints one PASS/FAIL line per check (SKIP with the fix when the browser is missing) and exits 1 on a FAIL.
The quickstart runs it last; ``tests/test_e2e_quickstart.py`` runs it on a model named by ``RUSTY_E2E_MODEL``.
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
QUESTION = "what files are here?"
FILES = {"README.md": "# shop\n\nA tiny shop backend.\n", "inventory.py": "STOCK = {'apple': 3}\n",
         "orders.csv": "id,item,qty\n1,apple,2\n"}  # fmt: skip
PROMPT = "you> "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _read_until(fd: int, marker: str, deadline: float) -> str:
    out = ""
    while marker not in out:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {marker!r} after: {out[-500:]!r}")
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the pty
                raise TimeoutError(f"the terminal exited before {marker!r}: {out[-500:]!r}") from None
            out += ANSI.sub("", chunk.decode("utf-8", "replace")).replace("\r", "")
    return out


def check_terminal(model: str, timeout: float = 600.0) -> tuple[bool, str]:
    """Ask rusty-terminal, in a pty, what files are here: (whether its shown output names all three, transcript)."""
    with tempfile.TemporaryDirectory(prefix="rusty-e2e-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        for name, content in FILES.items():
            (work / name).write_text(content, encoding="utf-8")
        argv = [sys.executable, "-m", "rusty_hf.agent.terminal", "--model", model, "--workdir", str(work),
                "--history-file", str(Path(tmp) / "history"), "--max-steps", "2"]  # fmt: skip
        env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
        pid, fd = pty.fork()
        if pid == 0:  # the child: the terminal, on the pty
            os.execvpe(argv[0], argv, env)
        deadline = time.monotonic() + timeout
        try:
            _read_until(fd, PROMPT, deadline)
            os.write(fd, (QUESTION + "\n").encode())
            reply = _read_until(fd, PROMPT, deadline)
            os.write(fd, b":q\n")
        finally:
            time.sleep(0.5)
            os.kill(pid, 9) if os.waitpid(pid, os.WNOHANG) == (0, 0) else None
            os.close(fd)
    ok = "$ " in reply and all(name in reply for name in FILES)
    return ok, reply


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def check_space(model: str, timeout: float = 600.0) -> tuple[bool | None, str]:
    """Ask the Space in chromium what files are here: (ok, or None when no browser is installed; what it showed)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None, "playwright is not installed: pip install playwright (bash recipes/install.sh dev has it)"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None, "no chromium on PATH: apt-get install -y chromium"
    sys.path.insert(0, str(REPO / "space"))
    from app import DEMO_FILES  # the visitor's demo project

    port = _free_port()
    env = {**os.environ, "RUSTY_MODEL": model, "RUSTY_SANDBOX_EXEC": "1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}  # fmt: skip
    server = subprocess.Popen([sys.executable, str(REPO / "space" / "app.py")], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + timeout
    try:
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                return False, f"the Space did not start (exit status {server.poll()})"
            time.sleep(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}", wait_until="domcontentloaded", timeout=120_000)
                box = page.locator("#rusty-input textarea")
                box.wait_for(timeout=120_000)
                box.fill(QUESTION)
                box.press("Enter")
                finished = "#rusty-chat .rusty-msg, #rusty-chat .rusty-cmd, #rusty-chat .rusty-edit, #rusty-chat .rusty-error"
                page.locator(finished).first.wait_for(timeout=int(max(1.0, deadline - time.monotonic()) * 1000))
                commands = page.locator("#rusty-chat .rusty-cmd")
                shown = commands.last.inner_text() if commands.count() else page.locator("#rusty-chat").inner_text()
                ran = commands.count() > 0 and page.locator("#rusty-chat .rusty-cmd .rusty-exec").count() > 0
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return ran and all(name in shown for name in DEMO_FILES), shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="outputs/tiny-grpo", help="the model folder to check (default: the quickstart's)")
    parser.add_argument("--only", choices=("terminal", "space"), help="run one check")
    args = parser.parse_args()
    if not Path(args.model).is_dir():
        print(f"e2e: no such folder {args.model}. Fix: run bash recipes/quickstart.sh, or pass --model", file=sys.stderr)
        return 2
    failed = False
    if args.only in (None, "terminal"):
        ok, shown = check_terminal(args.model)
        print(f"{'PASS' if ok else 'FAIL'}  terminal (pty): {QUESTION!r} -> a command whose output names {', '.join(FILES)}")
        print("      " + shown.strip().replace("\n", "\n      ")[:1500])
        failed |= not ok
    if args.only in (None, "space"):
        ok, shown = check_space(args.model)
        label = "SKIP" if ok is None else "PASS" if ok else "FAIL"
        print(f"{label}  space (chromium): {QUESTION!r} -> the listing of the demo project" + (f": {shown}" if ok is None else ""))
        failed |= ok is False
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
