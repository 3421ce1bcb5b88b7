from solution import parse_query_string


def _raises(query):
    try:
        parse_query_string(query)
    except ValueError:
        return True
    return False


def test_example():
    assert parse_query_string("q=hello+world&tag=a&tag=b%26c") == {"q": ["hello world"], "tag": ["a", "b&c"]}


def test_utf8_escapes():
    assert parse_query_string("city=S%C3%A3o+Paulo") == {"city": ["S\u00e3o Paulo"]}


def test_flag_without_value_and_empty_pairs():
    assert parse_query_string("&debug&&x=1&") == {"debug": [""], "x": ["1"]}


def test_split_at_first_equals():
    assert parse_query_string("expr=a%3Db=c") == {"expr": ["a=b=c"]}


def test_empty():
    assert parse_query_string("") == {} and parse_query_string("a") == {"a": [""]}


def test_bad_escape():
    assert _raises("a=%zz") and _raises("a=%4") and parse_query_string("a=%41") == {"a": ["A"]}
