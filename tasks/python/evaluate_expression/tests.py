from solution import evaluate_expression


def _raises(text):
    try:
        evaluate_expression(text)
    except ValueError:
        return True
    return False


def test_precedence():
    assert evaluate_expression("2 + 3 * (4 - 1)") == 11


def test_unary_minus_and_division():
    assert evaluate_expression("-(2+2)/8") == -0.5


def test_left_associative():
    assert evaluate_expression("10 - 4 - 3") == 3 and evaluate_expression("8 / 4 / 2") == 1


def test_nested_parentheses():
    assert evaluate_expression("((7))") == 7


def test_unbalanced():
    assert _raises("(1 + 2") and evaluate_expression("(1 + 2)") == 3


def test_bad_character():
    assert _raises("2 ^ 3") and evaluate_expression("2 * 3") == 6


def test_dangling_operator():
    assert _raises("1 +") and evaluate_expression("1 + 1") == 2
