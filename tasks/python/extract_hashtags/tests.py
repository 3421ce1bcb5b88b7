from solution import extract_hashtags


def test_example():
    assert extract_hashtags("Loving #Python and #rust! #Python #100days") == ["Python", "rust", "100days"]


def test_no_tags():
    assert extract_hashtags("nothing here") == [] and extract_hashtags("nothing #here") == ["here"]


def test_lone_hash_ignored():
    assert extract_hashtags("# not a tag, ## either") == [] and extract_hashtags("##either") == ["either"]


def test_punctuation_ends_tag():
    assert extract_hashtags("the #end. really #the_end!") == ["end", "the_end"]
