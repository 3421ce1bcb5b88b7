"""Tests for rusty_hf/rewards/rust/cache.py: the Rust reward's content-addressed score cache."""

from __future__ import annotations

from rusty_hf.rewards.rust.cache import ScoreCache, cache_key


def test_cache_key_changes_with_any_part():
    base = cache_key("fn f() {}", "", {"panic_penalty": 2.0}, "rustc 1.95.0")
    assert base == cache_key("fn f() {}", "", {"panic_penalty": 2.0}, "rustc 1.95.0")
    assert base != cache_key("fn f() {}", "", {"panic_penalty": 1.0}, "rustc 1.95.0")
    assert base != cache_key("fn f() {}", "", {"panic_penalty": 2.0}, "rustc 1.96.0")
    assert base != cache_key("fn f() {}", "#[test] fn t() {}", {"panic_penalty": 2.0}, "rustc 1.95.0")


def test_memory_cache_evicts_the_least_recently_used():
    cache = ScoreCache(max_entries=2)
    cache.put("a", {"reward": 1.0})
    cache.put("b", {"reward": 2.0})
    assert cache.get("a") == {"reward": 1.0}  # a is now the most recent
    cache.put("c", {"reward": 3.0})
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 2
    assert (cache.hits, cache.misses) == (2, 1)


def test_disk_cache_survives_a_new_instance_and_ignores_corrupt_files(tmp_path):
    ScoreCache(directory=tmp_path).put("ab12", {"reward": 5.0})
    fresh = ScoreCache(directory=tmp_path)
    assert fresh.get("ab12") == {"reward": 5.0}
    (tmp_path / "cd" / "cd34.json").parent.mkdir()
    (tmp_path / "cd" / "cd34.json").write_text('{"reward": ')  # a writer that died mid-file
    assert fresh.get("cd34") is None
