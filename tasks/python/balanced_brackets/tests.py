from solution import balanced_brackets


def test_nested():
    assert balanced_brackets("f(a[1]) {x}") is True and balanced_brackets("f(a[1) {x}") is False


def test_crossed():
    assert balanced_brackets("([)]") is False and balanced_brackets("([])") is True


def test_unclosed():
    assert balanced_brackets("((") is False and balanced_brackets("(())") is True


def test_extra_close():
    assert balanced_brackets("())") is False and balanced_brackets("()()") is True


def test_empty():
    assert balanced_brackets("") is True and balanced_brackets("]") is False
