from solution import expand_braces


def _raises(pattern):
    try:
        expand_braces(pattern)
    except ValueError:
        return True
    return False


def test_simple_group():
    assert expand_braces("file.{txt,md}") == ["file.txt", "file.md"]


def test_groups_combine_in_order():
    assert expand_braces("{a,b}{1,2}") == ["a1", "a2", "b1", "b2"]


def test_nested():
    assert expand_braces("x{1,2{a,b}}") == ["x1", "x2a", "x2b"]


def test_empty_and_single_alternatives():
    assert expand_braces("a{,b}{c}") == ["ac", "abc"]


def test_no_braces_and_bare_comma():
    assert expand_braces("a,b") == ["a,b"]


def test_unmatched():
    assert _raises("a{b,c") and _raises("a}b") and expand_braces("a{b,c}") == ["ab", "ac"]
