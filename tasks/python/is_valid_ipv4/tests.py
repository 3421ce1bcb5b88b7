from solution import is_valid_ipv4


def test_valid():
    assert is_valid_ipv4("192.168.0.1") is True
    assert is_valid_ipv4("0.0.0.0") is True
    assert is_valid_ipv4("255.255.255.255") is True and is_valid_ipv4("255.255.255.255.") is False


def test_out_of_range():
    assert is_valid_ipv4("192.168.0.256") is False and is_valid_ipv4("192.168.0.250") is True


def test_leading_zero():
    assert is_valid_ipv4("10.01.0.1") is False and is_valid_ipv4("10.1.0.1") is True


def test_wrong_number_of_parts():
    assert is_valid_ipv4("1.2.3") is False
    assert is_valid_ipv4("1.2.3.4.5") is False
    assert is_valid_ipv4("1..2.3") is False and is_valid_ipv4("1.0.2.3") is True


def test_not_digits():
    assert is_valid_ipv4("1.2.3.a") is False
    assert is_valid_ipv4("1.2.3.-4") is False
    assert is_valid_ipv4(" 1.2.3.4") is False and is_valid_ipv4("1.2.3.4") is True
