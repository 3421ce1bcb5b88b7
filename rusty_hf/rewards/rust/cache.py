"""A content-addressed score cache for the Rust reward: an in-memory LRU, optionally backed by disk.

GRPO samples each prompt several times and a small model repeats itself across steps, so the
same program is scored again and again; compiling it costs ~0.1-1 s, a lookup microseconds.
Keys are SHA-256 digests of everything that decides a score (:func:`cache_key`); values are small
JSON-able dicts. The disk layer (``directory=``) survives restarts and is shared by processes
(one file per key, written atomically), so a resumed run or a second rank reuses the scores.

    cache = ScoreCache(max_entries=4096, directory="outputs/rust_reward_cache")
    key = cache_key(code, tests, config_dict, toolchain_version)
    if (score := cache.get(key)) is None:
        cache.put(key, score := {"reward": 24.0})
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path


def cache_key(*parts: object) -> str:
    """SHA-256 over the JSON of ``parts`` (strings, numbers, dicts of them)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(blob.encode("utf-8", errors="surrogatepass")).hexdigest()


class ScoreCache:
    """Thread-safe LRU of ``key -> dict``, with an optional directory of ``<key>.json`` files behind it."""

    def __init__(self, max_entries: int = 4096, directory: str | os.PathLike | None = None) -> None:
        if max_entries < 0:
            raise ValueError(f"max_entries must be >= 0 (0 disables the memory cache), got {max_entries}")
        self.max_entries = max_entries
        self.directory = Path(directory) if directory is not None else None
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
        self._entries: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return value
        value = self._read(key) if self.directory is not None else None
        with self._lock:
            if value is None:
                self.misses += 1
                return None
            self.hits += 1
        self._remember(key, value)
        return value

    def put(self, key: str, value: dict) -> None:
        self._remember(key, value)
        if self.directory is not None:
            self._write(key, value)

    def _remember(self, key: str, value: dict) -> None:
        if not self.max_entries:
            return
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def _read(self, key: str) -> dict | None:
        try:
            value = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # absent, or half-written by a process that died: a miss
            return None
        return value if isinstance(value, dict) else None

    def _write(self, key: str, value: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write-then-rename: a reader in another process sees the whole file or none of it.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(value, f)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
