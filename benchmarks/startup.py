"""Benchmark: what a user waits for at start -- `--help`, the terminal's first reply, the Space's first answer.

    python3 benchmarks/startup.py --model outputs/tiny-grpo [--repeats 5] [--out benchmarks/results/startup.json]
    python3 benchmarks/startup.py --tokenizer outputs/tokenizer   # a fresh model of recipes/tiny/sft.yaml's size

Each measurement runs in a fresh process, all in one run:

- `--help` of each console script, median of ``--repeats`` runs, next to `python -c pass` (the interpreter
  alone) measured the same way; floor: <= 1 s;
- rusty-terminal (in a pseudo-terminal): the start (load + warm-up, until the first prompt), then the
  first reply to "list the files" (sent at the prompt, until the next prompt); floor: first reply <= 3 s;
- space/app.py: the start (until the page answers), then the first /chat answer and a second one;
  floor: first answer <= 3 s.

The floors hold after the README's install, which compiles the CPU kernels (`recipes/install.sh`); the
record says whether they were compiled before the run. Time nothing on a busy machine: the table
records the load average at start.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOORS = {"help_s": 1.0, "terminal_first_reply_s": 3.0, "space_first_answer_s": 3.0}
SCRIPTS = {"python -c pass": ["-c", "pass"], "rusty-terminal --help": ["-m", "rusty_hf.agent.terminal", "--help"],
           "rusty-bench --help": ["-m", "rusty_hf.inference.bench", "--help"]}


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
            "GRADIO_ANALYTICS_ENABLED": "False"}


def help_times(repeats: int) -> dict[str, float]:
    times = {}
    for name, args in SCRIPTS.items():
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([sys.executable, *args], env=_env(), capture_output=True, check=True)
            runs.append(time.perf_counter() - start)
        times[name] = statistics.median(runs)
    return times


def terminal_times(model: str) -> dict[str, float]:
    import pexpect

    with tempfile.TemporaryDirectory() as work:
        argv = ["-m", "rusty_hf.agent.terminal", "--model", model, "--workdir", work, "--history-file", ""]
        start = time.perf_counter()
        child = pexpect.spawn(sys.executable, argv, env=_env(), encoding="utf-8", timeout=600)
        child.expect_exact("you> ")
        ready = time.perf_counter()
        child.sendline("list the files")
        child.expect_exact("you> ")
        replied = time.perf_counter()
        child.sendline(":q")
        child.expect(pexpect.EOF)
    return {"terminal_start_s": ready - start, "terminal_first_reply_s": replied - ready}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def space_times(model: str) -> dict[str, float]:
    from gradio_client import Client

    port = _free_port()
    env = {**_env(), "RUSTY_MODEL": model, "GRADIO_SERVER_PORT": str(port), "GRADIO_SERVER_NAME": "127.0.0.1"}
    start = time.perf_counter()
    server = subprocess.Popen([sys.executable, str(ROOT / "space" / "app.py")], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/"
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"space/app.py exited with {server.returncode}")
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        up = time.perf_counter()
        client = Client(url, verbose=False)
        answers = []
        for text in ("list the files", "run the tests"):
            begin = time.perf_counter()
            client.predict(text, [], True, api_name="/chat")
            answers.append(time.perf_counter() - begin)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {"space_start_s": up - start, "space_first_answer_s": answers[0], "space_second_answer_s": answers[1]}


def fresh_model(tokenizer: str, folder: str) -> None:
    """A random TinyRWKV of the quickstart's SFT size (read from recipes/tiny/sft.yaml) with ``tokenizer``."""
    import torch
    import yaml

    from rusty_hf import TinyRWKVConfig, TinyRWKVForCausalLM
    from rusty_hf.tokenizer import load_tokenizer

    sizes = yaml.safe_load((ROOT / "recipes" / "tiny" / "sft.yaml").read_text())
    tok = load_tokenizer(tokenizer)
    torch.manual_seed(0)
    config = TinyRWKVConfig(vocab_size=len(tok), **{k: sizes[k] for k in ("d_embed", "d_hidden", "n_layers", "ffn_mult")},
                            bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    TinyRWKVForCausalLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model folder (default: a fresh model of the quickstart's size, see --tokenizer)")
    parser.add_argument("--tokenizer", default="outputs/tokenizer", help="tokenizer folder for the fresh model")
    parser.add_argument("--repeats", type=int, default=5, help="--help runs per script (the median counts)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "startup.json"), help="JSON record")
    args = parser.parse_args(argv)
    from rusty_hf.models.tiny_rwkv.cpu_kernels import kernel_is_built

    kernels_before = kernel_is_built()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or str(Path(tmp) / "model")
        if not args.model:
            fresh_model(args.tokenizer, model)
        times = {**help_times(args.repeats), **terminal_times(model), **space_times(model)}
    help_worst = max(v for k, v in times.items() if k.endswith("--help"))
    checks = {"help_s": help_worst, "terminal_first_reply_s": times["terminal_first_reply_s"],
              "space_first_answer_s": times["space_first_answer_s"]}
    print(f"model: {args.model or 'fresh, recipes/tiny/sft.yaml sizes'}; load average {load:.2f}; "
          f"CPU kernels compiled before the run: {kernels_before}")
    print("| measurement | seconds |\n|---|---:|")
    for name, value in times.items():
        print(f"| {name} | {value:.2f} |")
    print("| floor | measured | limit | status |\n|---|---:|---:|---|")
    for name, value in checks.items():
        print(f"| {name} | {value:.2f} | <= {FLOORS[name]} | {'met' if value <= FLOORS[name] else 'NOT MET'} |")
    record = {"model": args.model or "fresh (recipes/tiny/sft.yaml sizes)", "machine": platform.processor() or platform.machine(),
              "cpus": os.cpu_count(), "load_average": load, "kernels_built_before": kernels_before, "times": times,
              "floors": {k: {"measured": v, "limit": FLOORS[k], "met": v <= FLOORS[k]} for k, v in checks.items()}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    return 0 if all(v <= FLOORS[k] for k, v in checks.items()) else 1


if __name__ == "__main__":
    sys.exit(main())
