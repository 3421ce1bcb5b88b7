from solution import parse_ini


def _raises(text):
    try:
        parse_ini(text)
    except ValueError:
        return True
    return False


def test_example():
    text = "[server]\nhost = example.org\nport=8080\n\n; paths\n[paths]\nroot = /srv"
    assert parse_ini(text) == {"server": {"host": "example.org", "port": "8080"}, "paths": {"root": "/srv"}}


def test_comments_and_empty_section():
    text = "# top\n  [ empty ]  \n\n[b]\n  ; note\nx=1\n"
    assert parse_ini(text) == {"empty": {}, "b": {"x": "1"}}


def test_value_may_contain_equals():
    assert parse_ini("[s]\nurl = a=b") == {"s": {"url": "a=b"}}


def test_repeated_section_and_key():
    text = "[s]\na=1\nb=2\n[t]\n[s]\na=3"
    assert parse_ini(text) == {"s": {"a": "3", "b": "2"}, "t": {}}


def test_key_before_section():
    assert _raises("a=1\n[s]") and parse_ini("[s]\na=1") == {"s": {"a": "1"}}


def test_bad_lines():
    assert _raises("[s]\njust words") and _raises("[s]\n = value") and parse_ini("[s]\nk = value") == {"s": {"k": "value"}}
