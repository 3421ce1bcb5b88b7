from solution import seconds_to_hms


def test_example():
    assert seconds_to_hms(3725) == "01:02:05"


def test_zero():
    assert seconds_to_hms(0) == "00:00:00"


def test_under_a_minute():
    assert seconds_to_hms(59) == "00:00:59"


def test_end_of_day():
    assert seconds_to_hms(86399) == "23:59:59"


def test_many_hours():
    assert seconds_to_hms(360000) == "100:00:00"
