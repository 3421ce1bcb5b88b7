from solution import fibonacci


def test_base_cases():
    assert fibonacci(0) == 0 and fibonacci(1) == 1 and fibonacci(2) == 1


def test_ten():
    assert fibonacci(10) == 55


def test_thirty():
    assert fibonacci(30) == 832040


def test_large_is_fast():
    assert fibonacci(10000) % 1000 == 875
