"""A disk cache of teacher scores (sqlite), so a re-run or a repeated completion costs no teacher call.

A score is stored under a key that hashes everything that decides it: the teacher (back end,
model, endpoint), the rubric, the prompt and the completion. Only successful scores are stored;
a failure is retried the next time the same sample comes up.

Every operation opens its own short-lived connection. That keeps the cache safe to use from
TRL's event-loop thread, from several threads, and from the several processes of an
``accelerate launch`` sharing one file (sqlite serialises the writers; WAL lets readers go on).

Usage::

    cache = TeacherCache("~/.cache/rusty_hf/teacher.sqlite")
    key = cache_key(teacher="openai:gpt-x@https://...", rubric=rubric, prompt=p, completion=c)
    hits = cache.get_many([key])          # {key: (score, reason)} for the keys found
    cache.put_many({key: (7.0, "clear and correct")})
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    key TEXT PRIMARY KEY,
    score REAL NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    created INTEGER NOT NULL DEFAULT (strftime('%s', 'now'))
)
"""
# sqlite limits the number of "?" in one statement (32766 in recent builds, 999 in old ones).
_MAX_PARAMS = 900


def default_cache_path() -> str:
    """``$XDG_CACHE_HOME/rusty_hf/teacher.sqlite`` (``~/.cache/...`` when XDG_CACHE_HOME is unset)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "rusty_hf", "teacher.sqlite")


def cache_key(*, teacher: str, rubric: str, prompt: str, completion: str) -> str:
    """A stable hex digest of the four things that decide a teacher's score."""
    payload = json.dumps([teacher, rubric, prompt, completion], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


class TeacherCache:
    """Scores on disk, keyed by :func:`cache_key`."""

    def __init__(self, path: str | os.PathLike, timeout: float = 30.0) -> None:
        self.path = Path(path).expanduser()
        self.timeout = timeout  # how long a writer waits for another process's lock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = self._connect()
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(_SCHEMA)
                conn.commit()
            finally:
                conn.close()
        except (OSError, sqlite3.Error) as exc:
            raise ValueError(
                f"cannot open the teacher cache at {self.path}: {exc}. Point cache_path "
                "(RUSTY_TEACHER_CACHE) at a writable file, or set it to 'none' to disable the cache."
            ) from exc

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=self.timeout)

    def get_many(self, keys: Iterable[str]) -> dict[str, tuple[float, str]]:
        """Return ``{key: (score, reason)}`` for the keys that are cached."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, tuple[float, str]] = {}
        conn = self._connect()
        try:
            for start in range(0, len(keys), _MAX_PARAMS):
                chunk = keys[start : start + _MAX_PARAMS]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(f"SELECT key, score, reason FROM scores WHERE key IN ({marks})", chunk)
                found.update((key, (score, reason)) for key, score, reason in rows)
        finally:
            conn.close()
        return found

    def put_many(self, scores: Mapping[str, tuple[float, str]]) -> None:
        """Store ``{key: (score, reason)}`` in one transaction (a key seen before is overwritten)."""
        if not scores:
            return
        conn = self._connect()
        try:
            with conn:  # commits, or rolls back on error
                conn.executemany(
                    "INSERT OR REPLACE INTO scores (key, score, reason) VALUES (?, ?, ?)",
                    [(key, float(score), reason) for key, (score, reason) in scores.items()],
                )
        finally:
            conn.close()

    def __len__(self) -> int:
        conn = self._connect()
        try:
            return conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
        finally:
            conn.close()
