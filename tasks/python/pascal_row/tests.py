from solution import pascal_row


def test_row_zero():
    assert pascal_row(0) == [1]


def test_row_one():
    assert pascal_row(1) == [1, 1]


def test_example():
    assert pascal_row(4) == [1, 4, 6, 4, 1]


def test_row_ten():
    row = pascal_row(10)
    assert type(row) is list and len(row) == 11 and row[5] == 252 and sum(row) == 1024


def test_negative_raises():
    assert pascal_row(2) == [1, 2, 1]
    try:
        pascal_row(-1)
    except ValueError:
        return
    raise AssertionError("a negative row should raise ValueError")
