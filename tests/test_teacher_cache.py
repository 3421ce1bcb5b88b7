"""The sqlite cache of teacher scores (rusty_hf/rewards/teacher/cache.py)."""

import threading

import pytest

from rusty_hf.rewards.teacher.cache import TeacherCache, cache_key

BASE = {"teacher": "OpenAIChatBackend:judge@http://x/v1", "rubric": "r", "prompt": "p", "completion": "c"}


def test_scores_persist_across_instances(tmp_path):
    path = tmp_path / "sub" / "teacher.sqlite"
    TeacherCache(path).put_many({"k1": (7.0, "fine"), "k2": (3.5, "")})
    assert TeacherCache(path).get_many(["k1", "k2", "missing"]) == {"k1": (7.0, "fine"), "k2": (3.5, "")}


@pytest.mark.parametrize("field", ["teacher", "rubric", "prompt", "completion"])
def test_key_depends_on_each_field(field):
    assert cache_key(**BASE) == cache_key(**dict(BASE))
    assert cache_key(**BASE) != cache_key(**{**BASE, field: BASE[field] + "x"})


def test_later_score_overwrites(tmp_path):
    cache = TeacherCache(tmp_path / "c.sqlite")
    cache.put_many({"k": (1.0, "a")})
    cache.put_many({"k": (9.0, "b")})
    assert cache.get_many(["k"]) == {"k": (9.0, "b")} and len(cache) == 1


def test_many_keys_are_looked_up_in_chunks(tmp_path):
    cache = TeacherCache(tmp_path / "c.sqlite")
    cache.put_many({f"k{i}": (i % 11, "") for i in range(2500)})  # more than one statement's parameters
    assert len(cache.get_many([f"k{i}" for i in range(2500)])) == 2500


def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "c.sqlite"
    TeacherCache(path)

    def write(n):
        TeacherCache(path).put_many({f"{n}-{i}": (float(i), "") for i in range(50)})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(TeacherCache(path)) == 200


def test_unwritable_path_names_the_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ValueError, match="RUSTY_TEACHER_CACHE"):
        TeacherCache(blocker / "teacher.sqlite")
