"""A real HTTP teacher on loopback for the teacher-reward tests: OpenAI- and Anthropic-compatible.

``transformers serve`` needs the ``openai`` package, which this environment lacks, and takes
seconds to start; this stdlib server (``ThreadingHTTPServer`` on 127.0.0.1, port 0, HTTP/1.1
keep-alive) speaks both wire formats, answers from a deterministic rule-based grader (or any
``scorer(system, user) -> text``), records every request, tracks how many are in flight at once,
and can be told to misbehave for the next requests: ``"500"``, ``"429"``, ``"hang"`` (answer only
after the client gave up), ``"garbage"`` (a 200 whose body is not JSON) or ``"bad_answer"`` (a
well-formed reply whose text breaks the score format).

Usage::

    with TeacherServer(delay=0.2) as server:
        server.fail_next("500", "500")
        ... TeacherConfig(base_url=server.openai_url, ...) ...
        assert len(server.requests) == 3
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("500", "429", "hang", "garbage", "bad_answer")


def rule_grader(system: str, user: str) -> str:
    """A deterministic grader: code scores, panicking code scores less, prose scores low."""
    match = re.search(r"<answer>\n(.*)\n</answer>", user, re.DOTALL)
    answer = match.group(1) if match else ""
    if not ("fn " in answer or "def " in answer):
        return json.dumps({"score": 1, "reason": "no code"})
    score = 4 if ".unwrap()" in answer else 9
    return json.dumps({"score": score, "reason": "panics on bad input" if score == 4 else "correct and idiomatic"})


@dataclass
class Request:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: dict


class TeacherServer:
    """The server; a context manager that starts it on entry and stops it on exit."""

    def __init__(self, scorer: Callable[[str, str], str] = rule_grader, delay: float = 0.0, hang_s: float = 5.0):
        self.scorer = scorer
        self.delay = delay  # seconds every answer takes (concurrency tests)
        self.hang_s = hang_s
        self.requests: list[Request] = []
        self.in_flight = self.max_in_flight = 0
        self._faults: deque[str] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    def fail_next(self, *faults: str) -> None:
        """Make the next ``len(faults)`` requests misbehave, in this order."""
        assert all(f in FAULTS for f in faults), faults
        with self._lock:
            self._faults.extend(faults)

    def __enter__(self) -> TeacherServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._closing.set()  # wakes hanging handlers
        self._httpd.shutdown()
        self._httpd.server_close()

    def _begin(self, request: Request) -> str | None:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self._faults.popleft() if self._faults else None

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    self.close_connection = True

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    body = json.loads(raw)
                except ValueError:
                    return self._send(400, b'{"error": "body is not JSON"}')
                headers = {k.lower(): v for k, v in self.headers.items()}
                fault = server._begin(Request(self.path, headers, body))
                try:
                    self._answer(body, fault)
                finally:
                    server._end()

            def _answer(self, body: dict, fault: str | None) -> None:
                if fault == "hang":
                    server._closing.wait(server.hang_s)
                elif server.delay:
                    server._closing.wait(server.delay)
                if fault == "500":
                    return self._send(500, b'{"error": "internal error"}')
                if fault == "429":
                    return self._send(429, b'{"error": "slow down"}', {"Retry-After": "0"})
                if fault == "garbage":
                    return self._send(200, b"<html>upstream hiccup")
                if self.path == "/v1/chat/completions":
                    return self._openai(body, fault)
                if self.path == "/v1/messages":
                    return self._anthropic(body, fault)
                self._send(404, json.dumps({"error": f"no route {self.path}"}).encode())

            def _openai(self, body: dict, fault: str | None) -> None:
                messages = body.get("messages")
                if not body.get("model") or not isinstance(messages, list):
                    return self._send(400, b'{"error": "model and messages are required"}')
                system = "".join(m["content"] for m in messages if m.get("role") == "system")
                user = "".join(m["content"] for m in messages if m.get("role") == "user")
                text = "Looks fine to me!" if fault == "bad_answer" else server.scorer(system, user)
                reply = {
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                }
                self._send(200, json.dumps(reply).encode())

            def _anthropic(self, body: dict, fault: str | None) -> None:
                if not body.get("model") or "max_tokens" not in body or "anthropic-version" not in self.headers:
                    return self._send(400, b'{"type": "error", "error": {"type": "invalid_request_error"}}')
                user = "".join(m["content"] for m in body.get("messages", []) if m.get("role") == "user")
                text = "Looks fine to me!" if fault == "bad_answer" else server.scorer(body.get("system", ""), user)
                reply = {
                    "type": "message",
                    "role": "assistant",
                    "model": body["model"],
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                }
                self._send(200, json.dumps(reply).encode())

        return Handler
