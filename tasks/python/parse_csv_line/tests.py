from solution import parse_csv_line


def test_plain():
    assert parse_csv_line("a,b,c") == ["a", "b", "c"]


def test_quotes_and_empty():
    assert parse_csv_line('a,"b,c",,"say ""hi"""') == ["a", "b,c", "", 'say "hi"']


def test_empty_line():
    assert parse_csv_line("") == [""]


def test_trailing_comma():
    assert parse_csv_line("x,") == ["x", ""]


def test_unterminated():
    assert parse_csv_line('a,"oops"') == ["a", "oops"]
    try:
        parse_csv_line('a,"oops')
    except ValueError:
        return
    raise AssertionError("expected ValueError")
