from solution import fizzbuzz


def test_five():
    assert fizzbuzz(5) == ["1", "2", "Fizz", "4", "Buzz"]


def test_fifteen_last():
    result = fizzbuzz(15)
    assert type(result) is list and result[-1] == "FizzBuzz"


def test_zero():
    assert fizzbuzz(0) == [] and fizzbuzz(1) == ["1"]


def test_length():
    result = fizzbuzz(31)
    assert type(result) is list and len(result) == 31
