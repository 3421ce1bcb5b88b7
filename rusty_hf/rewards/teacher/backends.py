"""Where the teacher's answers come from: an OpenAI-compatible endpoint, the Anthropic API, or a local model.

Each back end turns one (system, user) message pair into the teacher's reply text. A back end
opens a *session* per reward batch -- for the HTTP back ends one pooled ``httpx.AsyncClient``
on the running event loop (TRL runs async rewards on its own daemon loop, so a client must not
outlive the loop it was made on) -- and raises :class:`TeacherError` for anything that went
wrong, saying whether it is worth retrying.

- ``OpenAIChatBackend``: ``POST {base_url}/chat/completions``. Works with vLLM, TGI, SGLang,
  ``transformers serve``, llama.cpp and hosted APIs; ``base_url`` as the OpenAI SDK takes it
  (``http://127.0.0.1:8000/v1``). The key, if any, goes in ``Authorization: Bearer``.
- ``AnthropicBackend``: ``POST {base_url}/v1/messages``; ``base_url`` as the Anthropic SDK takes
  it (``https://api.anthropic.com``). The key goes in ``x-api-key``.
- ``LocalBackend``: a transformers causal LM in this process, greedy decoding, one generation at
  a time in a worker thread (the event loop stays free; the model is not shared between threads).

Usage::

    backend = OpenAIChatBackend(model="Qwen/Qwen3-8B", base_url="http://127.0.0.1:8000/v1")
    async with backend.session() as complete:
        text = await complete(system_prompt, user_prompt)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import httpx

Complete = Callable[[str, str], Awaitable[str]]

OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


class TeacherError(Exception):
    """One failed teacher call. ``kind`` names the failure for the logs; ``retryable`` says whether to try again."""

    def __init__(self, kind: str, message: str, *, retryable: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # timeout | connection | rate_limited | http_error | bad_response
        self.retryable = retryable
        self.retry_after = retry_after  # seconds the server asked us to wait (Retry-After)


class TeacherBackend(Protocol):
    """What :func:`rusty_hf.rewards.teacher.reward.get_teacher_reward` needs from a back end."""

    identity: str  # names the teacher in the cache key: back end, model and endpoint

    def session(self) -> Any:  # an async context manager yielding a Complete
        ...


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers.get("retry-after", "")))
    except ValueError:  # absent, or an HTTP date (rare for APIs): fall back to our own backoff
        return None


async def post_json(client: httpx.AsyncClient, url: str, body: dict) -> dict:
    """POST ``body`` as JSON and return the JSON reply, mapping every failure to a TeacherError."""
    try:
        response = await client.post(url, json=body)
    except httpx.TimeoutException as exc:
        raise TeacherError("timeout", f"no answer within the timeout ({type(exc).__name__})", retryable=True) from exc
    except httpx.TransportError as exc:  # refused, reset, DNS: the teacher is down or unreachable
        raise TeacherError("connection", f"{type(exc).__name__}: {exc}", retryable=True) from exc
    status = response.status_code
    if status != 200:
        detail = response.text[:200].replace("\n", " ")
        if status == 429:
            raise TeacherError(
                "rate_limited", f"HTTP 429: {detail}", retryable=True, retry_after=_retry_after(response)
            )
        # 408 and 5xx are the server's trouble and often pass; other 4xx (bad key, unknown
        # model, bad request) will fail the same way every time.
        retryable = status == 408 or status >= 500
        raise TeacherError("http_error", f"HTTP {status} from {url}: {detail}", retryable=retryable)
    try:
        reply = response.json()
    except ValueError as exc:
        raise TeacherError("bad_response", f"the reply is not JSON: {response.text[:80]!r}", retryable=True) from exc
    if not isinstance(reply, dict):
        raise TeacherError("bad_response", f"the reply is {type(reply).__name__}, not an object", retryable=True)
    return reply


class _HTTPBackend:
    """Shared plumbing: one pooled client per session, with the back end's headers and timeout."""

    default_base_url = ""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 256,
        temperature: float = 0.0,
        extra_body: dict | None = None,
        max_connections: int = 16,
    ) -> None:
        self.model = model
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self._api_key = api_key  # kept out of repr and logs; only ever sent as a header
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.extra_body = dict(extra_body or {})
        self.max_connections = max_connections
        self.identity = f"{type(self).__name__}:{model}@{self.base_url}"
        self._ssl_context = None  # built once: loading the CA bundle costs ~0.2 s per client

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    def _headers(self) -> dict[str, str]:
        return {}

    def _body(self, body: dict) -> dict:
        """Merge ``extra_body`` into a request; a None there removes a field (e.g. ``temperature``
        for hosted reasoning models that refuse it)."""
        body = {**body, **self.extra_body}
        return {k: v for k, v in body.items() if v is not None}

    @asynccontextmanager
    async def session(self) -> AsyncIterator[Complete]:
        limits = httpx.Limits(max_connections=self.max_connections, max_keepalive_connections=self.max_connections)
        # trust_env=False: a proxy set for the Hub must not swallow a teacher on loopback.
        local = self.base_url.startswith(("http://127.", "http://localhost", "http://[::1]"))
        if self._ssl_context is None:
            self._ssl_context = httpx.create_ssl_context()
        async with httpx.AsyncClient(
            headers=self._headers(), timeout=self.timeout, limits=limits, trust_env=not local, verify=self._ssl_context
        ) as client:

            async def complete(system: str, user: str) -> str:
                return await self._complete(client, system, user)

            yield complete

    async def _complete(self, client: httpx.AsyncClient, system: str, user: str) -> str:
        raise NotImplementedError


