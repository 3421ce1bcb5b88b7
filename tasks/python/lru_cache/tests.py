from solution import LRUCache


def test_evicts_least_recent():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.get("a")
    c.put("c", 3)
    assert "b" not in c and "a" in c and "c" in c


def test_update_refreshes():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.put("a", 10)
    c.put("c", 3)
    assert c.get("a") == 10 and c.get("b") is None


def test_len_capped():
    c = LRUCache(3)
    for i in range(10):
        c.put(i, i)
    assert len(c) == 3


def test_get_default():
    assert LRUCache(1).get("missing", 7) == 7


def test_bad_capacity():
    try:
        LRUCache(0)
    except ValueError:
        return
    raise AssertionError("expected ValueError")
