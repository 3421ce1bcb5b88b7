from solution import format_thousands


def test_millions():
    assert format_thousands(1234567) == "1,234,567"


def test_no_comma_needed():
    assert format_thousands(999) == "999"


def test_exact_thousand():
    assert format_thousands(1000) == "1,000"


def test_zero():
    assert format_thousands(0) == "0"


def test_negative():
    assert format_thousands(-98765) == "-98,765"
