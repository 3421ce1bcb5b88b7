from solution import camel_to_snake


def test_camel():
    assert camel_to_snake("camelCase") == "camel_case"


def test_pascal():
    assert camel_to_snake("UserId") == "user_id"


def test_acronym():
    assert camel_to_snake("parseHTTPResponse") == "parse_http_response"


def test_already_lower():
    assert camel_to_snake("plain") == "plain" and camel_to_snake("plainText") == "plain_text"
