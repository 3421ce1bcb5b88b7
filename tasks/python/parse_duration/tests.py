from solution import parse_duration


def _raises(text):
    try:
        parse_duration(text)
    except ValueError:
        return True
    return False


def test_hours_minutes():
    assert parse_duration("1h30m") == 5400


def test_seconds_only():
    assert parse_duration("45s") == 45


def test_skip_middle_unit():
    assert parse_duration("2h5s") == 7205


def test_empty():
    assert _raises("") and parse_duration("0s") == 0 and parse_duration("1m") == 60


def test_wrong_order():
    assert _raises("5s1h") and parse_duration("1h5s") == 3605


def test_unknown_unit():
    assert _raises("3d") and parse_duration("3h") == 10800