class OpenAIChatBackend(_HTTPBackend):
    """Any server speaking the OpenAI chat-completions API."""

    default_base_url = OPENAI_BASE_URL

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    async def _complete(self, client: httpx.AsyncClient, system: str, user: str) -> str:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "stream": False,
        }
        reply = await post_json(client, f"{self.base_url}/chat/completions", self._body(body))
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise TeacherError(
                "bad_response", f"no choices[0].message.content in {str(reply)[:120]}", retryable=True
            ) from exc
        if not isinstance(content, str):
            raise TeacherError("bad_response", f"message content is {type(content).__name__}", retryable=True)
        return content


class AnthropicBackend(_HTTPBackend):
    """The Anthropic messages API (or a server that speaks it)."""

    default_base_url = ANTHROPIC_BASE_URL

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    async def _complete(self, client: httpx.AsyncClient, system: str, user: str) -> str:
        body = {
            "model": self.model,
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        }
        reply = await post_json(client, f"{self.base_url}/v1/messages", self._body(body))
        blocks = reply.get("content")
        if not isinstance(blocks, list):
            raise TeacherError("bad_response", f"no content blocks in {str(reply)[:120]}", retryable=True)
        # Extended thinking adds "thinking" blocks; the answer is in the text blocks.
        return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


class LocalBackend:
    """A transformers causal LM in this process (a path or Hub id, or an already loaded model)."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        max_new_tokens: int = 256,
        trust_remote_code: bool = False,
    ) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        name = model if isinstance(model, str) else getattr(model, "name_or_path", type(model).__name__)
        if isinstance(model, str):
            model = AutoModelForCausalLM.from_pretrained(model, trust_remote_code=trust_remote_code)
        if tokenizer is None:
            tokenizer = AutoTokenizer.from_pretrained(name, trust_remote_code=trust_remote_code)
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.identity = f"LocalBackend:{name}"
        self._lock = threading.Lock()  # generate() is not safe to run on one model from two threads

    def generate(self, system: str, user: str) -> str:
        """Greedy-decode the teacher's reply to one (system, user) pair. Blocking."""
        import torch

        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            inputs = tok.apply_chat_template(
                messages, add_generation_prompt=True, return_dict=True, return_tensors="pt"
            )
        else:  # a base model: plain text in, text out
            inputs = tok(f"{system}\n\n{user}\n\n", return_tensors="pt")
        inputs = {k: v.to(self.model.device) for k, v in inputs.items() if k in ("input_ids", "attention_mask")}
        pad_id = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        with self._lock, torch.inference_mode():
            output = self.model.generate(
                **inputs, max_new_tokens=self.max_new_tokens, do_sample=False, pad_token_id=pad_id
            )
        return tok.decode(output[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[Complete]:
        async def complete(system: str, user: str) -> str:
            return await asyncio.to_thread(self.generate, system, user)

        yield complete
