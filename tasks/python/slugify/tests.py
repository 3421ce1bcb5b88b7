from solution import slugify


def test_example():
    assert slugify("Hello, World! 2024 edition") == "hello-world-2024-edition"


def test_ends_trimmed():
    assert slugify("  --Hi there--  ") == "hi-there"


def test_underscores_become_dashes():
    assert slugify("snake_case_name") == "snake-case-name"


def test_already_a_slug():
    assert slugify("already-fine") == "already-fine" and slugify("Already-fine") == "already-fine"


def test_empty():
    assert slugify("") == "" and slugify("A") == "a"
