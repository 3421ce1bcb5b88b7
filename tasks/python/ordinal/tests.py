from solution import ordinal


def test_first_ones():
    assert [ordinal(n) for n in (1, 2, 3, 4)] == ["1st", "2nd", "3rd", "4th"]


def test_teens():
    assert [ordinal(n) for n in (11, 12, 13)] == ["11th", "12th", "13th"]


def test_twenties():
    assert [ordinal(n) for n in (21, 22, 23, 24)] == ["21st", "22nd", "23rd", "24th"]


def test_hundreds():
    assert [ordinal(n) for n in (101, 111, 112, 122)] == ["101st", "111th", "112th", "122nd"]


def test_zero():
    assert ordinal(0) == "0th"
