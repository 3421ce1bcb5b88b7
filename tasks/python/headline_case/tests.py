from solution import headline_case


def test_example():
    assert headline_case("the lord OF the rings") == "The Lord of the Rings"


def test_minor_last_word():
    assert headline_case("something to look at") == "Something to Look At"


def test_single_minor_word():
    assert headline_case("of") == "Of"


def test_several_minor_words():
    assert headline_case("A TALE OF TWO CITIES AND A DOG") == "A Tale of Two Cities and a Dog"


def test_empty():
    assert headline_case("") == "" and headline_case("x") == "X"
