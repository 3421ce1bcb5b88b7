from solution import pig_latin


def test_example():
    assert pig_latin("hello apple string") == "ellohay appleway ingstray"


def test_vowel_start():
    assert pig_latin("orange") == "orangeway"


def test_consonant_cluster():
    assert pig_latin("chair") == "airchay"


def test_no_vowel():
    assert pig_latin("rhythm") == "rhythmay"
