from solution import parse_url


def _raises(url):
    try:
        parse_url(url)
    except ValueError:
        return True
    return False


def test_all_parts():
    assert parse_url("HTTPS://Example.com:8443/a/b?x=1#top") == {
        "scheme": "https",
        "host": "example.com",
        "port": 8443,
        "path": "/a/b",
        "query": "x=1",
        "fragment": "top",
    }


def test_defaults():
    assert parse_url("http://example.org") == {
        "scheme": "http",
        "host": "example.org",
        "port": 80,
        "path": "/",
        "query": "",
        "fragment": "",
    }


def test_other_scheme_has_no_default_port():
    result = parse_url("ftp://files.example.net/pub/x.tar")
    assert type(result) is dict
    assert result["port"] is None and result["path"] == "/pub/x.tar"


def test_query_and_fragment_boundaries():
    result = parse_url("https://h.io?q=1/2#frag?x")
    assert type(result) is dict
    assert (result["path"], result["query"], result["fragment"]) == ("/", "q=1/2", "frag?x")


def test_missing_scheme_or_host():
    assert _raises("example.com/path") and _raises("http:///path") and _raises("1http://h")
    assert parse_url("http://h/path") == {"scheme": "http", "host": "h", "port": 80, "path": "/path", "query": "", "fragment": ""}


def test_bad_port():
    assert _raises("http://host:80a/") and _raises("http://host:/") and parse_url("http://host:81/")["port"] == 81
    assert type(parse_url("http://host:81/")) is dict
