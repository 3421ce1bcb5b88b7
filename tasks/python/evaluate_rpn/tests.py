from solution import evaluate_rpn


def _raises(expr, exc):
    try:
        evaluate_rpn(expr)
    except exc:
        return True
    return False


def test_example():
    assert evaluate_rpn("3 4 + 2 *") == 14


def test_truncating_division():
    assert evaluate_rpn("7 -2 /") == -3


def test_negative_operand():
    assert evaluate_rpn("-5 2 -") == -7


def test_unknown_token():
    assert _raises("1 2 ^", ValueError) and evaluate_rpn("1 2 *") == 2


def test_too_few_operands():
    assert _raises("1 +", ValueError) and evaluate_rpn("1 1 +") == 2


def test_leftover_operands():
    assert _raises("1 2", ValueError) and evaluate_rpn("1 2 -") == -1


def test_division_by_zero():
    assert _raises("1 0 /", ZeroDivisionError) and evaluate_rpn("0 1 /") == 0 and evaluate_rpn("9 2 /") == 4
