from solution import is_valid_email


def test_valid_addresses():
    assert is_valid_email("ada.lovelace+news@example.co.uk") is True
    assert is_valid_email("x_1@my-host.org") is True and is_valid_email("x_1@my-host.org.") is False


def test_at_sign_count():
    assert is_valid_email("ada.example.com") is False
    assert is_valid_email("a@b@example.com") is False and is_valid_email("a@example.com") is True


def test_bad_local_part():
    assert is_valid_email("@example.com") is False
    assert is_valid_email("ada lovelace@example.com") is False and is_valid_email("ada_lovelace@example.com") is True


def test_domain_needs_two_labels():
    assert is_valid_email("ada@localhost") is False and is_valid_email("ada@local.host") is True


def test_empty_label():
    assert is_valid_email("ada@example..com") is False and is_valid_email("ada@example.x.com") is True


def test_last_label():
    assert is_valid_email("ada@example.c") is False
    assert is_valid_email("ada@example.c0m") is False and is_valid_email("ada@example.co") is True
