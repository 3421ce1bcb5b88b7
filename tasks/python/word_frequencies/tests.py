from solution import word_frequencies


def test_example():
    assert word_frequencies("The cat; the HAT.") == {"the": 2, "cat": 1, "hat": 1}


def test_empty():
    assert word_frequencies("") == {} and word_frequencies("A") == {"a": 1}


def test_apostrophe():
    assert word_frequencies("don't stop, don't") == {"don't": 2, "stop": 1}


def test_digits():
    assert word_frequencies("route 66 and 66") == {"route": 1, "66": 2, "and": 1}
