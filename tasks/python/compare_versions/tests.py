from solution import compare_versions


def test_numeric_not_alphabetic():
    assert compare_versions("1.10", "1.9") == 1 and compare_versions("1.9", "1.10") == -1


def test_older():
    assert compare_versions("0.9.9", "1.0") == -1 and compare_versions("1.0", "0.9.9") == 1


def test_equal():
    assert compare_versions("2.4.1", "2.4.1") == 0 and compare_versions("2.4.1", "2.4") == 1


def test_missing_parts_are_zero():
    assert compare_versions("1.0.0", "1") == 0
    assert compare_versions("1", "1.0.1") == -1


def test_leading_zeros():
    assert compare_versions("1.01", "1.1") == 0 and compare_versions("1.01", "1.2") == -1
