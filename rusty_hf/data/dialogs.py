"""Synthetic Rusty protocol dialogs: a user asks, Rusty answers with exactly one JSON action.

Deterministic for a given seed, so the tokenizer corpus and later SFT data are reproducible::

    from rusty_hf.data.dialogs import synthetic_dialogs
    for messages in synthetic_dialogs(3, seed=0):
        tokenizer.apply_chat_template(messages, tokenize=False)

Each dialog is ``[system, user, assistant]`` in the chat-messages format (``{"role", "content"}``); the
system message is `RUSTY_SYSTEM_PROMPT` and the assistant content is one action's JSON (`protocol.actions.action_json`):
``{"action": "MSG", "message": ...}``, ``{"action": "CMD", "command": ...}`` or
``{"action": "EDIT", "path": ..., "content": ...}``. The shell commands are real ones (ls, grep -rn,
cargo test, pytest -q, git status, ...) filled with varied paths and symbols.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from rusty_hf.protocol.actions import action_json
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT

Message = dict[str, str]
_Example = tuple[str, dict[str, str]]  # (user request, action)

_DIRS = ["src", "tests", "rusty_hf", "scripts", "docs", "crates/core/src", "app", "lib", "examples", "."]
_SYMBOLS = ["parse_args", "load_config", "Tokenizer", "run_step", "handle_request", "build_index",
            "read_lines", "CacheEntry", "train_loop", "fetch_rows", "Parser", "apply_patch"]
_PY_FILES = ["main.py", "utils/io.py", "train.py", "app/server.py", "cli.py", "tests/test_core.py"]
_RS_FILES = ["src/main.rs", "src/lib.rs", "src/parser.rs", "src/bin/cli.rs"]

_FACTS = [  # (question, blunt answer)
    ("what does git stash do?",
     "Shelves uncommitted changes and resets the tree to HEAD. `git stash pop` brings them back."),
    ("list vs tuple in python?", "Lists are mutable, tuples are not. Tuples hash, so they work as dict keys."),
    ("why does my rust code say borrowed value does not live long enough?",
     "A reference outlives its owner. Return an owned value or move the owner to a wider scope."),
    ("what is the difference between cargo build and cargo check?",
     "`cargo check` type-checks without producing a binary, so it is faster. `cargo build` compiles and links."),
    ("what does `set -e` do in bash?", "Exits the script as soon as a command returns non-zero."),
    ("how do I make pytest stop at the first failure?", "`pytest -x`. Add `-q` for less noise."),
    ("what is a mutex for?", "Only one thread holds it at a time, so shared data is never written concurrently."),
    ("what does `?` do in rust?", "Returns early with the error of a Result or None of an Option; otherwise unwraps."),
    ("are python dicts ordered?", "Yes, insertion order is guaranteed since 3.7."),
    ("thanks, that worked!", "Done. Next task?"),
]


def _cmd_examples(rng: random.Random) -> list[_Example]:
    d, sym = rng.choice(_DIRS), rng.choice(_SYMBOLS)
    py, rs = rng.choice(_PY_FILES), rng.choice(_RS_FILES)
    n = rng.choice([3, 5, 10, 20])
    requests = [
        (f"list the files in {d}", f"ls -la {d}"),
        (f"where is {sym} defined?", f"grep -rn \"{sym}\" {d}"),
        (f"find every TODO under {d}", f"grep -rn \"TODO\" {d}"),
        ("run the rust tests", "cargo test"),
        (f"run only the rust tests matching {sym.lower()}", f"cargo test {sym.lower()}"),
        ("run the python tests", "pytest -q"),
        (f"run the tests in {py} and stop at the first failure", f"pytest -x -q {py}"),
        ("anything changed since the last commit?", "git status"),
        ("show me the unstaged diff", "git diff"),
        (f"one line each for the newest {n} commits", f"git log --oneline -{n}"),
        (f"show me {py}", f"cat {py}"),
        (f"first {n} lines of {rs}", f"head -n {n} {rs}"),
        (f"how many lines in {py}?", f"wc -l {py}"),
        ("does it compile?", "cargo check"),
        ("lint the rust code", "cargo clippy -- -D warnings"),
        ("check the formatting", "cargo fmt --check"),
        (f"find all rust files under {d}", f"find {d} -name '*.rs'"),
        (f"how big is {d}?", f"du -sh {d}"),
        ("which python am I on?", "python3 --version"),
    ]
    return [(user, {"action": "CMD", "command": command}) for user, command in requests]


def _py_function(rng: random.Random) -> tuple[str, str, str]:
    name, op = rng.choice([("add", "+"), ("sub", "-"), ("mul", "*"), ("max_of", "max")])
    body = "max(a, b)" if op == "max" else f"a {op} b"
    path = rng.choice(["mathx.py", "ops.py", "src/calc.py"])
    return path, name, f"def {name}(a: int, b: int) -> int:\n    return {body}\n"


def _edit_examples(rng: random.Random) -> list[_Example]:
    path, name, py_src = _py_function(rng)
    word = rng.choice(["hello", "ready", "ok", "done"])
    rs_name = rng.choice(["add", "double", "square"])
    rs_body = {"add": "a + b", "double": "a * 2", "square": "a * a"}[rs_name]
    rs_args = "a: i64, b: i64" if rs_name == "add" else "a: i64"
    hello = f"print({word!r})\n"
    rs_src = f"pub fn {rs_name}({rs_args}) -> i64 {{\n    {rs_body}\n}}\n"
    return [
        (f"write {path} with a function {name}(a, b)", {"action": "EDIT", "path": path, "content": py_src}),
        (f"create hello.py that prints {word}", {"action": "EDIT", "path": "hello.py", "content": hello}),
        (f"put a pub fn {rs_name} in src/lib.rs", {"action": "EDIT", "path": "src/lib.rs", "content": rs_src}),
        ("add a .gitignore for rust build output", {"action": "EDIT", "path": ".gitignore", "content": "/target\n"}),
        (f"make a main.rs that prints {word}",
         {"action": "EDIT", "path": "src/main.rs", "content": f"fn main() {{\n    println!(\"{word}\");\n}}\n"}),
    ]


def _msg_examples(rng: random.Random) -> list[_Example]:
    return [(question, {"action": "MSG", "message": answer}) for question, answer in _FACTS]


_KINDS: list[Callable[[random.Random], list[_Example]]] = [_cmd_examples, _edit_examples, _msg_examples]
_POLITE = ["", "", "", "please ", "can you ", "quick: "]


def synthetic_dialogs(n: int, seed: int = 0) -> list[list[Message]]:
    """Return ``n`` dialogs ``[system, user, assistant]``; the same ``(n, seed)`` gives the same list.

    >>> dialog = synthetic_dialogs(1, seed=3)[0]
    >>> [m["role"] for m in dialog], json.loads(dialog[2]["content"])["action"] in {"MSG", "CMD", "EDIT"}
    (['system', 'user', 'assistant'], True)
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(seed)
    dialogs = []
    for _ in range(n):
        user, action = rng.choice(rng.choice(_KINDS)(rng))
        if not user.endswith(("?", "!")):  # "please where is X defined?" reads wrong; commands take a prefix
            user = rng.choice(_POLITE) + user
        dialogs.append([
            {"role": "system", "content": RUSTY_SYSTEM_PROMPT},
            {"role": "user", "content": user},
            {"role": "assistant", "content": action_json(action)},
        ])
    return dialogs
