from solution import to_24_hour


def _raises(text):
    try:
        to_24_hour(text)
    except ValueError:
        return True
    return False


def test_afternoon():
    assert to_24_hour("2:05 PM") == "14:05"


def test_morning_padded():
    assert to_24_hour("9:15 am") == "09:15"


def test_midnight_and_noon():
    assert to_24_hour("12:30 am") == "00:30" and to_24_hour("12:00 PM") == "12:00"


def test_hour_out_of_range():
    assert _raises("13:00 PM") and _raises("0:10 AM") and to_24_hour("1:10 AM") == "01:10"


def test_bad_minutes():
    assert _raises("1:60 AM") and _raises("1:5 AM") and to_24_hour("1:59 PM") == "13:59"


def test_missing_suffix():
    assert _raises("10:30") and to_24_hour("10:30 pm") == "22:30"
