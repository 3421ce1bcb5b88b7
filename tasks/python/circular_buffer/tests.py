from solution import CircularBuffer


def test_keeps_items_in_order():
    buf = CircularBuffer(3)
    buf.append(1)
    buf.append(2)
    assert buf.to_list() == [1, 2] and len(buf) == 2 and not buf.is_full()


def test_overwrites_oldest():
    buf = CircularBuffer(2)
    for item in (1, 2, 3):
        buf.append(item)
    assert buf.to_list() == [2, 3] and len(buf) == 2 and buf.is_full()


def test_popleft_returns_oldest():
    buf = CircularBuffer(2)
    for item in ("a", "b", "c"):
        buf.append(item)
    assert buf.popleft() == "b" and buf.to_list() == ["c"]


def test_popleft_empty_raises():
    buf = CircularBuffer(1)
    buf.append("x")
    assert buf.popleft() == "x"
    try:
        buf.popleft()
    except IndexError:
        return
    raise AssertionError("popleft on an empty buffer should raise IndexError")


def test_bad_capacity_raises():
    assert len(CircularBuffer(1)) == 0 and CircularBuffer(1).to_list() == []
    try:
        CircularBuffer(0)
    except ValueError:
        return
    raise AssertionError("capacity 0 should raise ValueError")
