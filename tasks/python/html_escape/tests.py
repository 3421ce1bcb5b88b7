from solution import html_escape


def test_example():
    assert html_escape('<b>"Tom" & Jerry</b>') == "&lt;b&gt;&quot;Tom&quot; &amp; Jerry&lt;/b&gt;"


def test_single_quote():
    assert html_escape("it's") == "it&#39;s"


def test_entity_escaped_again():
    assert html_escape("&lt;") == "&amp;lt;"


def test_plain_text_unchanged():
    assert html_escape("plain text") == "plain text" and html_escape("plain > text") == "plain &gt; text"
