from solution import render_template


def test_example():
    result = render_template("Hi {{ name }}, you are {{age}}.", {"name": "Ada", "age": 36})
    assert result == "Hi Ada, you are 36."


def test_repeated_placeholder():
    assert render_template("{{x}}-{{x}}", {"x": "ab"}) == "ab-ab"


def test_no_placeholders():
    assert render_template("plain {text}", {}) == "plain {text}"
    assert render_template("plain {{text}}", {"text": 1}) == "plain 1"


def test_missing_name():
    assert render_template("Hello {{who}}", {"who": "you"}) == "Hello you"
    try:
        render_template("Hello {{who}}", {})
    except KeyError:
        return
    raise AssertionError("expected KeyError")
